package index

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// adversarialQueries are the worst queries within reach of a search box or an
// API client, in classes: typo terms of the shortest words allowed, one- and
// two-letter prefixes, as many OR'ed common words as the term limit allows,
// long phrases, a query of the maximal size, all at the largest page, and
// exhaustive. Some are over a limit (a one-letter prefix of 1,000 words):
// those are refused, which is timed too.
func adversarialQueries(f *corpusFixture) map[string][]Query {
	// The most common words and CJK characters of the corpus.
	counts := map[string]int{}
	words := regexp.MustCompile(`[a-z]{2,}|\p{Han}`)
	for _, b := range f.blocks {
		for _, w := range words.FindAllString(strings.ToLower(b.Text), -1) {
			counts[w]++
		}
	}
	common := make([]string, 0, len(counts))
	for w := range counts {
		common = append(common, w)
	}
	sort.Slice(common, func(i, j int) bool {
		if counts[common[i]] != counts[common[j]] {
			return counts[common[i]] > counts[common[j]]
		}
		return common[i] < common[j]
	})
	var latin, han []string
	for _, w := range common {
		if w[0] < 0x80 {
			latin = append(latin, w)
		} else {
			han = append(han, w)
		}
	}
	// A run of text from the corpus itself: a phrase that matches.
	var realPhrase string
	for _, b := range f.blocks {
		if ws := strings.Fields(b.Text); len(ws) > 200 {
			realPhrase = strings.Join(ws[100:140], " ")
			break
		}
	}
	big := func(text string) []Query {
		return []Query{{Text: text}, {Text: text, Limit: MaxLimit}, {Text: text, Sort: SortRecent, Limit: MaxLimit}, {Text: text, Exhaustive: true, Limit: MaxLimit}}
	}
	out := map[string][]Query{}
	add := func(class string, texts ...string) {
		for _, t := range texts {
			out[class] = append(out[class], big(t)...)
		}
	}
	for _, w := range latin[:20] {
		if len(w) >= MinFuzzyRunes {
			add("fuzzy-short", w+"~", w+"~2")
		}
	}
	add("fuzzy-short", "abc~", "xyz~2", "用户未~", "的的的~")
	for _, w := range []string{"errors", "config", "permis", "aaaaaa", "session"} {
		add("fuzzy-2", w+"~2")
	}
	for c := 'a'; c <= 'z'; c++ {
		add("prefix-1", string(c)+"*")
	}
	add("prefix-1", "0*", "1*", "写*", "用*")
	for _, p := range []string{"co", "re", "de", "st", "in", "pr", "se", "ex", "ca", "ma"} {
		add("prefix-2", p+"*")
	}
	add("or-64", strings.Join(latin[:MaxQueryTerms], " OR "))
	add("or-64", strings.Join(han[:MaxQueryTerms], " OR "))
	add("or-64", strings.Join(append(latin[:32:32], han[:32]...), " OR "))
	add("and-64", strings.Join(latin[:MaxQueryTerms], " "))
	add("not-64", "-"+strings.Join(latin[:MaxQueryTerms], " -"))
	add("or-prefixes", "co* OR re* OR de* OR st* OR in* OR pr* OR se* OR ex* OR ca* OR ma*")
	add("or-fuzzy", strings.Join(latin[:MaxQueryTerms], "~ OR ")+"~")
	var long3 []string
	for _, w := range latin {
		if len(w) >= 4 && len(long3) < 16 {
			long3 = append(long3, w)
		}
	}
	add("or-fuzzy", strings.Join(long3, "~ OR ")+"~")
	add("phrase-64", `"`+strings.Join(latin[:MaxQueryTerms], " ")+`"`)
	add("phrase-64", `"`+strings.Repeat("the ", MaxQueryTerms)+`"`)
	add("phrase-64", `"`+strings.Join(han[:MaxQueryTerms/2], "")+`"`)
	add("phrase-64", `"`+strings.Join(strings.Fields(realPhrase)[:min(30, len(strings.Fields(realPhrase)))], " ")+`"`)
	// The maximal size: long words, so the bytes run out before the terms.
	long := strings.Repeat("x", 60)
	var parts []string
	for i := 0; len(strings.Join(parts, " OR "))+70 < MaxQueryBytes; i++ {
		parts = append(parts, fmt.Sprintf("%s%02d", long, i))
	}
	add("max-size", strings.Join(parts, " OR "))
	add("max-size", strings.Repeat("a", MaxQueryBytes))
	add("max-size", "project:"+strings.Repeat("p", MaxQueryBytes-8))
	add("everything", "*", "")
	return out
}

// timeQueries runs each query of each class rounds times and returns the
// latencies per class (refused queries included) and how many were refused.
func timeQueries(tb testing.TB, ix *Index, classes map[string][]Query, rounds int) (map[string][]time.Duration, map[string]int) {
	tb.Helper()
	took := map[string][]time.Duration{}
	refused := map[string]int{}
	for class, qs := range classes {
		for range rounds {
			for _, q := range qs {
				start := time.Now()
				_, err := ix.Search(context.Background(), q)
				d := time.Since(start)
				var qe *QueryError
				switch {
				case errors.As(err, &qe):
					refused[class]++
				case err != nil:
					tb.Fatalf("%s %.60q: %v", class, q.Text, err)
				}
				took[class] = append(took[class], d)
			}
		}
	}
	return took, refused
}

// TestSearchAdversarialLatency holds every query within the limits to the
// target on the real log: p95 under 500 ms, whatever the query.
func TestSearchAdversarialLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("times a few hundred searches")
	}
	f := fixture(t)
	classes := adversarialQueries(f)
	cpu0, wall0 := cpuTime(), time.Now()
	took, refused := timeQueries(t, f.ix, classes, 1)
	var all []time.Duration
	for _, class := range slices.Sorted(func(yield func(string) bool) {
		for k := range took {
			if !yield(k) {
				return
			}
		}
	}) {
		ds := took[class]
		all = append(all, ds...)
		t.Logf("%-12s n=%3d refused=%3d p50=%8v p95=%8v max=%8v", class, len(ds), refused[class],
			percentile(ds, 50).Round(10*time.Microsecond), percentile(ds, 95).Round(10*time.Microsecond), slices.Max(ds).Round(10*time.Microsecond))
	}
	t.Logf("all: n=%d p50=%v p95=%v; wall %v, CPU %v", len(all), percentile(all, 50), percentile(all, 95),
		time.Since(wall0).Round(time.Millisecond), (cpuTime() - cpu0).Round(time.Millisecond))
	assert.Less(t, percentile(all, 95), 500*time.Millisecond)
}

// BenchmarkSearchAdversarial times the adversarial classes on the real log,
// reporting p50 and p95 per class (ms) and CPU time per search.
func BenchmarkSearchAdversarial(b *testing.B) {
	f := fixture(b)
	classes := adversarialQueries(f)
	for _, class := range slices.Sorted(func(yield func(string) bool) {
		for k := range classes {
			if !yield(k) {
				return
			}
		}
	}) {
		b.Run(class, func(b *testing.B) {
			var ds []time.Duration
			cpu0 := cpuTime()
			n := 0
			for b.Loop() {
				took, _ := timeQueries(b, f.ix, map[string][]Query{class: classes[class]}, 1)
				ds = append(ds, took[class]...)
				n += len(classes[class])
			}
			b.ReportMetric(float64(percentile(ds, 50).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(ds, 95).Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(n), "cpu-ms/search")
		})
	}
}
