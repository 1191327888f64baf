package main

// `logbook search` and `logbook reindex` through run(), against an archive holding
// the real corpus log and a generated one. JSON output is decoded into maps, so the
// wire shape is what is checked.

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

// searchJSON runs `search --json ARGS...` and decodes the result.
func searchJSON(t *testing.T, data string, args ...string) map[string]any {
	t.Helper()
	return mustJSON[map[string]any](t, data, append([]string{"search", "--json"}, args...)...)
}

// hitIDs returns the id of every hit of a decoded search result, in order.
func hitIDs(t *testing.T, res map[string]any) []string {
	t.Helper()
	var ids []string
	for _, h := range objs(t, res["hits"]) {
		id, ok := h["id"].(string)
		require.True(t, ok, "hit without an id: %v", h)
		ids = append(ids, id)
	}
	return ids
}

// searchPages pages through a query with --limit and --cursor and returns every
// hit's id in order and the number of pages.
func searchPages(t *testing.T, data string, limit int, args ...string) ([]string, int) {
	t.Helper()
	var ids []string
	cursor := ""
	for pages := 1; ; pages++ {
		require.Less(t, pages, 1000, "paging does not end")
		a := append([]string{"--limit", strconv.Itoa(limit)}, args...)
		if cursor != "" {
			a = append([]string{"--cursor", cursor}, a...)
		}
		res := searchJSON(t, data, a...)
		page := hitIDs(t, res)
		assert.LessOrEqual(t, len(page), limit)
		ids = append(ids, page...)
		next, ok := res["next_cursor"].(string)
		require.True(t, ok, "next_cursor is a string, \"\" on the last page: %v", res["next_cursor"])
		if next == "" {
			return ids, pages
		}
		require.Len(t, page, limit, "only the last page is short")
		cursor = next
	}
}

// total returns a decoded result's total.
func total(t *testing.T, res map[string]any) int {
	t.Helper()
	n, ok := res["total"].(float64)
	require.True(t, ok, "total is a number: %v", res["total"])
	return int(n)
}

