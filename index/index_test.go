package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	src := texts("deploy failed", "deploy worked")

	// reopened syncs src into an index in dir, lets damage change it while closed,
	// and opens it again.
	reopened := func(t *testing.T, damage func(dir string, ix *Index)) (*Index, string) {
		dir := filepath.Join(t.TempDir(), "nested", "index")
		ix, err := Open(dir)
		require.NoError(t, err)
		assert.False(t, ix.Rebuilt())
		_, err = ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		damage(dir, ix)
		_ = ix.Close()
		ix, err = Open(dir)
		require.NoError(t, err)
		t.Cleanup(func() { _ = ix.Close() })
		return ix, dir
	}
	docs := func(ix *Index) []string { return sorted(searchAll(t, ix, Query{Text: "deploy"})) }

	t.Run("OK", func(t *testing.T) {
		ix, _ := reopened(t, func(string, *Index) {})
		assert.False(t, ix.Rebuilt())
		assert.Equal(t, []string{"b0", "b1"}, docs(ix))
		st, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		assert.Zero(t, st.Indexed)
	})
	t.Run("version mismatch rebuilds", func(t *testing.T) {
		ix, _ := reopened(t, func(_ string, ix *Index) {
			require.NoError(t, ix.bl.SetInternal(versionKey, []byte("0")))
		})
		assert.True(t, ix.Rebuilt())
		assert.Empty(t, docs(ix), "the old index is gone")
		st, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Indexed)
		assert.Equal(t, []string{"b0", "b1"}, docs(ix))
	})
	t.Run("corrupt metadata rebuilds", func(t *testing.T) {
		ix, _ := reopened(t, func(dir string, _ *Index) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, metaFile), []byte("{not json"), 0o644))
		})
		assert.True(t, ix.Rebuilt())
		assert.Empty(t, docs(ix))
	})
	t.Run("empty directory is used", func(t *testing.T) {
		dir := t.TempDir()
		ix, err := Open(dir)
		require.NoError(t, err)
		defer ix.Close()
		assert.False(t, ix.Rebuilt(), "nothing was discarded")
		_, err = ix.Sync(ctx, src, nil)
		require.NoError(t, err)
	})
	t.Run("a directory that is not an index is left alone", func(t *testing.T) {
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("mine"), 0o644))
		_, err := Open(dir)
		assert.ErrorContains(t, err, "not a search index")
		assert.FileExists(t, notes)
	})
}

func TestOpenWhileAnotherHoldsTheIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	first, err := Open(dir)
	require.NoError(t, err)
	defer first.Close()

	// Bleve's lock is per open file: a second Open stands in for a second process.
	_, err = Open(dir)
	require.ErrorIs(t, err, ErrInUse)
	_, err = os.Stat(filepath.Join(dir, "index_meta.json"))
	require.NoError(t, err, "the other's index is left alone, never discarded")

	require.NoError(t, first.Close())
	again, err := Open(dir)
	require.NoError(t, err, "free again once the holder closes it")
	require.False(t, again.Rebuilt())
	require.NoError(t, again.Close())
}
