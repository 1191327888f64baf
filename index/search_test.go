package index

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

func TestSearchCodeIdentifiers(t *testing.T) {
	ctx := context.Background()
	ix := openIndex(t)
	src := texts(
		"The helper getUserName returns the display name.", // b0
		"the user name is stored elsewhere",                // b1
		"config.max_tokens = 4096",                         // b2
		"edited src/app/main.go",                           // b3
		"edited src/app/main.rs",                           // b4
		"HTTPServer started on :8080",                      // b5
		"def __init__(self):",                              // b6
		"getUserByID was renamed",                          // b7
	)
	src.blocks["s"] = append(src.blocks["s"], archive.Block{
		ID: "call", SessionID: "s", Kind: archive.BlockToolCall, Role: "assistant", Tool: "bash", Surface: "current",
		Text: `bash {"command":"python deploy.py --dry-run\nls -la"}`,
	})
	_, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err)

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"user", []string{"b0", "b1", "b7"}},
		{"getusername", []string{"b0"}},
		{"getUserName", []string{"b0"}},
		{"GETUSERNAME", []string{"b0"}},
		{"getUser", []string{"b0", "b7"}}, // a prefix of humps
		{`"user name"`, []string{"b0", "b1"}},
		{"tokens", []string{"b2"}},
		{"max_tokens", []string{"b2"}},
		{"max", []string{"b2"}},
		{"dry", []string{"call"}},
		{"--dry-run", []string{"call"}},
		{"ls", []string{"call"}}, // after a JSON \n in the arguments
		{"main.go", []string{"b3"}},
		{"main", []string{"b3", "b4"}},
		{"src/app/main.go", []string{"b3"}},
		{`"src/app/main.go"`, []string{"b3"}},
		{"server", []string{"b5"}},
		{"httpserver", []string{"b5"}},
		{"init", []string{"b6"}},
		{"| getUserName", []string{"b0"}}, // a word with no tokens drops out
		{"__init__", []string{"b6"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			assert.Equal(t, sorted(tc.want), sorted(searchAll(t, ix, Query{Text: tc.query})))
		})
	}

	t.Run("fragments mark the part that matched and escape the rest", func(t *testing.T) {
		res, err := ix.Search(ctx, Query{Text: "tokens"})
		require.NoError(t, err)
		require.Len(t, res.Hits, 1)
		assert.Equal(t, []string{"config.max_<mark>tokens</mark> = 4096"}, res.Hits[0].Fragments)
		res, err = ix.Search(ctx, Query{Text: "self"})
		require.NoError(t, err)
		require.Len(t, res.Hits, 1)
		assert.Equal(t, []string{"def __init__(<mark>self</mark>):"}, res.Hits[0].Fragments)
	})
	t.Run("a tool call is indexed as its decoded arguments", func(t *testing.T) {
		res, err := ix.Search(ctx, Query{Text: "deploy.py"})
		require.NoError(t, err)
		require.Len(t, res.Hits, 1)
		assert.Equal(t, []string{"bash\ncommand: python <mark>deploy.py</mark> --dry-run\nls -la"}, res.Hits[0].Fragments)
		assert.Equal(t, "bash", res.Hits[0].Tool)
	})
}

func TestSearchChinese(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	for _, q := range []string{"写入权限", "权限", "写", `"写入权限测试"`} {
		t.Run(q, func(t *testing.T) {
			phrase := strings.Trim(q, `"`)
			want := f.want(func(b archive.Block) bool { return strings.Contains(blockText(b), phrase) })
			require.NotEmpty(t, want, "the real log contains %s", phrase)
			got := searchAll(t, f.ix, Query{Text: q})
			assert.Subset(t, got, want, "every block containing %s is found", phrase)
			// A Chinese phrase matches across punctuation between characters, the
			// way an English phrase does between words, so hits may be a few more.
			assert.LessOrEqual(t, len(got), len(want)+len(want)/5+2)

			res, err := f.ix.Search(ctx, Query{Text: q, Limit: 50})
			require.NoError(t, err)
			marked := 0
			for _, h := range res.Hits {
				for _, fr := range h.Fragments {
					if strings.Contains(fr, "<mark>"+phrase+"</mark>") {
						marked++
					}
				}
			}
			assert.Positive(t, marked, "adjacent marks are merged into one")
		})
	}
}

