package redact

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomValues returns n values of 1 to 40 bytes from a small alphabet, many
// sharing prefixes (as tokens of one kind do).
func randomValues(r *rand.Rand, n int) []string {
	prefixes := []string{"", "ghp_", "sk-proj-", "AKIA", "a", "ab"}
	var out []string
	for range n {
		b := []byte(prefixes[r.IntN(len(prefixes))])
		for m := 1 + r.IntN(40); len(b) < m; {
			b = append(b, "abcxyz01_-"[r.IntN(10)])
		}
		out = append(out, string(b))
	}
	return out
}

func TestValueSetFindsEveryOccurrence(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 50 {
		values := randomValues(r, 1+r.IntN(60))
		var b strings.Builder
		for b.Len() < 4000 {
			if r.IntN(3) == 0 {
				b.WriteString(values[r.IntN(len(values))])
			} else {
				b.WriteByte("abcxyz01_- \\n"[r.IntN(12)])
			}
		}
		text := b.String()
		type hit struct{ s, e, i int }
		var want, got []hit
		for i, v := range values {
			for s := 0; s+len(v) <= len(text); s++ {
				if text[s:s+len(v)] == v {
					want = append(want, hit{s, s + len(v), i})
				}
			}
		}
		newValueSet(values).each(text, func(s, e, i int) { got = append(got, hit{s, e, i}) })
		require.ElementsMatch(t, want, got, "round %d", round)
	}
	newValueSet(nil).each("anything", func(int, int, int) { t.Fatal("an empty set finds nothing") })
	newValueSet([]string{"x"}).each("", func(int, int, int) { t.Fatal("nothing is found in no text") })
}

// TestValueSetMemory: a value costs tens of bytes, not a trie's ~45 KB, so the
// values of a bundle of many sessions fit.
func TestValueSetMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := randomValues(r, 5000)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	vs := newValueSet(values)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("%d values: %d KB", len(values), grew>>10)
	assert.Less(t, grew, int64(2<<20), "5,000 values took %d KB", grew>>10)
	runtime.KeepAlive(vs)
}
