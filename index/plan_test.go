package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// planQueries cover every node the planner evaluates itself (terms, filters,
// times, phrases, AND/OR/NOT, "none" clauses) and those it hands to Bleve
// (prefix, fuzzy).
var planQueries = []string{
	"", "error", "写入", "写入权限", "权限 OR error", "write permission", `"write permission"`,
	`"error handler"`, "error -写入", `-"write permission"`, "NOT error", "error AND NOT kind:tool_result",
	"kind:tool_result", "kind:tool_call tool:bash", "is:error", "is:error kind:tool_result",
	"surface:shadowed", "surface:log-only", "role:user", "month:2026-03", "since:2026-05-01",
	"before:2026-05-01", "since:2026-03-02T09:30:00Z before:2026-08-20", "seq:3", "turn:2",
	"perm*", "tool:b*", "permision~", "error ->", "->", "-(->)", "(error OR 写入) -is:error",
	"getUserName", "src/main.go", "agent:dsh error", "zzzzqqq", "error zzzzqqq*",
	"(-> OR ->) error", "error (-> OR ->)", "NOT ->", "写 OR 权", "\"权限\" -\"写入权限\"",
	// Phrases beside time filters, negated: evalExact runs Bleve on the phrases alone.
	`"write permission" since:2026-05-01`, `error -("write permission" before:2026-05-01)`,
	`-("error handler" OR since:2026-08-01)`,
}

// bleveOracle runs text as plain Bleve would, with no plan: every match, in
// Bleve's order for sortBy, and facets counted from the matches' stored fields.
func bleveOracle(t *testing.T, ix *Index, text, sortBy string) (ids []string, facets Facets) {
	t.Helper()
	// The tree Search runs: within the limits (erorr~2 is searched as erorr~1).
	tree, _, err := parseQuery(text, time.Now())
	require.NoError(t, err)
	req := newRequest(bleveQuery(tree), 1_000_000, sortBy, nil)
	req.Highlight = nil
	res, err := ix.bl.Search(req)
	require.NoError(t, err)
	counts := map[string]map[string]int{}
	add := func(field, term string) {
		if term == "" {
			return
		}
		if counts[field] == nil {
			counts[field] = map[string]int{}
		}
		counts[field][term]++
	}
	for _, d := range res.Hits {
		ids = append(ids, d.ID)
		h := newHit(d)
		add(fieldKind, h.Kind)
		add(fieldTool, h.Tool)
		add(fieldProject, h.Project)
		add(fieldAgent, h.Agent)
		if !h.Time.IsZero() {
			add(fieldMonth, h.Time.Format("2006-01"))
		}
	}
	list := func(field string) []FacetCount {
		out := []FacetCount{}
		for term, n := range counts[field] {
			out = append(out, FacetCount{Term: term, Count: n})
		}
		return topFacets(field, out)
	}
	return ids, Facets{Kind: list(fieldKind), Tool: list(fieldTool), Project: list(fieldProject), Agent: list(fieldAgent), Month: list(fieldMonth)}
}

