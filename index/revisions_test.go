package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// threeSessions is a memSource of sessions s1, s2 and s3 at revision 1, each
// with a block whose text names it.
func threeSessions() *memSource {
	m := &memSource{revs: map[string]int64{}, blocks: map[string][]archive.Block{}}
	for _, id := range []string{"s1", "s2", "s3"} {
		m.revs[id] = 1
		m.blocks[id] = texts("alpha " + id).blocks["s"]
		for i := range m.blocks[id] {
			m.blocks[id][i].SessionID = id
			m.blocks[id][i].ID = id + "-" + m.blocks[id][i].ID
		}
	}
	return m
}

// syncedIndex syncs src into a new index in a temporary directory, closes it and
// returns the directory.
func syncedIndex(t *testing.T, src Source) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir)
	require.NoError(t, err)
	st, err := ix.Sync(context.Background(), src, nil)
	require.NoError(t, err)
	require.Equal(t, 3, st.Indexed)
	require.NoError(t, ix.Close())
	return dir
}

func reopen(t *testing.T, dir string) *Index {
	t.Helper()
	ix, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

func TestRevisionsSurviveReopen(t *testing.T) {
	ctx := context.Background()
	src := threeSessions()
	dir := syncedIndex(t, src)

	ix := reopen(t, dir)
	n, err := ix.Pending(ctx, src)
	require.NoError(t, err)
	assert.Zero(t, n)
	st, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	assert.Zero(t, st.Indexed)
	assert.Equal(t, 3, st.Unchanged)

	src.revs["s2"] = 2
	src.blocks["s2"][0].Text = "beta s2"
	st, err = ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Indexed)
	require.NoError(t, ix.Close())

	ix = reopen(t, dir)
	rev, ok := ix.revs.at("s2")
	assert.True(t, ok)
	assert.Equal(t, int64(2), rev)
	assert.Equal(t, []string{"s2-b0"}, searchAll(t, ix, Query{Text: "beta"}))
	assert.Empty(t, searchAll(t, ix, Query{Text: "alpha s2"}))
}

// A crash after Bleve wrote a session's new documents and before its revision
// was recorded: the session is indexed again, and its old revision, forgotten on
// disk before the batch, never claims the new documents are the old ones.
func TestRevisionsCrashBeforeRecord(t *testing.T) {
	ctx := context.Background()
	src := threeSessions()
	dir := syncedIndex(t, src)

	ix := reopen(t, dir)
	src.revs["s1"] = 2
	src.blocks["s1"] = append(src.blocks["s1"], texts("", "gamma s1").blocks["s"][1])
	src.blocks["s1"][1].SessionID, src.blocks["s1"][1].ID = "s1", "s1-b1"
	w, err := newBatchWriter(ix.bl, ix.revs, ix.batchDocs)
	require.NoError(t, err)
	w.listed = nil
	_, _, err = w.sessionRead(ctx, "s1", func(fn func(archive.Block) error) (int64, error) { return src.SessionBlocks(ctx, "s1", fn) })
	require.NoError(t, err)
	// What flush does, up to the Batch, and then the process dies.
	require.NoError(t, ix.revs.syncForgotten())
	require.NoError(t, ix.bl.Batch(w.b))
	require.NoError(t, ix.Close())

	ix = reopen(t, dir)
	_, ok := ix.revs.at("s1")
	assert.False(t, ok, "the old revision was forgotten before the batch")
	n, err := ix.Pending(ctx, src)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	st, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Indexed)
	assert.Equal(t, []string{"s1-b1"}, searchAll(t, ix, Query{Text: "gamma"}))
	assert.Len(t, searchAll(t, ix, Query{Text: "alpha"}), 3, "indexed again, not twice")
}

