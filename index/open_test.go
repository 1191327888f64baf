package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// brokenStates are the states a failure (a full disk, a crash half way, a hand
// that deleted a file) can leave an index directory in. Each damages dir, which
// holds a closed index of texts("deploy failed", "deploy worked"). keeps says
// whether the index survives it: only leftovers beside or in it were cleaned up.
var brokenStates = []struct {
	name   string
	damage func(t *testing.T, dir string)
	keeps  bool
}{
	{"index_meta.json missing, store kept", func(t *testing.T, dir string) {
		require.NoError(t, os.Remove(filepath.Join(dir, metaFile)))
	}, false},
	{"index_meta.json empty", func(t *testing.T, dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, metaFile), nil, 0o644))
	}, false},
	{"index_meta.json garbage", func(t *testing.T, dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, metaFile), []byte("{not json"), 0o644))
	}, false},
	{"index_meta.json a directory", func(t *testing.T, dir string) {
		require.NoError(t, os.Remove(filepath.Join(dir, metaFile)))
		require.NoError(t, os.Mkdir(filepath.Join(dir, metaFile), 0o755))
	}, false},
	{"index_meta.json_temp garbage", func(t *testing.T, dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, metaTemp), []byte("\x00\x01"), 0o644))
	}, false},
	{"store missing", func(t *testing.T, dir string) {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, storeDir)))
	}, false},
	{"store is a file", func(t *testing.T, dir string) {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, storeDir)))
		require.NoError(t, os.WriteFile(filepath.Join(dir, storeDir), []byte("x"), 0o644))
	}, false},
	{"root.bolt garbage", func(t *testing.T, dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, storeDir, rootBolt), []byte("not a bolt database, not at all, no"), 0o600))
	}, false},
	{"root.bolt empty", func(t *testing.T, dir string) {
		require.NoError(t, os.Truncate(filepath.Join(dir, storeDir, rootBolt), 0))
	}, false},
	{"root.bolt a directory", func(t *testing.T, dir string) {
		require.NoError(t, os.Remove(filepath.Join(dir, storeDir, rootBolt)))
		require.NoError(t, os.Mkdir(filepath.Join(dir, storeDir, rootBolt), 0o755))
	}, false},
	{"segment truncated", func(t *testing.T, dir string) {
		zaps, err := filepath.Glob(filepath.Join(dir, storeDir, "*.zap"))
		require.NoError(t, err)
		require.NotEmpty(t, zaps)
		for _, z := range zaps {
			fi, err := os.Stat(z)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(z, fi.Size()/2))
		}
	}, false},
	{"segment missing", func(t *testing.T, dir string) {
		zaps, err := filepath.Glob(filepath.Join(dir, storeDir, "*.zap"))
		require.NoError(t, err)
		require.NotEmpty(t, zaps)
		require.NoError(t, os.Remove(zaps[0]))
	}, false},
	{"a file where the index belongs", func(t *testing.T, dir string) {
		require.NoError(t, os.RemoveAll(dir))
		require.NoError(t, os.WriteFile(dir, []byte("mine"), 0o644))
	}, false},
	{"another version", func(t *testing.T, dir string) {
		bl, err := bleve.Open(dir)
		require.NoError(t, err)
		require.NoError(t, bl.SetInternal(versionKey, []byte("0")))
		require.NoError(t, bl.Close())
	}, false},
	{"stale holder record", func(t *testing.T, dir string) {
		require.NoError(t, writeHolder(dir, Holder{PID: deadPID(t), Command: "logbook import", OneShot: true}))
	}, true},
	{"leftovers of interrupted builds and swaps beside it", func(t *testing.T, dir string) {
		for _, name := range []string{dir + newSuffix + "1-x", dir + oldSuffix + strconv.Itoa(os.Getpid()) + "-2"} {
			require.NoError(t, os.MkdirAll(filepath.Join(name, storeDir), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(name, metaFile), nil, 0o644))
		}
	}, true},
}

// brokenIndex makes an index of src in a fresh directory, closes it and damages
// it with damage.
func brokenIndex(t *testing.T, src Source, damage func(t *testing.T, dir string)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data", "index")
	ix, err := Open(dir)
	require.NoError(t, err)
	_, err = ix.Sync(context.Background(), src, nil)
	require.NoError(t, err)
	require.NoError(t, ix.Close())
	damage(t, dir)
	return dir
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

func TestOpenBrokenStates(t *testing.T) {
	ctx := context.Background()
	src := texts("deploy failed", "deploy worked")
	docs := func(ix *Index) []string { return sorted(searchAll(t, ix, Query{Text: "deploy"})) }
	for _, tc := range brokenStates {
		t.Run(tc.name, func(t *testing.T) {
			t.Run("Open", func(t *testing.T) {
				dir := brokenIndex(t, src, tc.damage)
				ix, err := Open(dir)
				require.NoError(t, err)
				defer ix.Close()
				assert.Equal(t, !tc.keeps, ix.Rebuilt())
				if tc.keeps {
					assert.Equal(t, []string{"b0", "b1"}, docs(ix), "the index is kept")
				} else {
					assert.Empty(t, docs(ix))
				}
				st, err := ix.Sync(ctx, src, nil)
				require.NoError(t, err)
				assert.Equal(t, map[bool]int{true: 0, false: 1}[tc.keeps], st.Indexed)
				assert.Equal(t, []string{"b0", "b1"}, docs(ix))
				assertNoLeftovers(t, dir)
				require.NoError(t, ix.Close())

				again, err := Open(dir)
				require.NoError(t, err, "the repaired index opens")
				defer again.Close()
				assert.False(t, again.Rebuilt())
				assert.Equal(t, []string{"b0", "b1"}, docs(again))
			})
			t.Run("Reindex", func(t *testing.T) {
				dir := brokenIndex(t, src, tc.damage)
				ix, err := OpenWith(dir, Options{Fresh: true})
				require.NoError(t, err)
				defer ix.Close()
				assert.Empty(t, docs(ix), "a fresh index starts empty")
				st, err := ix.Reindex(ctx, src, nil)
				require.NoError(t, err)
				assert.Equal(t, 1, st.Indexed)
				assert.Equal(t, []string{"b0", "b1"}, docs(ix))
				assertNoLeftovers(t, dir)
			})
		})
	}
	t.Run("a file where the index belongs is kept aside", func(t *testing.T) {
		dir := brokenIndex(t, src, func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(dir))
			require.NoError(t, os.WriteFile(dir, []byte("mine"), 0o644))
		})
		ix, err := Open(dir)
		require.NoError(t, err)
		defer ix.Close()
		aside, err := filepath.Glob(dir + ".moved-aside-*")
		require.NoError(t, err)
		require.Len(t, aside, 1)
		b, err := os.ReadFile(aside[0])
		require.NoError(t, err)
		assert.Equal(t, "mine", string(b), "never deleted")
	})
}

