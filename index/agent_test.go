package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// TestSearchAgent indexes an archive holding one dsh session and one OpenHands
// conversation: the conversation's messages, reasoning and tool I/O are
// searchable, agent:openhands and agent:dsh keep one session each, hits name
// their agent, and the agent facet counts the matches.
func TestSearchAgent(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	dshID := importGenerated(t, s, filepath.Join(t.TempDir(), "dsh"), dshgen.Options{Seed: 5, Turns: 4, Cwd: "/home/dev/alpha"})
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 9, Turns: 4})
	require.NoError(t, err)
	require.Positive(t, facts.Reasoning)
	fr := s.ImportFile(ctx, facts.Unit.Path, archive.ImportOptions{})
	require.Nil(t, fr.Error)
	require.Equal(t, "openhands", fr.Agent)
	ohID := fr.SessionID

	count := map[string]int{}   // blocks by agent
	ohKinds := map[string]int{} // the conversation's blocks by kind
	for _, id := range []string{dshID, ohID} {
		_, err := s.SessionBlocks(ctx, id, func(b archive.Block) error {
			count[b.Agent]++
			if id == ohID {
				ohKinds[b.Kind]++
			}
			return nil
		})
		require.NoError(t, err)
	}
	for _, k := range []string{archive.BlockHuman, archive.BlockAssistant, archive.BlockReasoning, archive.BlockToolCall, archive.BlockToolResult} {
		assert.Positive(t, ohKinds[k], "the conversation has %s blocks: %v", k, ohKinds)
	}

	ix := openIndex(t)
	_, err = ix.Sync(ctx, s, nil)
	require.NoError(t, err)

	res, err := ix.Search(ctx, Query{Limit: MaxLimit})
	require.NoError(t, err)
	assert.ElementsMatch(t, []FacetCount{{Term: "dsh", Count: count["dsh"]}, {Term: "openhands", Count: count["openhands"]}}, res.Facets.Agent)

	for agent, id := range map[string]string{"openhands": ohID, "dsh": dshID} {
		res, err := ix.Search(ctx, Query{Text: "agent:" + agent, Limit: MaxLimit})
		require.NoError(t, err, agent)
		assert.EqualValues(t, count[agent], res.Total, agent)
		assert.Equal(t, []FacetCount{{Term: agent, Count: count[agent]}}, res.Facets.Agent, agent)
		for _, h := range res.Hits {
			assert.Equal(t, id, h.SessionID, agent)
			assert.Equal(t, agent, h.Agent, agent)
		}
		if agent == "openhands" {
			for _, f := range res.Facets.Kind {
				assert.Equal(t, ohKinds[f.Term], f.Count, "kind %s", f.Term)
			}
		}
	}
	// The agent filter composes with the other filters.
	res, err = ix.Search(ctx, Query{Text: "agent:openhands kind:reasoning", Limit: MaxLimit})
	require.NoError(t, err)
	assert.EqualValues(t, ohKinds[archive.BlockReasoning], res.Total)
	res, err = ix.Search(ctx, Query{Text: "agent:dsh kind:reasoning session:" + ohID, Limit: MaxLimit})
	require.NoError(t, err)
	assert.Zero(t, res.Total)
}
