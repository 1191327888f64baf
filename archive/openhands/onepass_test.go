package openhands_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// TestOnePassDecode holds the one-pass decode an import uses to what
// DecodeEvent and a separate decode of the body give, on every event of the
// real corpus and of generated conversations of every layout, style and
// damage, and checks that it does read nearly every V1 event in one pass.
func TestOnePassDecode(t *testing.T) {
	ctx := context.Background()
	var raws [][]byte
	units, err := openhands.Discover(ctx, []string{corpusDir})
	require.NoError(t, err)
	require.NotEmpty(t, units)
	gen := t.TempDir()
	styles := []openhandsgen.Style{openhandsgen.Compact, openhandsgen.Python, openhandsgen.Pretty}
	for i, l := range openhandsgen.Layouts {
		for j, s := range styles {
			_, err := openhandsgen.Generate(filepath.Join(gen, string(l), fmt.Sprint(j)), openhandsgen.Options{Layout: l, Seed: uint64(40 + 3*i + j),
				Style: &s, Turns: 6, Confirmation: j == 1, Legacy: j == 2, Extras: true,
				Malformations: []openhandsgen.Malformation{openhandsgen.UnknownKind, openhandsgen.MissingID}})
			require.NoError(t, err)
		}
	}
	more, err := openhands.Discover(ctx, []string{gen})
	require.NoError(t, err)
	for _, u := range append(units, more...) {
		c, err := openhands.Read(ctx, u)
		require.NoError(t, err)
		for _, r := range c.Records {
			raws = append(raws, r.Raw)
		}
	}
	fast, v1 := 0, 0
	for _, raw := range raws {
		f, same := openhands.OnePass(raw)
		assert.True(t, same, "%s", raw)
		ev, err := openhands.DecodeEvent(raw)
		if err == nil && ev.Dialect == openhands.DialectV1 {
			v1++
			if f {
				fast++
			}
		}
	}
	require.Greater(t, v1, 1000)
	assert.Greater(t, float64(fast)/float64(v1), 0.9, "%d of %d V1 events read in one pass", fast, v1)
	// Shapes the one pass does not take give the same as well.
	for _, raw := range []string{
		`{"kind":"MessageEvent","id":"a","llm_message":{"role":"user","content":"plain string"}}`,
		`{"kind":"SystemPromptEvent","id":"b","system_prompt":[{"type":"text","text":"x"}]}`,
		`{"kind":"ObservationEvent","id":"c","observation":{"kind":"TerminalObservation","content":"s","exit_code":2}}`,
		`{"kind":"ActionEvent","id":"d","action":"run","thought":"t"}`,
		`{"kind":"ActionEvent","id":"e","action":{"kind":5}}`,
		`{"kind":"ObservationEvent","id":"f","observation":null,"action_id":"d"}`,
		`{"kind":"MessageEvent","id":7,"sender":3}`,
		`{"action":"run","id":1,"args":{"command":"ls"}}`,
	} {
		_, same := openhands.OnePass([]byte(raw))
		assert.True(t, same, raw)
	}
}
