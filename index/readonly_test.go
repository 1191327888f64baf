package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/archivetest"
)

// removeTimeFiles deletes the cached time files of the index in dir, so a search
// that plans with times wants to write them again.
func removeTimeFiles(t *testing.T, dir string) {
	t.Helper()
	times, err := filepath.Glob(filepath.Join(dir, storeDir, "*.times"))
	require.NoError(t, err)
	for _, f := range times {
		require.NoError(t, os.Remove(f))
	}
}

// recent is a query whose planned search reads every document's time (a time
// filter), which an index writes to a time file beside each segment
// (segcache.go).
var recent = Query{Text: "deploy after:2020-01-01", Sort: "recent"}

func TestOpenReadOnlyWritesNothing(t *testing.T) {
	ctx := context.Background()
	src := texts("deploy failed", "deploy worked")
	dir := brokenIndex(t, src, func(*testing.T, string) {})
	removeTimeFiles(t, dir)
	parent := filepath.Dir(dir)
	before := archivetest.TreeState(t, parent)

	ix, err := OpenWith(dir, Options{ReadOnly: true})
	require.NoError(t, err)
	assert.True(t, ix.ReadOnly())
	assert.Equal(t, []string{"b1", "b0"}, searchAll(t, ix, recent))
	assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})))
	n, err := ix.Pending(ctx, src)
	require.NoError(t, err)
	assert.Zero(t, n, "level with its source")
	st, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err, "a Sync with nothing to write works read-only")
	assert.Equal(t, 1, st.Unchanged)

	more := texts("deploy failed", "deploy worked", "deploy again")
	more.revs["s"] = 2
	n, err = ix.Pending(ctx, more)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	_, err = ix.Sync(ctx, more, nil)
	require.ErrorIs(t, err, ErrReadOnly)
	_, err = ix.Reindex(ctx, more, nil)
	require.ErrorIs(t, err, ErrReadOnly)
	assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})), "a refused write changes nothing")
	require.NoError(t, ix.Close())

	assert.Equal(t, before, archivetest.TreeState(t, parent), "nothing written in or beside the index")

	// The same searches opened for writing do write (the time files, the lock
	// file, the holder record): the read-only open is what kept them out.
	rw, err := Open(dir)
	require.NoError(t, err)
	defer rw.Close()
	searchAll(t, rw, recent)
	times, err := filepath.Glob(filepath.Join(dir, storeDir, "*.times"))
	require.NoError(t, err)
	assert.NotEmpty(t, times, "a writer caches the times its search read")
}

func TestOpenReadOnlyRefuses(t *testing.T) {
	src := texts("deploy failed")
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"no index", func(t *testing.T, dir string) { require.NoError(t, os.RemoveAll(dir)) }, ErrNoIndex.Error()},
		{"a file", func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(dir))
			require.NoError(t, os.WriteFile(dir, nil, 0o644))
		}, "is a file"},
		{"an unfinished metadata update", func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(dir, metaFile))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, metaTemp), b, 0o644))
		}, metaTemp},
		{"no root.bolt", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, storeDir, rootBolt)))
		}, "no root.bolt"},
		{"index_meta.json missing", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, metaFile)))
		}, "metadata missing"},
		{"segment missing", func(t *testing.T, dir string) {
			zaps, err := filepath.Glob(filepath.Join(dir, storeDir, "*.zap"))
			require.NoError(t, err)
			require.NotEmpty(t, zaps)
			require.NoError(t, os.Remove(zaps[0]))
		}, "read-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := brokenIndex(t, src, tc.damage)
			parent := filepath.Dir(dir)
			before := archivetest.TreeState(t, parent)
			_, err := OpenWith(dir, Options{ReadOnly: true})
			require.ErrorContains(t, err, tc.want)
			assert.Equal(t, before, archivetest.TreeState(t, parent), "nothing repaired, nothing created")
		})
	}
}

func TestOpenTemp(t *testing.T) {
	ctx := context.Background()
	src := texts("deploy failed", "deploy worked")
	more := texts("deploy failed", "deploy worked", "deploy again")
	more.revs["s"] = 2

	t.Run("empty", func(t *testing.T) {
		ix, err := OpenTemp(nil)
		require.NoError(t, err)
		root := filepath.Dir(ix.Dir())
		assert.Equal(t, filepath.Clean(os.TempDir()), filepath.Dir(root))
		_, err = ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})))
		require.NoError(t, ix.Close())
		assert.NoDirExists(t, root, "Close removes it")
	})
	t.Run("a copy of a read-only index", func(t *testing.T) {
		dir := brokenIndex(t, src, func(*testing.T, string) {})
		before := archivetest.TreeState(t, filepath.Dir(dir))
		ro, err := OpenWith(dir, Options{ReadOnly: true})
		require.NoError(t, err)
		defer ro.Close()
		ix, err := OpenTemp(ro)
		require.NoError(t, err)
		defer ix.Close()
		require.NoError(t, ro.Close())
		assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})), "it starts with what the index had")
		st, err := ix.Sync(ctx, more, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Indexed)
		assert.Equal(t, []string{"b0", "b1", "b2"}, sorted(searchAll(t, ix, Query{Text: "deploy"})))
		assert.Equal(t, []string{"b2", "b1", "b0"}, searchAll(t, ix, recent))
		// Merge what the copy shares with the original, to prove the original
		// keeps its files whatever the copy does with its own.
		_, err = ix.Reindex(ctx, more, nil)
		require.NoError(t, err)
		root := filepath.Dir(ix.Dir())
		require.NoError(t, ix.Close())
		assert.NoDirExists(t, root)
		assert.Equal(t, before, archivetest.TreeState(t, filepath.Dir(dir)), "the original is untouched")
	})
	t.Run("only from a read-only index", func(t *testing.T) {
		ix := openIndex(t)
		_, err := OpenTemp(ix)
		require.ErrorContains(t, err, "read-only")
	})
}