func TestSearchCLI(t *testing.T) {
	path := corpusPath(t)
	data := t.TempDir()
	root := t.TempDir()
	gen, _ := genLog(t, root, 21, "/home/u/search", true)
	rep := mustJSON[map[string]any](t, data, "import", "--json", path, root)
	for _, f := range objs(t, rep["files"]) {
		require.Equal(t, "ok", f["verdict"], "%v", f["error"])
	}
	// import synced the index: it is there before the first search.
	require.DirExists(t, filepath.Join(data, "index"))

	t.Run("JSON shape and highlighting", func(t *testing.T) {
		res := searchJSON(t, data, "写入权限")
		for _, k := range []string{"total", "total_exact", "hits", "facets", "next_cursor"} {
			assert.Contains(t, res, k)
		}
		assert.Equal(t, true, res["total_exact"], "a word's total is counted, not estimated")
		assert.NotContains(t, res, "ranked_among", "omitted: far fewer matches than one window, ranked whole")
		hits := objs(t, res["hits"])
		require.NotEmpty(t, hits, "the real session mentions 写入权限")
		assert.GreaterOrEqual(t, total(t, res), len(hits))
		real, marked := 0, 0
		for _, h := range hits {
			for _, k := range []string{"session_id", "seq", "kind", "tool", "time", "score", "fragments"} {
				assert.Contains(t, h, k, "hit lacks %q", k)
			}
			assert.IsType(t, "", h["session_id"])
			assert.IsType(t, float64(0), h["seq"])
			assert.IsType(t, "", h["kind"])
			assert.IsType(t, "", h["tool"])
			assert.IsType(t, float64(0), h["score"])
			tm, ok := h["time"].(string)
			if assert.True(t, ok, "time is a string") {
				assert.True(t, strings.HasSuffix(tm, "Z"), "time %q is UTC", tm)
				_, err := time.Parse(time.RFC3339Nano, tm)
				assert.NoError(t, err)
			}
			if h["session_id"] == corpusSessionID {
				real++
			}
			for _, fr := range arr(t, h["fragments"]) {
				s, ok := fr.(string)
				require.True(t, ok, "fragments are strings")
				if strings.Contains(s, "<mark>写入权限</mark>") {
					marked++
				}
			}
		}
		assert.Positive(t, real, "hits in the real session")
		assert.Positive(t, marked, "the match is marked as one run")
		assert.Positive(t, assertInstantsUTC(t, res))
		facets := obj(t, res["facets"])
		for _, k := range []string{"kind", "tool", "project", "month"} {
			for _, fc := range objs(t, facets[k]) {
				assert.IsType(t, "", fc["term"])
				assert.IsType(t, float64(0), fc["count"])
			}
		}
		assert.NotEmpty(t, arr(t, facets["kind"]))

		// The terminal rendering shows the session and the match in bold.
		r := cliData(t, data, "search", "写入权限")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "matches")
		assert.Contains(t, r.stdout, corpusSessionID)
		assert.Contains(t, r.stdout, "\033[1m写入权限\033[0m")
		r = cliData(t, data, "search", "zzzznotawordanywhere")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "No matches.\n", r.stdout)
		assert.Equal(t, 0, total(t, searchJSON(t, data, "zzzznotawordanywhere")))
		assert.Equal(t, []any{}, searchJSON(t, data, "zzzznotawordanywhere")["hits"], "hits is a list, never null")
	})

	t.Run("paging", func(t *testing.T) {
		for _, sortBy := range []string{"relevance", "recent"} {
			t.Run(sortBy, func(t *testing.T) {
				one := searchJSON(t, data, "--sort", sortBy, "--limit", "500", "写入权限")
				want := hitIDs(t, one)
				require.Greater(t, len(want), 4, "more than two pages of two")
				require.Less(t, len(want), 500, "all on one page")
				got, pages := searchPages(t, data, 2, "--sort", sortBy, "写入权限")
				assert.Len(t, slices.Compact(slices.Sorted(slices.Values(got))), len(got), "no hit twice")
				assert.Equal(t, want, got, "the pages concatenate to the one big page")
				assert.Equal(t, (len(want)+1)/2, pages)
				assert.Equal(t, total(t, one), len(got))
			})
		}
	})

	t.Run("exhaustive", func(t *testing.T) {
		for _, sortBy := range []string{"relevance", "recent"} {
			t.Run(sortBy, func(t *testing.T) {
				planned := searchJSON(t, data, "--sort", sortBy, "--limit", "500", "写入权限")
				all := searchJSON(t, data, "--exhaustive", "--sort", sortBy, "--limit", "500", "写入权限")
				assert.Equal(t, true, all["total_exact"])
				assert.NotContains(t, all, "ranked_among")
				assert.Equal(t, total(t, planned), total(t, all))
				assert.Equal(t, planned["facets"], all["facets"])
				want := hitIDs(t, all)
				assert.ElementsMatch(t, hitIDs(t, planned), want, "few matches: both rank every one")
				got, _ := searchPages(t, data, 3, "--exhaustive", "--sort", sortBy, "写入权限")
				assert.Equal(t, want, got, "exhaustive pages concatenate to the one big page")
			})
		}
		r := cliData(t, data, "search", "--exhaustive", "写入权限")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Regexp(t, `^\d+ matches \(`, r.stdout)
		assert.NotContains(t, r.stdout, "ranked among")
		assert.NotContains(t, r.stdout, "about")

		// A cursor pages only the kind of search that returned it.
		planned, _ := searchJSON(t, data, "--limit", "2", "写入权限")["next_cursor"].(string)
		all, _ := searchJSON(t, data, "--exhaustive", "--limit", "2", "写入权限")["next_cursor"].(string)
		require.NotEmpty(t, planned)
		require.NotEmpty(t, all)
		for _, args := range [][]string{
			{"search", "--exhaustive", "--cursor", planned, "写入权限"},
			{"search", "--cursor", all, "写入权限"},
		} {
			r := cliData(t, data, args...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, "--cursor")
			assert.Contains(t, r.stderr, "exhaustive")
			assert.Empty(t, r.stdout)
		}
	})

	t.Run("a later page in the terminal", func(t *testing.T) {
		cur, _ := searchJSON(t, data, "--limit", "2", "写入权限")["next_cursor"].(string)
		require.NotEmpty(t, cur)
		r := cliData(t, data, "search", "--limit", "2", "--cursor", cur, "写入权限")
		require.Equal(t, 0, r.code, r.stderr)
		assert.NotContains(t, r.stdout, "No matches")
		assert.Contains(t, r.stdout, corpusSessionID)
	})

	t.Run("sort recent", func(t *testing.T) {
		res := searchJSON(t, data, "--sort", "recent", "--limit", "200", "error")
		hits := objs(t, res["hits"])
		require.Greater(t, len(hits), 10)
		var times []time.Time
		for _, h := range hits {
			tm, err := time.Parse(time.RFC3339Nano, h["time"].(string))
			require.NoError(t, err)
			times = append(times, tm)
		}
		assert.True(t, slices.IsSortedFunc(times, func(a, b time.Time) int { return b.Compare(a) }), "newest first")
		assert.NotEqual(t, times[0], times[len(times)-1], "the hits span time")
		// The newest of all blocks comes first.
		all := objs(t, searchJSON(t, data, "--sort", "recent", "--limit", "1")["hits"])
		require.Len(t, all, 1)
		newest, err := time.Parse(time.RFC3339Nano, all[0]["time"].(string))
		require.NoError(t, err)
		assert.False(t, times[0].After(newest))
	})

	t.Run("filters", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			check func(h map[string]any) bool
			facet string // the facet that holds one value, counting every match
			value string
		}{
			{"tool:write", func(h map[string]any) bool { return h["tool"] == "write" }, "tool", "write"},
			{"kind:tool_call", func(h map[string]any) bool { return h["kind"] == "tool_call" }, "kind", "tool_call"},
			{"is:error", func(h map[string]any) bool { return h["is_error"] == true }, "", ""},
			{"kind:tool_result is:error", func(h map[string]any) bool {
				return h["kind"] == "tool_result" && h["is_error"] == true
			}, "kind", "tool_result"},
			{"tool:write session:" + gen.ID(), func(h map[string]any) bool {
				return h["tool"] == "write" && h["session_id"] == gen.ID()
			}, "tool", "write"},
		} {
			t.Run(tc.query, func(t *testing.T) {
				res := searchJSON(t, data, "--limit", "500", tc.query)
				hits := objs(t, res["hits"])
				require.NotEmpty(t, hits, "the archive has blocks for %s", tc.query)
				for _, h := range hits {
					assert.True(t, tc.check(h), "%s matched %v", tc.query, h)
				}
				if tc.facet != "" {
					fc := objs(t, obj(t, res["facets"])[tc.facet])
					require.Len(t, fc, 1, "%s facet: %v", tc.facet, fc)
					assert.Equal(t, tc.value, fc[0]["term"])
					assert.EqualValues(t, total(t, res), fc[0]["count"])
				}
			})
		}
		// A filter narrows: is:error is a strict subset of everything.
		assert.Less(t, total(t, searchJSON(t, data, "is:error")), total(t, searchJSON(t, data)))
	})

	t.Run("bad queries exit 2", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			msg  string
		}{
			{[]string{"search", "--json", `deploy "unterminated`}, "col 8"},
			{[]string{"search", `deploy "unterminated`}, "col 8"},
			{[]string{"search", "(deploy"}, `col 1: unclosed "("`},
			{[]string{"search", "kind:nope"}, "col 6: kind:"},
			{[]string{"search", "error", "OR"}, "OR needs a term after it"},
			{[]string{"search", "--cursor", "garbage", "error"}, "--cursor"},
			{[]string{"search", "--sort", "oldest", "error"}, "--sort"},
		} {
			t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
				r := cliData(t, data, tc.args...)
				assert.Equal(t, 2, r.code, "stderr: %s", r.stderr)
				assert.Contains(t, r.stderr, tc.msg)
				assert.Contains(t, r.stderr, "usage: logbook search")
				assert.Empty(t, r.stdout, "errors go to stderr")
			})
		}
		// A cursor of one sort order does not page the other.
		res := searchJSON(t, data, "--limit", "2", "写入权限")
		cur, _ := res["next_cursor"].(string)
		require.NotEmpty(t, cur)
		r := cliData(t, data, "search", "--sort", "recent", "--cursor", cur, "写入权限")
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, "pages a relevance search")
	})

	// What the index must keep finding through a reindex and a rebuild.
	queries := [][]string{{"写入权限"}, {"tool:write"}, {"--sort", "recent", "kind:tool_call"}, {"error"}}
	snapshot := func(t *testing.T) map[string][]string {
		t.Helper()
		out := map[string][]string{}
		for _, q := range queries {
			res := searchJSON(t, data, append([]string{"--limit", "500"}, q...)...)
			ids := hitIDs(t, res)
			require.NotEmpty(t, ids, "%v", q)
			out[strings.Join(q, " ")] = append(ids, "total="+strconv.Itoa(total(t, res)))
		}
		return out
	}
	before := snapshot(t)

	t.Run("reindex", func(t *testing.T) {
		r := cliData(t, data, "reindex")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "Reindexed")
		assert.Equal(t, before, snapshot(t))
	})

	t.Run("a deleted index is rebuilt", func(t *testing.T) {
		dir := filepath.Join(data, "index")
		require.NoError(t, os.RemoveAll(dir))
		r := cliData(t, data, "search", "--json", "写入权限")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Positive(t, total(t, decode[map[string]any](t, r.stdout)), "found without an explicit reindex")
		assert.DirExists(t, dir)
		assert.Equal(t, before, snapshot(t))
	})

	t.Run("an unreadable index is rebuilt", func(t *testing.T) {
		meta := filepath.Join(data, "index", "index_meta.json")
		require.FileExists(t, meta)
		require.NoError(t, os.WriteFile(meta, []byte("{not json"), 0o644))
		r := cliData(t, data, "search", "--json", "写入权限")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Positive(t, total(t, decode[map[string]any](t, r.stdout)), "stdout is still only JSON")
		assert.Contains(t, r.stderr, "rebuilt", "the rebuild is worth a warning")
		assert.Equal(t, before, snapshot(t))
	})

	t.Run("sessions imported later are found", func(t *testing.T) {
		root2 := t.TempDir()
		l, _ := genLog(t, root2, 22, "/home/u/later", false)
		mustJSON[map[string]any](t, data, "import", "--json", root2)
		res := searchJSON(t, data, "session:"+l.ID())
		assert.Positive(t, total(t, res))
		for _, h := range objs(t, res["hits"]) {
			assert.Equal(t, l.ID(), h["session_id"])
		}
	})
}

