package index

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

// syncQueries are the searches whose hits must agree between indexes built in
// different ways.
var syncQueries = []Query{
	{}, {Text: "kind:tool_result"}, {Text: "surface:shadowed"}, {Text: "surface:current"}, {Text: "is:error"},
	{Text: "handler"}, {Text: "权限"}, {Text: "src/main.go"}, {Text: "kind:compaction"}, {Text: "tool:bash"},
}

// hitsOf runs every syncQuery and returns its sorted hit IDs.
func hitsOf(t *testing.T, ix *Index) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, q := range syncQueries {
		q.Limit = MaxLimit
		out[q.Text] = sorted(searchAll(t, ix, q))
	}
	return out
}

func TestSyncIdempotent(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	for _, o := range genOptions {
		importGenerated(t, s, root, o)
	}
	ix := openIndex(t)

	var calls [][2]int
	st, err := ix.Sync(ctx, s, func(done, total int) { calls = append(calls, [2]int{done, total}) })
	require.NoError(t, err)
	assert.Equal(t, 2, st.Sessions)
	assert.Equal(t, 2, st.Indexed)
	assert.Positive(t, st.Docs)
	assert.Equal(t, [][2]int{{0, 2}, {1, 2}, {2, 2}}, calls)
	before := hitsOf(t, ix)

	st, err = ix.Sync(ctx, s, nil)
	require.NoError(t, err)
	assert.Equal(t, SyncStats{Sessions: 2, Unchanged: 2}, SyncStats{Sessions: st.Sessions, Indexed: st.Indexed, Removed: st.Removed, Unchanged: st.Unchanged, Docs: st.Docs})
	assert.Equal(t, before, hitsOf(t, ix))
}

// assertLikeFresh asserts that ix answers every syncQuery as an index built from
// s at once does (s holds a grown session, with compactions), and returns those
// answers.
func assertLikeFresh(t *testing.T, s Source, ix *Index, msg string) map[string][]string {
	t.Helper()
	fresh := openIndex(t)
	_, err := fresh.Sync(context.Background(), s, nil)
	require.NoError(t, err)
	want := hitsOf(t, fresh)
	assert.NotEmpty(t, want["surface:shadowed"], "the grown session has compactions")
	assert.Equal(t, want, hitsOf(t, ix), msg)
	return want
}