func TestSearchPhraseAndWords(t *testing.T) {
	f := fixture(t)
	words := searchAll(t, f.ix, Query{Text: "write permission"})
	phrase := searchAll(t, f.ix, Query{Text: `"write permission"`})
	require.NotEmpty(t, phrase)
	assert.Subset(t, words, phrase)
	assert.Less(t, len(phrase), len(words), "a phrase is stricter than its words")
	adjacent := regexp.MustCompile(`(?i)write\W+permission`)
	for _, id := range phrase {
		assert.Regexp(t, adjacent, blockText(f.byID[id]), id)
	}
	for _, id := range words {
		text := strings.ToLower(blockText(f.byID[id]))
		assert.True(t, strings.Contains(text, "write") && strings.Contains(text, "permission"), id)
	}
}

func TestSearchFilters(t *testing.T) {
	f := fixture(t)
	projA := f.byID[f.gen[0]+":title"].Project
	if projA == "" { // no title block: take any block of the session
		for _, b := range f.blocks {
			if b.SessionID == f.gen[0] {
				projA = b.Project
				break
			}
		}
	}
	require.NotEmpty(t, projA)
	now := time.Date(2026, 8, 20, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		query string
		keep  func(archive.Block) bool
	}{
		{"tool:pwsh", func(b archive.Block) bool { return b.Tool == "pwsh" }},
		{"tool:PWSH", func(b archive.Block) bool { return b.Tool == "pwsh" }},
		{"kind:tool_result", func(b archive.Block) bool { return b.Kind == archive.BlockToolResult }},
		{"kind:reasoning", func(b archive.Block) bool { return b.Kind == archive.BlockReasoning }},
		{"kind:compaction", func(b archive.Block) bool { return b.Kind == archive.BlockCompaction }},
		{`project:"` + projA + `"`, func(b archive.Block) bool { return b.Project == projA }},
		{"session:" + f.real, func(b archive.Block) bool { return b.SessionID == f.real }},
		{"since:30d", func(b archive.Block) bool { return !b.Time.Before(now.AddDate(0, 0, -30)) }},
		{"before:2026-04-01", func(b archive.Block) bool {
			return b.Time.Before(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
		}},
		{"is:error", func(b archive.Block) bool { return b.IsError }},
		{"surface:shadowed", func(b archive.Block) bool { return b.Surface == "shadowed" }},
		{"tool:pwsh is:error", func(b archive.Block) bool { return b.Tool == "pwsh" && b.IsError }},
		{"-kind:tool_call -kind:tool_result session:" + f.real, func(b archive.Block) bool {
			return b.SessionID == f.real && b.Kind != archive.BlockToolCall && b.Kind != archive.BlockToolResult
		}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			want := f.want(tc.keep)
			require.NotEmpty(t, want, "the fixture has blocks for this filter")
			assert.Equal(t, want, sorted(searchAll(t, f.ix, Query{Text: tc.query, Now: now, Limit: MaxLimit})))
		})
	}

	t.Run("shadowed content is findable and labelled", func(t *testing.T) {
		var shadowed archive.Block
		for _, b := range f.blocks {
			if b.Surface == "shadowed" && b.Kind == archive.BlockAssistant && len(strings.Fields(b.Text)) > 3 {
				shadowed = b
				break
			}
		}
		require.NotEmpty(t, shadowed.ID, "generated compactions shadow assistant text")
		words := strings.Fields(shadowed.Text)
		res, err := f.ix.Search(context.Background(), Query{Text: `"` + strings.Join(words[:3], " ") + `" surface:shadowed`, Limit: MaxLimit})
		require.NoError(t, err)
		var found *Hit
		for i := range res.Hits {
			assert.Equal(t, "shadowed", res.Hits[i].Surface)
			if res.Hits[i].ID == shadowed.ID {
				found = &res.Hits[i]
			}
		}
		require.NotNil(t, found, "%q", shadowed.Text)
	})
}