// TestSearchCLIManyMatches searches a session of more blocks than a relevance
// search ranks at once, where results say how they were ranked and counted.
func TestSearchCLIManyMatches(t *testing.T) {
	data, root := t.TempDir(), t.TempDir()
	// About 4,800 blocks, plain ASCII so that common words make common phrases.
	l := dshgen.Generate(dshgen.Options{Seed: 7, Cwd: "/home/u/many", TargetBytes: 6 << 20, ASCII: true})
	_, err := l.WriteFile(root, true)
	require.NoError(t, err)
	mustJSON[map[string]any](t, data, "import", "--json", root)
	q := "session:" + l.ID() // every block: an exact filter

	t.Run("relevance ranks the newest matches first", func(t *testing.T) {
		res := searchJSON(t, data, q)
		n := total(t, res)
		ranked, ok := res["ranked_among"].(float64)
		require.True(t, ok, "ranked_among is a number when set: %v", res["ranked_among"])
		assert.Positive(t, ranked)
		assert.Less(t, int(ranked), n, "more matches than one window")
		assert.Equal(t, true, res["total_exact"], "a filter's total is exact however many match")

		r := cliData(t, data, "search", q)
		require.Equal(t, 0, r.code, r.stderr)
		assert.True(t, strings.HasPrefix(r.stdout, strconv.Itoa(n)+" matches ("), "%q", clip(r.stdout, 200))
		assert.Contains(t, r.stdout, "\nranked among the "+strconv.Itoa(int(ranked))+" newest matches; --exhaustive ranks all\n")

		// Recent order is exact, so it says nothing of ranking.
		recent := searchJSON(t, data, "--sort", "recent", q)
		assert.NotContains(t, recent, "ranked_among")
		assert.Equal(t, n, total(t, recent))
	})

	t.Run("exhaustive ranks every match", func(t *testing.T) {
		res := searchJSON(t, data, "--exhaustive", q)
		assert.NotContains(t, res, "ranked_among")
		assert.Equal(t, true, res["total_exact"])
		assert.Equal(t, total(t, searchJSON(t, data, q)), total(t, res))
		r := cliData(t, data, "search", "--exhaustive", q)
		require.Equal(t, 0, r.code, r.stderr)
		assert.NotContains(t, r.stdout, "ranked among")

		// Either way, paging goes through every match once.
		all, _ := searchPages(t, data, 500, "--exhaustive", q)
		tiered, _ := searchPages(t, data, 500, q)
		assert.Len(t, all, total(t, res))
		assert.ElementsMatch(t, all, tiered)
	})

	t.Run("a common phrase's total is an estimate", func(t *testing.T) {
		// Its words are in thousands of blocks, next to each other in few; a short
		// page checks word order in few of them.
		const phrase = `"the the"`
		res := searchJSON(t, data, "--limit", "1", phrase)
		require.Positive(t, total(t, res))
		assert.Equal(t, false, res["total_exact"])
		r := cliData(t, data, "search", "--limit", "1", phrase)
		require.Equal(t, 0, r.code, r.stderr)
		assert.True(t, strings.HasPrefix(r.stdout, "about "+strconv.Itoa(total(t, res))+" matches ("), "%q", clip(r.stdout, 200))

		exact := searchJSON(t, data, "--exhaustive", phrase)
		assert.Equal(t, true, exact["total_exact"])
		assert.Len(t, hitIDs(t, searchJSON(t, data, "--exhaustive", "--limit", "500", phrase)), total(t, exact))
		r = cliData(t, data, "search", "--exhaustive", phrase)
		require.Equal(t, 0, r.code, r.stderr)
		assert.True(t, strings.HasPrefix(r.stdout, strconv.Itoa(total(t, exact))+" matches ("), "%q", clip(r.stdout, 200))
	})
}