// assertNoLeftovers checks that nothing Open builds or replaces is left beside
// the index in dir.
func assertNoLeftovers(t *testing.T, dir string) {
	t.Helper()
	for _, suffix := range []string{newSuffix, oldSuffix} {
		m, err := filepath.Glob(dir + suffix + "*")
		require.NoError(t, err)
		assert.Empty(t, m, "leftovers beside the index")
	}
	_, err := os.Stat(filepath.Join(dir, metaTemp))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestOpenLeavesOthersAlone(t *testing.T) {
	t.Run("a directory that is not an index", func(t *testing.T) {
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("mine"), 0o644))
		require.NoError(t, os.Mkdir(filepath.Join(dir, storeDir), 0o755))
		for _, fresh := range []bool{false, true} {
			_, err := OpenWith(dir, Options{Fresh: fresh})
			assert.ErrorContains(t, err, "not a search index")
			assert.FileExists(t, notes)
		}
	})
	t.Run("a directory beside it named like a leftover", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "index")
		other := dir + newSuffix + "7-mine"
		require.NoError(t, os.MkdirAll(other, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644))
		ix, err := Open(dir)
		require.NoError(t, err)
		require.NoError(t, ix.Close())
		assert.FileExists(t, filepath.Join(other, "notes.txt"))
	})
}

// TestOpenNeverDiscardsALockedIndex holds the index in every way another process
// can and checks that Open, even asked for a fresh index, reports it busy and
// leaves it whole, however broken it looks from outside.
func TestOpenNeverDiscardsALockedIndex(t *testing.T) {
	ctx := context.Background()
	src := texts("deploy failed", "deploy worked")
	holders := map[string]func(t *testing.T, dir string) func(){
		// Another Index: its lock file and Bleve's lock are held. (Locks are per
		// open file, so a second Open stands in for a second process.)
		"writer": func(t *testing.T, dir string) func() {
			ix, err := Open(dir)
			require.NoError(t, err)
			return func() { _ = ix.Close() }
		},
		// A read-only reader, or a Logbook from before the lock file: only
		// Bleve's lock on root.bolt is held.
		"bolt only": func(t *testing.T, dir string) func() {
			bl, err := bleve.OpenUsing(dir, map[string]interface{}{"read_only": true})
			require.NoError(t, err)
			return func() { _ = bl.Close() }
		},
	}
	for name, hold := range holders {
		t.Run(name, func(t *testing.T) {
			dir := brokenIndex(t, src, func(*testing.T, string) {})
			release := hold(t, dir)
			for _, o := range []Options{{Wait: -1}, {Wait: -1, Fresh: true}, {Wait: -1, ReadOnly: name != "bolt only"}} {
				_, err := OpenWith(dir, o)
				require.ErrorIs(t, err, ErrInUse, "%+v", o)
				var iu *InUseError
				require.ErrorAs(t, err, &iu)
			}
			assert.FileExists(t, filepath.Join(dir, metaFile), "the other's index is left alone")
			release()
			ix, err := Open(dir)
			require.NoError(t, err, "free again once the holder closes it")
			defer ix.Close()
			assert.False(t, ix.Rebuilt(), "never discarded")
			assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})))
			_, err = ix.Sync(ctx, src, nil)
			require.NoError(t, err)
		})
	}
}

func TestReindexSwapsOnlyWhenComplete(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir)
	require.NoError(t, err)
	defer ix.Close()
	_, err = ix.Sync(ctx, texts("deploy failed"), nil)
	require.NoError(t, err)
	before, err := os.Stat(dir)
	require.NoError(t, err)

	_, err = ix.Reindex(ctx, texts("deploy failed", "deploy worked"), nil)
	require.NoError(t, err)
	after, err := os.Stat(dir)
	require.NoError(t, err)
	assert.False(t, os.SameFile(before, after), "a new directory was swapped in")
	assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})))
	assertNoLeftovers(t, dir)
	h := readHolder(dir)
	require.NotNil(t, h, "the holder record moves to the new directory")
	assert.Equal(t, os.Getpid(), h.PID)
}