func TestSearchHitFields(t *testing.T) {
	f := fixture(t)
	res, err := f.ix.Search(context.Background(), Query{Sort: SortRecent, Limit: MaxLimit})
	require.NoError(t, err)
	require.Len(t, res.Hits, MaxLimit)
	for _, h := range res.Hits {
		b, ok := f.byID[h.ID]
		require.True(t, ok, h.ID)
		assert.Equal(t, Hit{
			ID: b.ID, SessionID: b.SessionID, Seq: b.Seq, Kind: b.Kind, Role: b.Role, Tool: b.Tool,
			Project: b.Project, Surface: b.Surface, Time: b.Time.UTC().Truncate(time.Millisecond), IsError: b.IsError,
		}, Hit{
			ID: h.ID, SessionID: h.SessionID, Seq: h.Seq, Kind: h.Kind, Role: h.Role, Tool: h.Tool,
			Project: h.Project, Surface: h.Surface, Time: h.Time, IsError: h.IsError,
		})
		assert.NotEmpty(t, h.Fragments, "a filter-only search still shows the start of the text")
		for _, fr := range h.Fragments {
			plain := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(fr)
			assert.NotContains(t, plain, "<", "fragments are HTML-escaped")
		}
	}
	assert.True(t, slices.IsSortedFunc(res.Hits, func(a, b Hit) int { return b.Time.Compare(a.Time) }), "recent is newest first")
}

func TestSearchFacets(t *testing.T) {
	f := fixture(t)
	count := func(keep func(archive.Block) bool, key func(archive.Block) string) []FacetCount {
		m := map[string]int{}
		for _, b := range f.blocks {
			if keep(b) && key(b) != "" {
				m[key(b)]++
			}
		}
		var out []FacetCount
		for k, v := range m {
			out = append(out, FacetCount{Term: k, Count: v})
		}
		return out
	}
	all := func(archive.Block) bool { return true }
	byTerm := func(fc []FacetCount) []FacetCount {
		out := slices.Clone(fc)
		sort.Slice(out, func(i, j int) bool { return out[i].Term < out[j].Term })
		return out
	}

	res, err := f.ix.Search(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, len(f.blocks), res.Total)
	assert.Equal(t, byTerm(count(all, func(b archive.Block) string { return b.Kind })), byTerm(res.Facets.Kind))
	assert.Equal(t, byTerm(count(all, func(b archive.Block) string { return b.Tool })), byTerm(res.Facets.Tool))
	assert.Equal(t, byTerm(count(all, func(b archive.Block) string { return b.Project })), byTerm(res.Facets.Project))
	assert.Equal(t, byTerm(count(all, func(b archive.Block) string { return b.Time.UTC().Format("2006-01") })), byTerm(res.Facets.Month))
	assert.True(t, slices.IsSortedFunc(res.Facets.Month, func(a, b FacetCount) int { return strings.Compare(b.Term, a.Term) }), "months newest first")
	assert.True(t, slices.IsSortedFunc(res.Facets.Kind, func(a, b FacetCount) int { return b.Count - a.Count }), "most frequent first")

	res, err = f.ix.Search(context.Background(), Query{Text: "kind:tool_call"})
	require.NoError(t, err)
	calls := func(b archive.Block) bool { return b.Kind == archive.BlockToolCall }
	assert.Equal(t, byTerm(count(calls, func(b archive.Block) string { return b.Tool })), byTerm(res.Facets.Tool), "facets count the matches")
	assert.Equal(t, []FacetCount{{Term: archive.BlockToolCall, Count: len(f.want(calls))}}, res.Facets.Kind)
}

