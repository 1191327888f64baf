package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

func TestApprovals(t *testing.T) {
	data, a, b := importGenerated(t)

	all := objs(t, mustJSON[any](t, data, "approvals", "--json"))
	assert.Equal(t, map[string]int{a.ID(): len(a.Facts().Approvals), b.ID(): len(b.Facts().Approvals)}, sessionIDs(all))
	assert.Positive(t, assertInstantsUTC(t, all))

	for _, l := range []*dshgen.Log{a, b} {
		t.Run(l.ID(), func(t *testing.T) {
			items := objs(t, mustJSON[any](t, data, "approvals", "--json", "--session", l.ID()))
			facts := l.Facts().Approvals
			require.Len(t, items, len(facts))
			byID := map[string]map[string]any{}
			for _, it := range items {
				assert.Equal(t, l.ID(), it["session_id"])
				assert.NotEmpty(t, it["toolName"])
				assert.Contains(t, it, "outcome")
				byID[it["id"].(string)] = it
			}
			outcomes := map[string]bool{}
			for _, f := range facts {
				it, ok := byID[f.ID]
				require.True(t, ok, "approval %s missing", f.ID)
				if f.DecidedSeq < 0 {
					assert.Nil(t, it["outcome"], "undecided approval %s", f.ID)
					assert.Nil(t, it["decided_at"])
				} else {
					assert.Equal(t, f.Outcome, it["outcome"])
					outcomes[f.Outcome] = true
				}
				assert.EqualValues(t, f.AskedSeq, it["asked_seq"])
			}
			assert.Len(t, outcomes, 4, "every outcome appears: %v", outcomes)
		})
	}

	r := cliData(t, data, "approvals")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(undecided)")
}
