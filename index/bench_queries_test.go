package index

import (
	"context"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/logbook/logbook/archive"
)

// The query classes BenchmarkSearch times (see bench_test.go).

// benchClass is a class of queries timed together: the percentiles are over
// runs of its queries in turn.
type benchClass struct {
	name    string
	queries []Query
}

// benchQueries are the query classes, in the order reported. The sampled
// classes (term, phrase, cjk, filtered, recent) draw their queries from the
// archive's own blocks: a random block, then a random word, run of words or CJK
// run in it. Drawing by block weights words by how many blocks hold them, so
// common words come up more often than in what people type (they look for the
// distinctive word they remember); the fixed classes after them are the worst
// cases on purpose: the most common word, a phrase of two of the most common
// words, and so on.
func benchQueries(b *testing.B, f *benchFixture, info benchIndexInfo) []benchClass {
	b.Helper()
	// since:30d counts back from the newest block, not the clock, so the filter
	// keeps the same share of the corpus whenever the benchmark runs.
	now := info.Newest.Add(time.Second)
	s := openBenchStore(b, f)
	defer s.Close()
	samples := sampleBenchQueries(b, s, benchSamples(b), now)
	fixed := func(name string, q Query) benchClass { return benchClass{name, []Query{q}} }
	return append(samples,
		fixed("rare", Query{Text: info.RareTerm}),
		fixed("common-term", Query{Text: benchWord}),
		fixed("common-phrase", Query{Text: `"` + benchPhrase + `"`}),
		fixed("common-cjk", Query{Text: benchCJK}),
		fixed("common-filtered", Query{Text: "tool:bash error"}),
		fixed("filtered-time", Query{Text: "kind:tool_result is:error since:30d", Now: now}),
		fixed("facets-all", Query{Text: ""}), // every block: facets count the whole index
		fixed("common-recent", Query{Text: benchWord, Sort: SortRecent}),
	)
}

var (
	benchWordRe = regexp.MustCompile(`[A-Za-z][a-z]{3,}`)
	benchCJKRe  = regexp.MustCompile(`\p{Han}{2,4}`)
)

// sampleBenchQueries draws n queries of each sampled class from random blocks
// of the archive (seeded, so every run draws the same).
func sampleBenchQueries(b *testing.B, s *archive.Store, n int, now time.Time) []benchClass {
	b.Helper()
	ctx := context.Background()
	revs, err := s.Revisions(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ids := slices.Sorted(maps.Keys(revs))
	r := rand.New(rand.NewPCG(benchSeed, 7))
	// A pool of blocks from a few dozen random sessions.
	var pool []archive.Block
	for range min(40, len(ids)) {
		id := ids[r.IntN(len(ids))]
		if _, err := s.SessionBlocks(ctx, id, func(bl archive.Block) error {
			pool = append(pool, bl)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	// draw returns a match of re in a random block that has one.
	draw := func(re *regexp.Regexp, words int) (string, archive.Block) {
		for range 100_000 {
			bl := pool[r.IntN(len(pool))]
			ms := re.FindAllStringIndex(bl.Text, -1)
			if len(ms) < words {
				continue
			}
			k := r.IntN(len(ms) - words + 1)
			if words == 1 {
				return bl.Text[ms[k][0]:ms[k][1]], bl
			}
			// A run of words that are adjacent in the text (one space apart).
			parts := []string{bl.Text[ms[k][0]:ms[k][1]]}
			for j := 1; j < words; j++ {
				if ms[k+j][0] != ms[k+j-1][1]+1 {
					break
				}
				parts = append(parts, bl.Text[ms[k+j][0]:ms[k+j][1]])
			}
			if len(parts) == words {
				return strings.Join(parts, " "), bl
			}
		}
		b.Fatalf("no block has %d adjacent matches of %s", words, re)
		return "", archive.Block{}
	}
	classes := []benchClass{{name: "term"}, {name: "phrase"}, {name: "cjk"}, {name: "filtered"}, {name: "recent"}}
	for range n {
		w, _ := draw(benchWordRe, 1)
		classes[0].queries = append(classes[0].queries, Query{Text: w})
		p, _ := draw(benchWordRe, 2+r.IntN(2))
		classes[1].queries = append(classes[1].queries, Query{Text: `"` + p + `"`})
		c, _ := draw(benchCJKRe, 1)
		classes[2].queries = append(classes[2].queries, Query{Text: c})
		w, bl := draw(benchWordRe, 1)
		var filter string
		switch r.IntN(4) {
		case 0:
			filter = "kind:" + bl.Kind
		case 1:
			if bl.Project != "" {
				filter = "project:" + strconv.Quote(bl.Project)
				break
			}
			filter = "is:error"
		case 2:
			filter = "is:error"
		default:
			filter = "since:30d"
		}
		if bl.Tool != "" && r.IntN(2) == 0 {
			filter = "tool:" + strings.ToLower(bl.Tool)
		}
		classes[3].queries = append(classes[3].queries, Query{Text: w + " " + filter, Now: now})
		w, _ = draw(benchWordRe, 1)
		classes[4].queries = append(classes[4].queries, Query{Text: w, Sort: SortRecent})
	}
	return classes
}