func TestRevisionsDamagedLog(t *testing.T) {
	ctx := context.Background()

	t.Run("torn last entry is ignored", func(t *testing.T) {
		src := threeSessions()
		dir := syncedIndex(t, src)
		path := filepath.Join(dir, revsFile)
		whole, err := os.ReadFile(path)
		require.NoError(t, err)
		torn := appendRevLine(nil, 's', 9, "s1")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		_, err = f.Write(torn[:len(torn)-3])
		require.NoError(t, err)
		require.NoError(t, f.Close())

		ix := reopen(t, dir)
		rev, ok := ix.revs.at("s1")
		assert.True(t, ok)
		assert.Equal(t, int64(1), rev, "the torn entry claims nothing")
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, whole, got, "the torn entry is cut off before anything is appended")

		src.revs["s3"] = 2
		st, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Indexed)
		require.NoError(t, ix.Close())
		revs, _, _, err := parseRevs(mustRead(t, path))
		require.NoError(t, err)
		assert.Equal(t, map[string]int64{"s1": 1, "s2": 1, "s3": 2}, revs)
	})

	damage := map[string]func([]byte) []byte{
		// The archive moves s1 to revision 2; a flipped digit claims it indexed there.
		"flipped revision": func(b []byte) []byte {
			i := bytes.Index(b, []byte(` s 1 "s1"`))
			require.Positive(t, i)
			b[i+3] = '2'
			return b
		},
		"garbage":   func([]byte) []byte { return []byte("\x00\x01garbage\nmore garbage\n") },
		"no header": func(b []byte) []byte { return b[len(revsHeader):] },
		"bad entry": func(b []byte) []byte { return append(b, "zzzzzzzz s 2 s1\n"...) },
		"empty":     func([]byte) []byte { return nil },
	}
	for name, spoil := range damage {
		t.Run(name, func(t *testing.T) {
			src := threeSessions()
			dir := syncedIndex(t, src)
			path := filepath.Join(dir, revsFile)
			require.NoError(t, os.WriteFile(path, spoil(mustRead(t, path)), 0o600))
			src.revs["s1"] = 2
			src.blocks["s1"][0].Text = "delta s1"

			ro, err := OpenWith(dir, Options{ReadOnly: true})
			require.NoError(t, err)
			n, err := ro.Pending(ctx, src)
			require.NoError(t, err)
			assert.Equal(t, 3, n, "a read-only open trusts no revision either")
			require.NoError(t, ro.Close())

			ix := reopen(t, dir)
			st, err := ix.Sync(ctx, src, nil)
			require.NoError(t, err)
			assert.Equal(t, 3, st.Indexed, "everything indexed again")
			assert.Equal(t, []string{"s1-b0"}, searchAll(t, ix, Query{Text: "delta"}))
			assert.Len(t, searchAll(t, ix, Query{Text: "alpha"}), 2, "not twice")
			require.NoError(t, ix.Close())
			revs, _, _, err := parseRevs(mustRead(t, path))
			require.NoError(t, err)
			assert.Equal(t, map[string]int64{"s1": 2, "s2": 1, "s3": 1}, revs)
		})
	}

	t.Run("missing", func(t *testing.T) {
		src := threeSessions()
		dir := syncedIndex(t, src)
		require.NoError(t, os.Remove(filepath.Join(dir, revsFile)))
		ix := reopen(t, dir)
		st, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		assert.Equal(t, 3, st.Indexed)
		assert.Len(t, searchAll(t, ix, Query{Text: "alpha"}), 3)
	})
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func TestRevisionsCompaction(t *testing.T) {
	dir := t.TempDir()
	s, err := openRevs(dir)
	require.NoError(t, err)
	defer s.close()
	want := map[string]int64{}
	compacted := false
	for round := int64(1); round <= 6; round++ {
		batch := map[string]int64{}
		for i := range 500 {
			id := fmt.Sprintf("session %d\n\"quoted\"", i)
			batch[id], want[id] = round, round
		}
		require.NoError(t, s.set(batch))
		for i := range 50 {
			id := fmt.Sprintf("session %d\n\"quoted\"", int(round)*50+i)
			require.NoError(t, s.forget(id))
			delete(want, id)
		}
		require.NoError(t, s.syncForgotten())
		compacted = compacted || s.entries < int(round)*550
		assert.LessOrEqual(t, s.entries, max(revsCompactMin+550, 2*len(want)+550))
	}
	assert.True(t, compacted, "the log was compacted")
	require.NoError(t, s.set(map[string]int64{"last": 7}))
	want["last"] = 7

	revs, whole, entries, err := parseRevs(mustRead(t, filepath.Join(dir, revsFile)))
	require.NoError(t, err)
	assert.Equal(t, want, revs)
	assert.Equal(t, s.entries, entries)
	assert.Equal(t, int(s.size), whole)
	assert.NoFileExists(t, filepath.Join(dir, revsTemp))

	// Compacting now keeps exactly the live entries.
	s.mu.Lock()
	require.NoError(t, s.rewrite())
	s.mu.Unlock()
	revs, _, entries, err = parseRevs(mustRead(t, filepath.Join(dir, revsFile)))
	require.NoError(t, err)
	assert.Equal(t, want, revs)
	assert.Equal(t, len(want), entries)
	require.NoError(t, s.close())

	again, err := openRevs(dir)
	require.NoError(t, err)
	defer again.close()
	assert.Equal(t, want, again.revs)
}

