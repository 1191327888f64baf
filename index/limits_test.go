package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// TestQueryLimits: a query over a limit is a *QueryError that names the limit,
// before any search runs.
func TestQueryLimits(t *testing.T) {
	ix := openIndex(t)
	ctx := context.Background()
	// 600 words starting with w, 400 each with x, y and z.
	var words []string
	for i := range 600 {
		words = append(words, fmt.Sprintf("w%03d", i))
	}
	for i := range 400 {
		words = append(words, fmt.Sprintf("x%03d y%03d z%03d", i, i, i))
	}
	_, err := ix.Sync(ctx, texts(strings.Join(words, " "), "deploy failed"), nil)
	require.NoError(t, err)

	for _, tc := range []struct{ query, msg string }{
		{strings.Repeat("a", MaxQueryBytes+1), "col 4097: the query is 4097 bytes, over the limit of 4096 bytes"},
		{strings.Repeat("word ", 65), "col 321: the query has more than 64 terms"},
		{`"` + strings.Repeat("word ", 65) + `"`, "col 1: the query has more than 64 terms"},
		{strings.Repeat("写", 66), "more than 64 terms"},
		{"deploy de~", "col 8: de~: a typo search needs a word of at least 3 characters"},
		{"a~2", "col 1: a~2: a typo search needs"},
		{"的~", "的~: a typo search needs"},
		{"w*", "col 1: w* stands for more than 512 words in the index; type more of the word"},
		{"x* y* z*", "col 7: the query's prefix and typo terms stand for more than 1024 words in the index together"},
		{"text:w*", "col 6: w* stands for more than 512 words"},
	} {
		_, err := ix.Search(ctx, Query{Text: tc.query})
		var qe *QueryError
		require.True(t, errors.As(err, &qe), "%.40q: %v", tc.query, err)
		assert.Contains(t, err.Error(), tc.msg, "%.40q", tc.query)
	}
	// Within the limits.
	for _, q := range []string{
		strings.Repeat("a", MaxQueryBytes), strings.Repeat("word ", 64), "x*", "w1*", "deploy~", "dep~", "x* w1*",
	} {
		_, err := ix.Search(ctx, Query{Text: q})
		assert.NoError(t, err, "%.40q", q)
	}
}

// TestQueryNotices: what the search left out or changed is said in the result.
func TestQueryNotices(t *testing.T) {
	ix := openIndex(t)
	ctx := context.Background()
	_, err := ix.Sync(ctx, texts("deploy ✅ done → next", "deploy failed", "deplyo typo"), nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		query  string
		total  uint64
		notice string
	}{
		{"✅", 1, ""},
		{`"✅ done"`, 1, ""},
		{`"done ✅"`, 0, ""},
		{"✅ →", 1, ""},
		{"=>", 0, "=> has no searchable words: punctuation and ASCII operators are not indexed"},
		{"deploy =>", 2, "searched without =>: punctuation and ASCII operators are not indexed"},
		{"deploy -→", 1, ""},
		{"deploy~2", 3, ""},
		{"deplo~2", 3, "deplo~2 was searched as deplo~: two typos need a word of at least 6 characters"},
		{"deploy", 2, ""},
	} {
		res, err := ix.Search(ctx, Query{Text: tc.query})
		require.NoError(t, err, tc.query)
		assert.Equal(t, tc.total, res.Total, tc.query)
		assert.Equal(t, tc.notice, res.Notice, tc.query)
	}
}

// TestSymbolsRealLog: the real log has ✅ and → in dozens of blocks; a search for
// them finds exactly those blocks.
func TestSymbolsRealLog(t *testing.T) {
	f := fixture(t)
	for _, sym := range []string{"✅", "→"} {
		want := f.want(func(b archive.Block) bool { return strings.Contains(b.Text, sym) })
		require.Greater(t, len(want), 20, "the real log holds %s", sym)
		res, err := f.ix.Search(context.Background(), Query{Text: sym, Limit: 500})
		require.NoError(t, err)
		assert.EqualValues(t, len(want), res.Total, sym)
		assert.Empty(t, res.Notice)
	}
}

// TestSearchCancelled: a search stops with the context's error once its
// context is cancelled, wherever it is: before it starts, while the plan
// evaluates clause after clause, and while Bleve ranks a window.
func TestSearchCancelled(t *testing.T) {
	f := fixture(t)
	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := f.ix.Search(ctx, Query{Text: "error"})
		assert.ErrorIs(t, err, context.Canceled)
	})
	// A query of many clauses, each a prefix or typo term, with the context
	// cancelled after the n-th time anything looks at it: wherever that
	// falls, the search returns context.Canceled and promptly.
	q := Query{Text: "err* OR wri* OR perm* OR permision~ OR erorr~ OR file* OR 写入 OR deploy~ OR (tool:b* error) OR conf*", Exhaustive: true}
	checks := 0
	for n := 1; ; n++ {
		ctx := newCountdownCtx(n)
		start := time.Now()
		_, err := f.ix.Search(ctx, q)
		took := time.Since(start)
		if err == nil {
			checks = n - 1
			break
		}
		require.ErrorIs(t, err, context.Canceled, "cancelled at check %d", n)
		assert.Less(t, took, 500*time.Millisecond, "cancelled at check %d", n)
		require.Less(t, n, 10000, "the search never stops looking at its context")
	}
	t.Logf("the search looks at its context %d times", checks)
	assert.Greater(t, checks, 10, "every clause of the plan checks the context")
}

// countdownCtx is a context that is cancelled the left-th time its Done or
// Err is called: a deterministic cancellation at each point a search looks.
type countdownCtx struct {
	context.Context
	left atomic.Int64
	done chan struct{}
}

func newCountdownCtx(n int) *countdownCtx {
	c := &countdownCtx{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(int64(n))
	return c
}

func (c *countdownCtx) tick() {
	if c.left.Add(-1) == 0 {
		close(c.done)
	}
}

func (c *countdownCtx) Done() <-chan struct{} { c.tick(); return c.done }

func (c *countdownCtx) Err() error {
	c.tick()
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}