// TestPlanMatchesBleve holds the planned and the exhaustive search to plain
// Bleve: the same matches (every page, no duplicates), the same total and
// facets when exact, and the same order where the plan claims it — "recent"
// always, relevance when one window holds every match, and always when
// exhaustive.
func TestPlanMatchesBleve(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	for _, win := range []int{windowSize, 7} {
		f.ix.window = win
		for _, text := range planQueries {
			for _, sortBy := range []string{SortRelevance, SortRecent} {
				name := fmt.Sprintf("w%d/%s/%q", win, sortBy, text)
				want, wantFacets := bleveOracle(t, f.ix, text, sortBy)
				q := Query{Text: text, Sort: sortBy, Limit: 50}
				ex := q
				ex.Exhaustive, ex.Limit = true, 7
				first, err := f.ix.Search(ctx, q)
				require.NoError(t, err, name)
				exFirst, err := f.ix.Search(ctx, ex)
				require.NoError(t, err, name)
				assert.True(t, exFirst.TotalExact, name)
				assert.EqualValues(t, len(want), exFirst.Total, "%s: exhaustive total", name)
				assert.Equal(t, wantFacets, exFirst.Facets, "%s: exhaustive facets", name)
				// A time filter scores every match alike (timeQuery), as the
				// plan, which leaves it out (scoringTree), does: the order is the same.
				assert.Equal(t, want, searchAll(t, f.ix, ex), "%s: exhaustive order", name)
				if first.TotalExact {
					assert.EqualValues(t, len(want), first.Total, "%s: total", name)
					assert.Equal(t, wantFacets, first.Facets, "%s: facets", name)
				} else {
					assert.Positive(t, first.Total, name)
				}

				got := searchAll(t, f.ix, q)
				assert.Len(t, got, len(want), "%s: matches", name)
				assert.Equal(t, sorted(want), sorted(got), "%s: matches", name)
				if !slices.Equal(sorted(got), slices.Compact(sorted(got))) {
					t.Errorf("%s: a hit on two pages", name)
				}
				if sortBy == SortRecent || first.RankedAmong == 0 {
					assert.Equal(t, want, got, "%s: order", name)
				}
				if first.RankedAmong > 0 {
					assert.Equal(t, SortRelevance, sortBy)
					assert.LessOrEqual(t, first.RankedAmong, uint64(len(want)), name)
				}
			}
		}
	}
	f.ix.window = windowSize
}

// TestPlanRankedWindows checks what a relevance search over more matches than
// a window reports, and that its first page is the best of the newest matches.
func TestPlanRankedWindows(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	f.ix.window = 10
	defer func() { f.ix.window = windowSize }()

	res, err := f.ix.Search(ctx, Query{Text: "error", Limit: 5})
	require.NoError(t, err)
	require.True(t, res.TotalExact)
	require.Greater(t, res.Total, uint64(10))
	require.GreaterOrEqual(t, res.RankedAmong, uint64(10))
	require.Len(t, res.Hits, 5)

	// The window is the newest RankedAmong matches: every hit is at least as
	// new as the RankedAmong-th newest match.
	recent := searchAll(t, f.ix, Query{Text: "error", Sort: SortRecent, Limit: MaxLimit})
	oldest := f.byID[recent[res.RankedAmong-1]].Time
	for _, h := range res.Hits {
		assert.False(t, h.Time.Before(oldest), "hit %s at %v is older than the window (%v)", h.ID, h.Time, oldest)
	}
	// Within the window the order is Bleve's: scores never rise.
	for i := 1; i < len(res.Hits); i++ {
		assert.LessOrEqual(t, res.Hits[i].Score, res.Hits[i-1].Score)
	}

	// Exhaustive ranks all of them.
	ex, err := f.ix.Search(ctx, Query{Text: "error", Limit: 5, Exhaustive: true})
	require.NoError(t, err)
	assert.Zero(t, ex.RankedAmong)
	assert.Equal(t, res.Total, ex.Total)
}

// TestPlanPhraseEstimate: a phrase over more candidates than a window is
// counted in the window and scaled, and says so.
func TestPlanPhraseEstimate(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	ex, err := f.ix.Search(ctx, Query{Text: "写入权限", Exhaustive: true})
	require.NoError(t, err)
	require.Greater(t, ex.Total, uint64(20))

	f.ix.window = 10
	defer func() { f.ix.window = windowSize }()
	res, err := f.ix.Search(ctx, Query{Text: "写入权限"})
	require.NoError(t, err)
	if res.TotalExact {
		t.Fatalf("a phrase checked in a window of 10 of %d matches claims an exact total", ex.Total)
	}
	assert.Positive(t, res.Total)
	assert.NotEmpty(t, res.Facets.Kind)

	// With a window holding every candidate it is exact again.
	f.ix.window = windowSize
	res, err = f.ix.Search(ctx, Query{Text: "写入权限"})
	require.NoError(t, err)
	assert.True(t, res.TotalExact)
	assert.Equal(t, ex.Total, res.Total)
	assert.Equal(t, ex.Facets, res.Facets)
}