// writePrefix writes the header and the first n lines of l as a plain session file
// under root and returns its path.
func writePrefix(t *testing.T, l *dshgen.Log, root string, n int) string {
	t.Helper()
	rel, err := l.RelPath(false)
	require.NoError(t, err)
	path := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	var buf bytes.Buffer
	for _, line := range l.Lines()[:n+1] { // Lines()[0] is the header
		buf.Write(line)
		buf.WriteByte('\n')
	}
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

func TestSyncIncrementalEqualsReindex(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	importGenerated(t, s, root, genOptions[0])
	grow := dshgen.Generate(dshgen.Options{Seed: 42, Turns: 14, Cwd: "/home/dev/gamma"})
	lines := len(grow.Lines()) - 1

	// The archive grows under the index: a session is imported in three parts, with
	// a Sync after each, as a running app would.
	incr := openIndex(t)
	var path string
	for _, n := range []int{lines / 3, 2 * lines / 3, lines} {
		path = writePrefix(t, grow, root, n)
		fr := s.ImportFile(ctx, path, archive.ImportOptions{})
		require.Nil(t, fr.Error)
		st, err := incr.Sync(ctx, s, nil)
		require.NoError(t, err)
		assert.Positive(t, st.Indexed, "the grown session is indexed again")
	}
	st, err := incr.Sync(ctx, s, nil)
	require.NoError(t, err)
	assert.Zero(t, st.Indexed)

	want := assertLikeFresh(t, s, incr, "an index kept up to date equals one built at once")

	st, err = incr.Reindex(ctx, s, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Indexed)
	assert.Equal(t, want, hitsOf(t, incr), "and equals itself rebuilt")
}

// crashingSource fails SessionBlocks after a number of blocks, as a crash in the
// middle of indexing a session would stop it.
type crashingSource struct {
	Source
	after int
}

var errCrash = errors.New("simulated crash")

func (c crashingSource) SessionBlocks(ctx context.Context, id string, fn func(archive.Block) error) (int64, error) {
	n := 0
	return c.Source.SessionBlocks(ctx, id, func(b archive.Block) error {
		if n == c.after {
			return errCrash
		}
		n++
		return fn(b)
	})
}

// hidingSource hides one session, as if the archive no longer had it.
type hidingSource struct {
	*archive.Store
	hide string
}

func (h hidingSource) Revisions(ctx context.Context) (map[string]int64, error) {
	revs, err := h.Store.Revisions(ctx)
	delete(revs, h.hide)
	return revs, err
}

func TestSyncRecovers(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	id := importGenerated(t, s, root, genOptions[0])
	other := importGenerated(t, s, root, genOptions[1])
	fresh := openIndex(t)
	_, err := fresh.Sync(ctx, s, nil)
	require.NoError(t, err)
	want := hitsOf(t, fresh)
	count := func(ix *Index, q string) uint64 {
		res, err := ix.Search(ctx, Query{Text: q})
		require.NoError(t, err)
		return res.Total
	}
	sessionDocs := count(fresh, "session:"+id)
	require.Greater(t, sessionDocs, uint64(40))

	t.Run("interrupted write", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "index")
		ix, err := Open(dir)
		require.NoError(t, err)
		ix.batchDocs = 10
		_, err = ix.Sync(ctx, crashingSource{Source: s, after: 35}, nil)
		require.ErrorIs(t, err, errCrash)
		written := count(ix, "session:"+id) + count(ix, "session:"+other)
		assert.Positive(t, written, "some batches were written")
		assert.Less(t, written, sessionDocs+count(fresh, "session:"+other))
		require.NoError(t, ix.Close())

		// The app restarts: the half-written session has no revision, so the
		// next Sync writes it again, and all of it.
		ix, err = Open(dir)
		require.NoError(t, err)
		defer ix.Close()
		assert.False(t, ix.Rebuilt())
		st, err := ix.Sync(ctx, s, nil)
		require.NoError(t, err)
		assert.Equal(t, 2, st.Indexed)
		assert.Equal(t, want, hitsOf(t, ix))
	})

	t.Run("revision lost", func(t *testing.T) {
		ix := openIndex(t)
		_, err := ix.Sync(ctx, s, nil)
		require.NoError(t, err)
		require.NoError(t, ix.revs.forget(id))
		require.NoError(t, ix.revs.syncForgotten())
		st, err := ix.Sync(ctx, s, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Indexed)
		assert.Equal(t, sessionDocs, count(ix, "session:"+id), "indexed again, not twice")
		assert.Equal(t, want, hitsOf(t, ix))
	})

	t.Run("session gone from the archive", func(t *testing.T) {
		ix := openIndex(t)
		_, err := ix.Sync(ctx, s, nil)
		require.NoError(t, err)
		st, err := ix.Sync(ctx, hidingSource{Store: s, hide: id}, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Removed)
		assert.Zero(t, count(ix, "session:"+id))
		assert.Positive(t, count(ix, "session:"+other))
		_, ok := ix.revs.at(id)
		assert.False(t, ok, "no revision left for a dropped session")

		st, err = ix.Sync(ctx, hidingSource{Store: s, hide: id}, nil)
		require.NoError(t, err)
		assert.Zero(t, st.Removed, "deleted documents the term dictionary still lists are not gone twice")

		st, err = ix.Sync(ctx, s, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Indexed, "back in the archive, back in the index")
		assert.Equal(t, want, hitsOf(t, ix))
	})

	t.Run("stale blocks are deleted", func(t *testing.T) {
		ix := openIndex(t)
		src := texts("alpha one", "beta two", "gamma three")
		_, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		src.blocks["s"] = src.blocks["s"][1:]
		src.blocks["s"][0].Text = "beta changed"
		src.revs["s"] = 2
		st, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Indexed)
		assert.Empty(t, searchAll(t, ix, Query{Text: "alpha"}))
		assert.Empty(t, searchAll(t, ix, Query{Text: "two"}))
		assert.Equal(t, []string{"b1"}, searchAll(t, ix, Query{Text: "changed"}))
		assert.Equal(t, []string{"b1", "b2"}, sorted(searchAll(t, ix, Query{})))
	})

	t.Run("cancelled", func(t *testing.T) {
		ix := openIndex(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := ix.Sync(cctx, s, nil)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestReindexDuringSearch(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	importGenerated(t, s, t.TempDir(), genOptions[0])
	ix := openIndex(t)
	_, err := ix.Sync(ctx, s, nil)
	require.NoError(t, err)

	done := make(chan struct{})
	go func() {
		defer close(done)
		for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
			if _, err := ix.Search(ctx, Query{Text: "handler"}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	_, err = ix.Reindex(ctx, s, nil)
	require.NoError(t, err)
	<-done
}

func TestTextWeight(t *testing.T) {
	assert.Equal(t, 0, textWeight(""))
	assert.Equal(t, 11, textWeight("getUserName"))
	assert.Equal(t, 12, textWeight("写入"), "two CJK characters make about two tokens, like 12 bytes of ASCII")
	assert.Equal(t, 1+2*2, textWeight("aé"), "each byte of a non-ASCII character weighs two")
}