func TestSearchPagination(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	for _, tc := range []Query{
		{Text: "error", Limit: 7},
		{Text: "error", Sort: SortRecent, Limit: 7},
		{Text: "", Sort: SortRecent, Limit: 97},
		{Text: "", Limit: 113}, // every score ties: the ID breaks them
		{Text: "写入 OR permission", Limit: 5},
	} {
		t.Run(tc.Text+"/"+tc.Sort, func(t *testing.T) {
			one := tc
			one.Limit = MaxLimit
			first, err := f.ix.Search(ctx, one)
			require.NoError(t, err)
			require.Greater(t, first.Total, uint64(tc.Limit), "more than one page")

			paged := searchAll(t, f.ix, tc)
			assert.EqualValues(t, first.Total, len(paged))
			assert.Len(t, slices.Compact(sorted(paged)), len(paged), "no hit twice")
			if first.Total <= MaxLimit {
				var want []string
				for _, h := range first.Hits {
					want = append(want, h.ID)
				}
				assert.Equal(t, want, paged, "pages concatenate to the one big page")
			} else {
				big := searchAll(t, f.ix, one)
				assert.Equal(t, big, paged, "pages of any size give the same order")
			}
		})
	}

	t.Run("ErrBadCursor", func(t *testing.T) {
		_, err := f.ix.Search(ctx, Query{Text: "error", Cursor: "garbage"})
		assert.ErrorIs(t, err, ErrBadCursor)
		res, err := f.ix.Search(ctx, Query{Text: "error", Limit: 2})
		require.NoError(t, err)
		require.NotEmpty(t, res.NextCursor)
		_, err = f.ix.Search(ctx, Query{Text: "error", Sort: SortRecent, Cursor: res.NextCursor})
		assert.ErrorIs(t, err, ErrBadCursor, "a cursor belongs to its sort order")
	})
	t.Run("limits", func(t *testing.T) {
		res, err := f.ix.Search(ctx, Query{})
		require.NoError(t, err)
		assert.Len(t, res.Hits, DefaultLimit)
		res, err = f.ix.Search(ctx, Query{Limit: 100000})
		require.NoError(t, err)
		assert.Len(t, res.Hits, MaxLimit)
	})
}

func TestSearchErrors(t *testing.T) {
	ix := openIndex(t)
	ctx := context.Background()
	t.Run("QueryError", func(t *testing.T) {
		_, err := ix.Search(ctx, Query{Text: `deploy "unterminated`})
		var qe *QueryError
		require.ErrorAs(t, err, &qe)
		assert.Equal(t, 7, qe.Pos)
	})
	t.Run("unknown sort", func(t *testing.T) {
		_, err := ix.Search(ctx, Query{Sort: "oldest"})
		assert.ErrorContains(t, err, "oldest")
	})
	t.Run("ErrClosed", func(t *testing.T) {
		require.NoError(t, ix.Close())
		_, err := ix.Search(ctx, Query{})
		assert.ErrorIs(t, err, ErrClosed)
		assert.NoError(t, ix.Close(), "Close twice")
	})
}

func TestSearchLatency(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	for _, q := range []Query{
		{Text: "写入权限"}, {Text: "write permission"}, {Text: `"write permission"`}, {Text: "error tool:pwsh"},
		{Text: "getUserName"}, {Text: "", Sort: SortRecent}, {Text: "src/main.go"}, {Text: "perm*"},
	} {
		var took []time.Duration
		for range 15 {
			start := time.Now()
			_, err := f.ix.Search(ctx, q)
			require.NoError(t, err)
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		t.Logf("%-22q median %v", q.Text, took[len(took)/2])
		assert.Less(t, took[len(took)/2], 500*time.Millisecond)
	}
}

// TestSearchCJKOneCharacter: the index holds a CJK run as its bigrams only, and a
// character typed alone, or alone at the end of a typed word beside other
// letters, is still found at the start, middle and end of a run and standing
// alone, and marked where it is.
func TestSearchCJKOneCharacter(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(filepath.Join(t.TempDir(), "index"))
	require.NoError(t, err)
	defer ix.Close()
	_, err = ix.Sync(ctx, texts("数据写入权限测试", "先用API写入", "写", "其他内容", "用 API"), nil)
	require.NoError(t, err)
	for q, want := range map[string][]string{
		"写":       {"b0", "b1", "b2"}, // inside a run, at its end, alone
		"数":       {"b0"},             // a run's first character
		"试":       {"b0"},             // its last
		"入":       {"b0", "b1"},
		"写入":      {"b0", "b1"},
		"用api":    {"b1", "b4"},
		"api写入":   {"b1"},
		"api写":    {"b1"},
		`"用 api"`: {"b1", "b4"},
		"内容":      {"b3"},
		"容 OR 数":  {"b0", "b3"},
		"-写":      {"b3", "b4"},
	} {
		got := searchAll(t, ix, Query{Text: q})
		assert.ElementsMatch(t, want, got, q)
	}
	res, err := ix.Search(ctx, Query{Text: "权"})
	require.NoError(t, err)
	require.Len(t, res.Hits, 1)
	assert.Contains(t, res.Hits[0].Fragments[0], "<mark>", "the character's bigram is marked")
}