// TestPlanDeletedDocuments: documents a re-sync replaced are still in their
// segments, marked deleted; the plan never counts or returns them.
func TestPlanDeletedDocuments(t *testing.T) {
	ctx := context.Background()
	ix := openIndex(t)
	ix.window = 3
	src := texts("alpha error one", "alpha error two", "alpha three", "beta error four", "alpha error five")
	_, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	// The session changes: two blocks go, one changes, one is added.
	src.revs["s"] = 2
	bs := src.blocks["s"]
	bs[1].Text = "gamma two"
	src.blocks["s"] = append(bs[1:4], archive.Block{
		ID: "b9", SessionID: "s", Project: "p", Agent: "dsh", Kind: archive.BlockAssistant,
		Role: "assistant", Seq: 9, Surface: "current", Time: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		Text: "alpha error nine",
	})
	_, err = ix.Sync(ctx, src, nil)
	require.NoError(t, err)

	for _, text := range []string{"alpha", "error", "alpha error", "", "-alpha", "gamma"} {
		for _, sortBy := range []string{SortRelevance, SortRecent} {
			q := Query{Text: text, Sort: sortBy, Limit: 2}
			ex := q
			ex.Exhaustive = true
			assert.Equal(t, sorted(searchAll(t, ix, ex)), sorted(searchAll(t, ix, q)), "%q %s", text, sortBy)
			res, err := ix.Search(ctx, q)
			require.NoError(t, err)
			exRes, err := ix.Search(ctx, ex)
			require.NoError(t, err)
			assert.Equal(t, exRes.Total, res.Total, "%q", text)
			assert.Equal(t, exRes.Facets, res.Facets, "%q", text)
		}
	}
}

// TestPlanCursors: a cursor pages the kind of search that made it.
func TestPlanCursors(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	res, err := f.ix.Search(ctx, Query{Text: "error", Limit: 2})
	require.NoError(t, err)
	require.NotEmpty(t, res.NextCursor)
	next, err := f.ix.Search(ctx, Query{Text: "error", Limit: 2, Cursor: res.NextCursor})
	require.NoError(t, err)
	assert.Equal(t, res.Total, next.Total, "a later page counts the matches too")
	assert.Equal(t, emptyFacets(), next.Facets, "a later page has empty facet lists, not null")
	_, err = f.ix.Search(ctx, Query{Text: "error", Limit: 2, Cursor: res.NextCursor, Exhaustive: true})
	require.ErrorIs(t, err, ErrBadCursor)

	ex, err := f.ix.Search(ctx, Query{Text: "error", Limit: 2, Exhaustive: true})
	require.NoError(t, err)
	_, err = f.ix.Search(ctx, Query{Text: "error", Limit: 2, Cursor: ex.NextCursor})
	require.ErrorIs(t, err, ErrBadCursor)
}

func TestNthLargest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		n := 1 + r.IntN(60)
		ts := make([]int64, n)
		for i := range ts {
			ts[i] = int64(r.IntN(12)) // many ties
		}
		k := 1 + r.IntN(n)
		want := slices.Clone(ts)
		slices.Sort(want)
		slices.Reverse(want)
		require.Equal(t, want[k-1], nthLargest(slices.Clone(ts), k), "%v k=%d", ts, k)
	}
}

// TestCJKQueryTokens: a CJK word is searched as the phrase of its bigrams, and
// a lone character at either end of a typed word is taken off the phrase (it
// may sit inside a longer run in a block, where only its bigrams are indexed).
func TestCJKQueryTokens(t *testing.T) {
	a, err := queryTokenizer()
	require.NoError(t, err)
	for _, c := range []struct {
		text  string
		want  [][]string
		chars []string
	}{
		{"写入权限", [][]string{{"写入"}, {"入权"}, {"权限"}}, nil},
		{"写入", [][]string{{"写入"}}, nil},
		{"写", nil, []string{"写"}},
		{"a写入b", [][]string{{"a"}, {"写入"}, {"b"}}, nil},
		{"用api", [][]string{{"api"}}, []string{"用"}},
		{"写a用", [][]string{{"a"}}, []string{"写", "用"}},
		{"a写b", [][]string{{"a"}, {"写"}, {"b"}}, nil},
		{"写入权限 error", [][]string{{"写入"}, {"入权"}, {"权限"}, {"error"}}, nil},
		{"max tokens", [][]string{{"max"}, {"tokens"}}, nil},
	} {
		rest, chars := loneEdges(a.Analyze([]byte(c.text)))
		assert.Equal(t, c.want, tokenPositions(rest), c.text)
		assert.Equal(t, c.chars, chars, c.text)
	}
	// One bigram is one term, not a phrase.
	_, isTerm := textPhrase("写入", fieldText, nil).(*query.TermQuery)
	assert.True(t, isTerm)
}

