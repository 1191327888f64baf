package index

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

// TestSyncAlongEqualsSync imports sessions while SyncAlong runs, one of them in
// three growing parts: what each import commits becomes searchable while the
// import goes on, and the index at the end equals one built at once.
func TestSyncAlongEqualsSync(t *testing.T) {
	for _, fed := range []bool{false, true} {
		t.Run(map[bool]string{false: "looking", true: "fed"}[fed], func(t *testing.T) {
			ctx := context.Background()
			s := archivetest.MustOpen(t)
			root := t.TempDir()
			ix := openIndex(t)
			var opts archive.ImportOptions
			var feed *AlongFeed
			src := &revisionCounting{Store: s}
			if fed {
				feed = NewAlongFeed()
				opts.CommittedSessions = feed.Committed
			}
			stop, wait := startAlongFed(ctx, ix, src, feed)
			searchable := func() bool {
				n, err := ix.Pending(ctx, s)
				return err == nil && n == 0
			}
			importFile := func(path string) {
				fr := s.ImportFile(ctx, path, opts)
				require.Nil(t, fr.Error)
			}
			generated := func(o dshgen.Options) {
				path, err := dshgen.Generate(o).WriteFile(root, true)
				require.NoError(t, err)
				importFile(path)
			}

			grow := dshgen.Generate(dshgen.Options{Seed: 42, Turns: 14, Cwd: "/home/dev/gamma"})
			lines := len(grow.Lines()) - 1
			generated(genOptions[0])
			for _, n := range []int{lines / 3, 2 * lines / 3} {
				importFile(writePrefix(t, grow, root, n))
				require.Eventually(t, searchable, 20*time.Second, 10*time.Millisecond,
					"what the import committed becomes searchable while it runs")
			}
			// The last part and another session land just before the import ends: the
			// look SyncAlong takes once stopped (or the feed) names them.
			importFile(writePrefix(t, grow, root, lines))
			generated(genOptions[1])
			close(stop)
			st, err := wait()
			require.NoError(t, err)
			assert.Equal(t, 5, st.Indexed, "each session at each revision the import committed, once")
			assert.True(t, searchable(), "nothing committed before the stop is left to index")
			if fed {
				assert.Equal(t, 1, src.looks(), "fed, SyncAlong reads every revision only as it starts")
			} else {
				assert.GreaterOrEqual(t, src.looks(), 3, "not fed, SyncAlong looks at every revision again and again")
			}

			after, err := ix.Sync(ctx, s, nil)
			require.NoError(t, err)
			assert.Zero(t, after.Indexed)
			assertLikeFresh(t, s, ix, "an index fed along the import equals one built at once")
		})
	}
}

// revisionCounting is the archive as SyncAlong's source, counting its looks at
// every session's revision.
type revisionCounting struct {
	*archive.Store
	mu sync.Mutex
	n  int
}

func (c *revisionCounting) Revisions(ctx context.Context) (map[string]int64, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.Store.Revisions(ctx)
}

func (c *revisionCounting) looks() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// changingSource changes session s at each of its first looks: its revision
// moves on and its blocks change, as for a session rewritten again and again while
// an import runs, each time before SyncAlong has written the batch holding the
// last version.
type changingSource struct {
	*memSource
	mu       sync.Mutex
	looks    int
	versions [][]archive.Block
}

func (c *changingSource) Revisions(ctx context.Context) (map[string]int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.looks < len(c.versions) {
		c.revs["s"] = int64(c.looks + 1)
		c.blocks["s"] = c.versions[c.looks]
	}
	c.looks++
	return maps.Clone(c.revs), nil
}

func (c *changingSource) seen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.looks
}

func TestSyncAlongSessionChangedWhileQueued(t *testing.T) {
	ctx := context.Background()
	block := func(id, text string) archive.Block {
		return archive.Block{ID: id, SessionID: "s", Project: "p", Agent: "dsh", Kind: archive.BlockAssistant,
			Role: "assistant", Surface: "current", Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Text: text}
	}
	src := &changingSource{memSource: &memSource{revs: map[string]int64{}, blocks: map[string][]archive.Block{}},
		versions: [][]archive.Block{
			{block("b0", "alpha"), block("b1", "bravo")},
			{block("b0", "alpha"), block("b2", "charlie")},
			{block("b0", "delta")},
		}}
	ix := openIndex(t)
	stop, wait := startAlong(ctx, ix, src)
	require.Eventually(t, func() bool { return src.seen() > len(src.versions) }, 20*time.Second, 10*time.Millisecond)
	close(stop)
	st, err := wait()
	require.NoError(t, err)
	assert.Equal(t, 3, st.Indexed, "every version is indexed")
	for _, word := range []string{"alpha", "bravo", "charlie"} {
		assert.Empty(t, searchAll(t, ix, Query{Text: word}), "%s is in no version left", word)
	}
	assert.Equal(t, []string{"b0"}, searchAll(t, ix, Query{Text: "delta"}))
	n, err := ix.Pending(ctx, src)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// startAlong runs SyncAlong on its own goroutine until stop is closed; wait
// returns what it returned.
func startAlong(ctx context.Context, ix *Index, src Source) (stop chan struct{}, wait func() (SyncStats, error)) {
	return startAlongFed(ctx, ix, src, nil)
}

// startAlongFed is startAlong with a feed.
func startAlongFed(ctx context.Context, ix *Index, src Source, feed *AlongFeed) (stop chan struct{}, wait func() (SyncStats, error)) {
	stop = make(chan struct{})
	type result struct {
		st  SyncStats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := ix.SyncAlong(ctx, src, stop, feed)
		done <- result{st, err}
	}()
	return stop, func() (SyncStats, error) {
		r := <-done
		return r.st, r.err
	}
}

// TestSyncAlongStopsWithContext: a cancelled context ends SyncAlong with its error,
// and the index stays usable.
func TestSyncAlongStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ix := openIndex(t)
	_, wait := startAlong(ctx, ix, texts("one two"))
	cancel()
	_, err := wait()
	require.ErrorIs(t, err, context.Canceled, "a cancelled context ends SyncAlong, though stop stays open")
	_, err = ix.Sync(context.Background(), texts("one two"), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"b0"}, searchAll(t, ix, Query{Text: "two"}))
}

