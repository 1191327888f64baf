package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	"github.com/logbook/logbook/archive"
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

// unmergedIndex makes a closed index of texts, one Bleve batch (one segment) a
// text, whose newest snapshot holds every segment: it is indexed with a merge
// plan under which no segment is small enough to merge. It returns the index's
// directory and the segments of its newest snapshot.
func unmergedIndex(t *testing.T, texts ...string) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, ix.Close())
	bl, err := bleve.OpenUsing(dir, map[string]interface{}{
		"scorchMergePlanOptions": map[string]interface{}{"MaxSegmentSize": 1},
	})
	require.NoError(t, err)
	for i, text := range texts {
		b := archive.Block{ID: fmt.Sprintf("b%d", i), SessionID: "s", Project: "p", Agent: "dsh",
			Kind: archive.BlockAssistant, Role: "assistant", Seq: int64(i), Surface: "current", Text: text}
		require.NoError(t, bl.Index(b.ID, newBlockDoc(b)))
	}
	require.NoError(t, bl.Close())
	segs, err := newestSegments(dir, time.Second)
	require.NoError(t, err)
	require.Len(t, segs, len(texts), "one segment a text")
	return dir, segs
}

// awaitMerger waits until Bleve's merger has merged the segments segs of bl, or
// is waiting in an event callback (held), for at most 10 seconds.
func awaitMerger(t *testing.T, bl bleve.Index, segs []string) {
	t.Helper()
	adv, err := bl.Advanced()
	require.NoError(t, err)
	sc := adv.(*scorch.Scorch)
	held := 0
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(time.Millisecond) {
		got, err := loadedSegments(bl)
		require.NoError(t, err)
		if !slices.Equal(sorted(got), sorted(segs)) {
			return
		}
		if st := sc.StatsMap(); st["TotEventTriggerStarted"].(uint64) > st["TotEventTriggerCompleted"].(uint64) {
			held++
		} else {
			held = 0
		}
		if held == 50 {
			return
		}
	}
	t.Fatal("the merger neither merged nor waited")
}

// openAwaitingMerger opens the index in dir, as Open does but for a wait, before
// Open checks what Bleve loaded, until Bleve's merger has merged segs or is held.
func openAwaitingMerger(t *testing.T, dir string, segs []string) *Index {
	t.Helper()
	bleveOpened = func(bl bleve.Index) { awaitMerger(t, bl, segs) }
	defer func() { bleveOpened = nil }()
	ix, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

// TestOpenWhileMerging: Bleve's merger starts as the index opens and merges small
// segments at once. A merge before Open has checked which snapshot Bleve loaded
// once made Open take the merged snapshot for an older one and discard the index.
// The test waits for the merger at the point of the race, so it never passed
// without the hold (holdMerges).
func TestOpenWhileMerging(t *testing.T) {
	dir, segs := unmergedIndex(t, "deploy failed", "deploy worked")
	ix := openAwaitingMerger(t, dir, segs)
	require.False(t, ix.Rebuilt(), "a merge is no damage")
	assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})))
	assert.Eventually(t, func() bool {
		got, err := loadedSegments(ix.bl)
		return err == nil && len(got) == 1
	}, 10*time.Second, 5*time.Millisecond, "the merge goes ahead once Open has checked")
	assert.Equal(t, []string{"b0", "b1"}, sorted(searchAll(t, ix, Query{Text: "deploy"})))
}

// TestOpenNewestSnapshotSkipped: Bleve skips a snapshot with a segment it cannot
// open and loads the one before. Holding the merger back while Open checks must
// not hide that: the index is discarded and rebuilt.
func TestOpenNewestSnapshotSkipped(t *testing.T) {
	dir, segs := unmergedIndex(t, "deploy failed", "deploy worked")
	// A newer snapshot, as a crash could leave it: the older one's segments
	// and one more whose file never reached the disk.
	db, err := bbolt.Open(filepath.Join(dir, storeDir, rootBolt), 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bbolt.Tx) error {
		snapshots := tx.Bucket(scorchSnapshots)
		last, _ := snapshots.Cursor().Last()
		newer, err := snapshots.CreateBucket(nextKey(t, last))
		require.NoError(t, err)
		copyBucket(t, snapshots.Bucket(last), newer)
		lastSeg, _ := newer.Cursor().Last()
		lost, err := newer.CreateBucket(nextKey(t, lastSeg))
		require.NoError(t, err)
		return lost.Put(scorchSegmentPath, []byte("00000000004f.zap"))
	}))
	require.NoError(t, db.Close())
	want, err := newestSegments(dir, time.Second)
	require.NoError(t, err)
	require.ElementsMatch(t, append(slices.Clone(segs), "00000000004f.zap"), want)

	ix := openAwaitingMerger(t, dir, segs)
	assert.True(t, ix.Rebuilt(), "the older snapshot is not what the revisions describe")
	assert.Empty(t, searchAll(t, ix, Query{Text: "deploy"}))
}

// nextKey returns the key in root.bolt of the snapshot epoch or segment id after
// the one of key k. Numbers up to 109 are one byte each: 136 + the number.
func nextKey(t *testing.T, k []byte) []byte {
	t.Helper()
	require.Len(t, k, 1)
	require.Less(t, k[0], byte(136+109))
	return []byte{k[0] + 1}
}

// copyBucket copies every key and nested bucket of from into to.
func copyBucket(t *testing.T, from, to *bbolt.Bucket) {
	t.Helper()
	require.NoError(t, from.ForEach(func(k, v []byte) error {
		if v != nil {
			return to.Put(k, v)
		}
		sub, err := to.CreateBucket(k)
		if err != nil {
			return err
		}
		copyBucket(t, from.Bucket(k), sub)
		return nil
	}))
}