// TestPlanTimeFiles: the times a planned search reads are written beside each
// persisted segment, read back by the next process, ignored when damaged, and
// removed with their segment.
func TestPlanTimeFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir)
	require.NoError(t, err)
	var ss []string
	for i := range 40 {
		ss = append(ss, fmt.Sprintf("alpha error %d", i))
	}
	_, err = ix.Sync(ctx, texts(ss...), nil)
	require.NoError(t, err)
	require.NoError(t, ix.Close()) // persists the segments

	search := func() []string {
		ix, err := Open(dir)
		require.NoError(t, err)
		defer ix.Close()
		ix.window = 5 // more matches than a window: the newest are read by time
		return searchAll(t, ix, Query{Text: "alpha", Sort: SortRecent, Limit: 3})
	}
	want := search()
	require.Len(t, want, 40)
	files, err := filepath.Glob(filepath.Join(dir, "store", "*.times"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no time file written")

	assert.Equal(t, want, search(), "read back")
	// What the files hold is what the doc values say.
	ix, err = Open(dir)
	require.NoError(t, err)
	adv, err := ix.bl.Advanced()
	require.NoError(t, err)
	r, err := adv.Reader()
	require.NoError(t, err)
	read := 0
	for _, ss := range r.(*scorch.IndexSnapshot).Segments() {
		seg := ss.Segment()
		times, order, err := readTimesFile(timesFilePath(seg), seg)
		if err != nil {
			continue
		}
		read++
		wantTimes, wantOrder, err := (&segCache{seg: seg}).timesFromDocValues()
		require.NoError(t, err)
		assert.Equal(t, wantTimes, times)
		assert.Equal(t, wantOrder, order)
	}
	require.NoError(t, r.Close())
	require.NoError(t, ix.Close())
	assert.Positive(t, read, "no time file could be read")
	for _, f := range files {
		require.NoError(t, os.WriteFile(f, []byte("LBT1 damaged"), 0o644))
	}
	assert.Equal(t, want, search(), "damaged files are recomputed")

	orphan := filepath.Join(dir, "store", "00000000dead.times")
	require.NoError(t, os.WriteFile(orphan, nil, 0o644))
	ix, err = Open(dir)
	require.NoError(t, err)
	require.NoError(t, ix.Close())
	assert.NoFileExists(t, orphan)
}

// TestPlanPhraseResume: a phrase search that reaches its checking bound
// returns early with a cursor that resumes below the last window, and paging
// on finds every match once.
func TestPlanPhraseResume(t *testing.T) {
	f := fixture(t)
	f.ix.window = 2
	defer func() { f.ix.window = windowSize }()
	const text = `"write permission"`
	want, _ := bleveOracle(t, f.ix, text, SortRecent)
	require.NotEmpty(t, want)

	q := Query{Text: text, Sort: SortRecent, Limit: 2}
	var got []string
	resumed := 0
	for range 10000 {
		res, err := f.ix.Search(context.Background(), q)
		require.NoError(t, err)
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		if res.NextCursor == "" {
			break
		}
		c, err := decodeCursor(res.NextCursor, SortRecent)
		require.NoError(t, err)
		if c.Resume {
			resumed++
			assert.LessOrEqual(t, len(res.Hits), 2)
		}
		q.Cursor = res.NextCursor
	}
	assert.Equal(t, want, got)
	assert.Positive(t, resumed, "no search reached its checking bound")
}

// TestPlanFacetsManyHits counts facets over segments with thousands of hits,
// where each hit's values are looked up instead of intersected, before and
// after a re-sync leaves deleted documents behind.
func TestPlanFacetsManyHits(t *testing.T) {
	ctx := context.Background()
	ix := openIndex(t)
	kinds := []string{archive.BlockAssistant, archive.BlockToolCall, archive.BlockToolResult, archive.BlockReasoning}
	tools := []string{"", "bash", "read", "edit", "grep"}
	words := []string{"alpha", "beta", "gamma"}
	src := &memSource{revs: map[string]int64{}, blocks: map[string][]archive.Block{}}
	add := func(sess string, n int) {
		src.revs[sess]++
		src.blocks[sess] = nil
		for i := range n {
			src.blocks[sess] = append(src.blocks[sess], archive.Block{
				ID: fmt.Sprintf("%s-%d-%d", sess, src.revs[sess], i), SessionID: sess, Agent: "dsh",
				Project: fmt.Sprintf("/p/%d", i%7), Kind: kinds[i%len(kinds)], Tool: tools[i%len(tools)],
				Role: "assistant", Seq: int64(i), Surface: "current",
				Time: time.Date(2026, time.Month(1+i%5), 1+i%27, 0, 0, i%60, 0, time.UTC),
				Text: words[i%len(words)] + " " + words[(i/3)%len(words)] + fmt.Sprintf(" n%d", i),
			})
		}
	}
	add("s1", 6000)
	add("s2", 3000)
	check := func(stage string) {
		for _, text := range []string{"alpha", "beta gamma", "", "alpha OR n17", "-gamma", "kind:tool_call"} {
			want, wantFacets := bleveOracle(t, ix, text, SortRelevance)
			res, err := ix.Search(ctx, Query{Text: text})
			require.NoError(t, err)
			assert.EqualValues(t, len(want), res.Total, "%s %q", stage, text)
			assert.Equal(t, wantFacets, res.Facets, "%s %q", stage, text)
		}
	}
	_, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	check("first")
	add("s1", 5000) // replaces s1's documents: the old ones stay, deleted
	_, err = ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	check("after re-sync")
}

// TestPlanRandomQueries holds the plan to plain Bleve on queries put together
// at random from the query language's pieces: words, CJK, phrases, prefixes,
// typos, every filter, AND/OR/NOT, groups and text that analyzes to nothing.
func TestPlanRandomQueries(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 11))
	atoms := []string{
		"error", "write", "permission", "写入", "权限", "写入权限", "file", "zzzzqqq", "->", "|",
		`"write permission"`, `"error handler"`, `"权限 写入"`, "perm*", "wri*", "permision~", "erorr~2",
		"kind:tool_result", "kind:tool_call", "kind:reasoning", "tool:bash", "tool:pwsh", "tool:b*",
		"is:error", "surface:shadowed", "role:user", "month:2026-08", "since:2026-05-01",
		"before:2026-08-17", "seq:3", "turn:2", "project:/home/dev/alpha",
	}
	var pick func(depth int) string
	pick = func(depth int) string {
		switch n := r.IntN(10); {
		case depth < 2 && n == 0:
			return "(" + pick(depth+1) + " OR " + pick(depth+1) + ")"
		case depth < 2 && n == 1:
			return "-" + "(" + pick(depth+1) + ")"
		case n == 2:
			return "NOT " + atoms[r.IntN(len(atoms))]
		case n == 3:
			return atoms[r.IntN(len(atoms))] + " OR " + atoms[r.IntN(len(atoms))]
		}
		return atoms[r.IntN(len(atoms))]
	}
	for _, win := range []int{windowSize, 5} {
		f.ix.window = win
		for range 60 {
			parts := make([]string, 1+r.IntN(3))
			for i := range parts {
				parts[i] = pick(0)
			}
			text := strings.Join(parts, " ")
			for _, sortBy := range []string{SortRelevance, SortRecent} {
				name := fmt.Sprintf("w%d/%s/%q", win, sortBy, text)
				want, wantFacets := bleveOracle(t, f.ix, text, sortBy)
				q := Query{Text: text, Sort: sortBy, Limit: 9}
				first, err := f.ix.Search(ctx, q)
				require.NoError(t, err, name)
				if first.TotalExact {
					assert.EqualValues(t, len(want), first.Total, "%s: total", name)
					assert.Equal(t, wantFacets, first.Facets, "%s: facets", name)
				}
				got := searchAll(t, f.ix, q)
				assert.Equal(t, sorted(want), sorted(got), "%s: matches", name)
				if sortBy == SortRecent {
					assert.Equal(t, want, got, "%s: order", name)
				}
			}
		}
	}
	f.ix.window = windowSize
}