func TestRevisionsReadOnly(t *testing.T) {
	ctx := context.Background()
	src := threeSessions()
	dir := syncedIndex(t, src)
	before := mustRead(t, filepath.Join(dir, revsFile))

	ro, err := OpenWith(dir, Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	n, err := ro.Pending(ctx, src)
	require.NoError(t, err)
	assert.Zero(t, n)
	src.revs["s3"] = 2
	n, err = ro.Pending(ctx, src)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	_, err = ro.Sync(ctx, src, nil)
	require.ErrorIs(t, err, ErrReadOnly)
	assert.Equal(t, before, mustRead(t, filepath.Join(dir, revsFile)), "a read-only index writes nothing")

	// A temporary copy starts from the read-only index's revisions.
	tmp, err := OpenTemp(ro)
	require.NoError(t, err)
	defer tmp.Close()
	st, err := tmp.Sync(ctx, src, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Indexed)
}

func TestRevisionsReset(t *testing.T) {
	ctx := context.Background()
	src := threeSessions()
	dir := syncedIndex(t, src)

	ix := reopen(t, dir)
	delete(src.revs, "s2")
	st, err := ix.Reindex(ctx, src, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Indexed)
	revs, _, _, err := parseRevs(mustRead(t, filepath.Join(dir, revsFile)))
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"s1": 1, "s3": 1}, revs, "the old index's revisions went with it")
	require.NoError(t, ix.Close())

	fresh, err := OpenWith(dir, Options{Fresh: true})
	require.NoError(t, err)
	defer fresh.Close()
	st, err = fresh.Sync(ctx, src, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Indexed, "a discarded index's revisions are discarded too")
}

// A session without documents that leaves the archive has nothing to drop, but
// its revision leaves the log all the same.
func TestRevisionsOfEmptySessionGone(t *testing.T) {
	ctx := context.Background()
	src := threeSessions()
	src.revs["empty"] = 4
	ix := openIndex(t)
	st, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	assert.Equal(t, 4, st.Indexed)
	_, ok := ix.revs.at("empty")
	require.True(t, ok)

	delete(src.revs, "empty")
	_, err = ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	_, ok = ix.revs.at("empty")
	assert.False(t, ok)
	revs, _, _, err := parseRevs(mustRead(t, filepath.Join(ix.Dir(), revsFile)))
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"s1": 1, "s2": 1, "s3": 1}, revs)
}

// failingBatches is a Bleve index whose Batch fails on the calls fail names
// (counting from 1), and which records how many batches were written at once.
type failingBatches struct {
	bleveIndex
	fail             map[int]bool
	mu               sync.Mutex
	calls, now, most int
	written          []int // the calls that reached Bleve
}

func (f *failingBatches) Batch(b *bleve.Batch) error {
	f.mu.Lock()
	f.calls++
	call := f.calls
	f.now++
	f.most = max(f.most, f.now)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.now--
		f.mu.Unlock()
	}()
	time.Sleep(5 * time.Millisecond) // room for a second batch to overlap, were it allowed
	if f.fail[call] {
		return errors.New("injected batch failure")
	}
	f.mu.Lock()
	f.written = append(f.written, call)
	f.mu.Unlock()
	return f.bleveIndex.Batch(b)
}

// bleveIndex lets failingBatches embed a bleve.Index, whose method Index would
// otherwise clash with the field's name.
type bleveIndex = bleve.Index

// A session split across batches has its revision recorded with the batch that
// holds its last document, with no wait in between: that is safe only because
// batches are written one at a time, in order, and none after a failure.
func TestBatchWriterWritesInOrder(t *testing.T) {
	ctx := context.Background()
	long := texts("one", "two", "three", "four", "five", "six", "seven")
	// write queues session s's seven documents in batches of maxDocs, over an
	// index whose Batch fails on the calls fail names, and returns the error of
	// the queueing or of the writes.
	write := func(t *testing.T, maxDocs int, fail map[int]bool) (*Index, *failingBatches, error) {
		ix := openIndex(t)
		fb := &failingBatches{bleveIndex: ix.bl, fail: fail}
		w, err := newBatchWriter(fb, ix.revs, maxDocs)
		require.NoError(t, err)
		w.listed = nil
		_, _, err = w.sessionRead(ctx, "s", func(fn func(archive.Block) error) (int64, error) { return long.SessionBlocks(ctx, "s", fn) })
		if err != nil {
			_ = w.wait()
			return ix, fb, err
		}
		return ix, fb, w.close()
	}

	t.Run("written one at a time", func(t *testing.T) {
		ix, fb, err := write(t, 2, nil)
		require.NoError(t, err)
		assert.Equal(t, 4, fb.calls, "7 documents in batches of 2")
		assert.Equal(t, 1, fb.most, "never two batches at once")
		rev, ok := ix.revs.at("s")
		assert.True(t, ok)
		assert.Equal(t, int64(1), rev)
	})

	t.Run("nothing after a failed batch", func(t *testing.T) {
		ix, fb, err := write(t, 2, map[int]bool{1: true})
		require.ErrorContains(t, err, "injected batch failure")
		assert.Empty(t, fb.written, "no batch is written after the first failed")
		_, ok := ix.revs.at("s")
		assert.False(t, ok, "the session's revision is not recorded without its first documents")
	})

	t.Run("a session ending a full batch waits for it", func(t *testing.T) {
		// The session's documents fill a batch exactly: it is flushed as the last
		// one is queued, and the revision is left alone for the next, empty one.
		ix, _, err := write(t, 7, map[int]bool{1: true})
		require.ErrorContains(t, err, "injected batch failure")
		_, ok := ix.revs.at("s")
		assert.False(t, ok, "not recorded: the batch with its documents failed")
	})
}
