package export_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
)

// ohFollowUps is a real OpenHands CLI conversation of the shared corpus: a
// system prompt, then four prompts of a person, the third answered with tool calls.
var ohFollowUps = filepath.Join("..", "..", "shared", "corpus", "openhands", "OpenHands-CLI", "tests", "trajectories", "cli447_hi_followup_iterative_case_a")

// TestOpenHandsTurns: an OpenHands conversation names no turns; its export
// numbers one per prompt, so turn ranges and the turns around a hit work on it
// as on a dsh log.
func TestOpenHandsTurns(t *testing.T) {
	if _, err := os.Stat(ohFollowUps); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the OpenHands corpus is missing in CI: %v", err)
		}
		t.Skip("corpus not present: " + ohFollowUps)
	}
	s := openStore(t)
	rep, err := s.Import(context.Background(), []string{ohFollowUps}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Files, 1)
	whole := load(t, s, rep.Files[0].SessionID)
	assert.Equal(t, "openhands", whole.Session.Agent)
	assert.EqualValues(t, 4, whole.Session.Turns)

	var md bytes.Buffer
	require.NoError(t, export.WriteMarkdown(&md, whole))
	assert.Equal(t, []int64{1, 2, 3, 4}, turnHeadings(md.Bytes()))
	assert.Contains(t, md.String(), "| Size | 4 turns")
	assert.Less(t, bytes.Index(md.Bytes(), []byte("Injected context")), bytes.Index(md.Bytes(), []byte("## Turn 1")),
		"the system prompt comes before the first turn")

	part, err := whole.Turns(export.TurnRange{From: 2, To: 3})
	require.NoError(t, err)
	md.Reset()
	require.NoError(t, export.WriteMarkdown(&md, part))
	assert.Equal(t, []int64{2, 3}, turnHeadings(md.Bytes()))
	assert.Contains(t, md.String(), "turns 2-3; the session has turns 1-4")
	assert.Contains(t, md.String(), "iteration 1/3", "turn 2's prompt")
	assert.Contains(t, md.String(), "### Tool `terminal`", "turn 3's tool call")
	assert.NotContains(t, md.String(), "iteration 3/3", "turn 4's prompt")
	assert.NotContains(t, md.String(), "You are OpenHands agent", "the system prompt is in no turn")

	// Around the terminal's result (seq 9, turn 3), no context: turn 3 alone.
	around, err := whole.Around(9, 0)
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, export.WriteHTML(&page, around))
	assert.Contains(t, page.String(), "around seq 9 (turn 3)")
	assert.Contains(t, page.String(), `<section class="turn" id="turn-3-5"><h2>Turn 3</h2>`)
	assert.NotContains(t, page.String(), "Turn 2</h2>")
	md.Reset()
	require.NoError(t, export.WriteMarkdown(&md, around))
	assert.Equal(t, []int64{3}, turnHeadings(md.Bytes()))

	// The redaction scan sees the same texts with and without turn items.
	for _, d := range whole.Docs() {
		assert.NotContains(t, d.ID, "marker", "a numbered turn adds no text to scan")
	}
}