// batchCounting is the archive as SyncAlong's source, counting its reads of
// blocks, with one session that is gone by the time its blocks are read.
type batchCounting struct {
	*archive.Store
	alone, batches int
}

func (c *batchCounting) Revisions(ctx context.Context) (map[string]int64, error) {
	revs, err := c.Store.Revisions(ctx)
	if err == nil {
		revs["session-deleted-meanwhile"] = 1
	}
	return revs, err
}

func (c *batchCounting) SessionBlocks(ctx context.Context, id string, fn func(archive.Block) error) (int64, error) {
	c.alone++
	return c.Store.SessionBlocks(ctx, id, fn)
}

func (c *batchCounting) SessionsBlocks(ctx context.Context, ids []string, fn func(string, int64, func(func(archive.Block) error) error) error) error {
	c.batches++
	return c.Store.SessionsBlocks(ctx, ids, fn)
}

// onlySource hides what else its Source offers (archive.Store's SessionsBlocks
// and SessionActivity): a sync reads it a session at a time.
type onlySource struct{ Source }

// TestSyncsReadInBatches: SyncAlong and Sync read the blocks of the sessions an
// import committed readBatch sessions at a time, Sync drops a session deleted
// meanwhile, and both build the index a Sync reading each session alone builds.
func TestSyncsReadInBatches(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	n := readBatch + 10
	for i := range n {
		_, err := dshgen.Generate(dshgen.Options{Seed: uint64(i) + 1, Turns: 1, StepsPerTurn: 1, ChunkTokens: 20,
			ToolResultBytes: 200, Cwd: "/home/dev/small"}).WriteFile(root, false)
		require.NoError(t, err)
	}
	_, err := dshgen.Generate(dshgen.Options{Seed: 42, Turns: 14, Cwd: "/home/dev/gamma"}).WriteFile(root, true)
	require.NoError(t, err)
	_, err = s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	revs, err := s.Revisions(ctx)
	require.NoError(t, err)
	require.Greater(t, len(revs), readBatch)

	t.Run("along", func(t *testing.T) {
		ix := openIndex(t)
		src := &batchCounting{Store: s}
		stop := make(chan struct{})
		close(stop) // one look, which finds every session
		st, err := ix.SyncAlong(ctx, src, stop, nil)
		require.NoError(t, err)
		assert.Equal(t, len(revs), st.Indexed, "every session, the deleted one skipped")
		assert.Zero(t, src.alone, "no session is read alone")
		assert.Equal(t, 2, src.batches, "%d sessions are read in two batches", len(revs)+1)
		assertLikeFresh(t, onlySource{s}, ix, "an index fed in batches equals one built a session at a time")
	})
	t.Run("sync", func(t *testing.T) {
		ix := openIndex(t)
		src := &batchCounting{Store: s}
		st, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		assert.Equal(t, len(revs), st.Indexed)
		assert.Equal(t, 1, st.Removed, "the session deleted meanwhile is dropped")
		assert.Zero(t, src.alone, "no session is read alone")
		assert.Equal(t, 2, src.batches, "%d sessions are read in two batches", len(revs)+1)
		assertLikeFresh(t, onlySource{s}, ix, "an index synced in batches equals one built a session at a time")
	})
	t.Run("budget", func(t *testing.T) {
		// A batch ends at readBudget of text, read whole before it is indexed;
		// a session over it on its own is read as it is indexed.
		defer func(b int) { readBudget = b }(readBudget)
		readBudget = 16 << 10
		ix := openIndex(t)
		src := &batchCounting{Store: s}
		st, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		assert.Equal(t, len(revs), st.Indexed)
		assert.Equal(t, 1, st.Removed)
		assert.Equal(t, 1, src.alone, "the one session over the budget is read alone")
		assert.Greater(t, src.batches, 4, "the budget cuts batches short")
		assertLikeFresh(t, onlySource{s}, ix, "an index synced in budgeted batches equals one built a session at a time")
	})
}
