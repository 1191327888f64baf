package main

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

func TestCompactions(t *testing.T) {
	data, a, b := importGenerated(t)

	all := objs(t, mustJSON[any](t, data, "compactions", "--json"))
	assert.Len(t, sessionIDs(all), 2)
	assert.Positive(t, assertInstantsUTC(t, all))

	for _, l := range []*dshgen.Log{a, b} {
		t.Run(l.ID(), func(t *testing.T) {
			items := objs(t, mustJSON[any](t, data, "compactions", "--json", "--session", l.ID()))
			byID := map[string]map[string]any{}
			for _, it := range items {
				assert.Equal(t, l.ID(), it["session_id"])
				arr(t, it["shadowedSeqs"]) // always a list
				if id, _ := it["compactionId"].(string); id != "" {
					byID[id] = it
				}
			}
			failed := 0
			for _, f := range l.Facts().Compactions {
				it, ok := byID[f.ID]
				require.True(t, ok, "compaction %s missing from %v", f.ID, items)
				seqs := []int64{}
				for _, s := range arr(t, it["shadowedSeqs"]) {
					seqs = append(seqs, int64(s.(float64)))
				}
				want := append([]int64{}, f.ShadowedSeqs...)
				sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
				sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
				assert.Equal(t, want, seqs, "shadowedSeqs of %s", f.ID)
				if f.Failed {
					failed++
					assert.Equal(t, "failed", it["status"])
					msg, _ := it["error"].(string)
					assert.NotEmpty(t, msg, "a failed compaction carries its error text")
				} else {
					assert.Nil(t, it["error"])
				}
			}
			assert.Equal(t, 1, failed)
		})
	}

	r := cliData(t, data, "compactions", "--session", a.ID())
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "error: ")
	assert.NotContains(t, r.stdout, b.ID())
}
