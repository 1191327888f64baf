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

// TestOpenHandsTurns: an OpenHands conversation names no turns; the archive
// numbers one per prompt, and its export heads and selects them, so turn ranges
// and the turns around a hit work on it as on a dsh log.
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

// TestOpenHandsTurnsCorpusExport: for every conversation of the shared OpenHands
// corpus, the export heads one turn per prompt a person sent, numbered 1 to N,
// and the archive's turn map (the conversation view's navigator) has the same N
// turns, each starting at the prompt its heading is before.
func TestOpenHandsTurnsCorpusExport(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "corpus", "openhands")
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the OpenHands corpus is missing in CI: %v", err)
		}
		t.Skip("corpus not present: " + root)
	}
	ctx := context.Background()
	s := openStore(t)
	rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rep.Files), 16)
	var turns int64
	for _, f := range rep.Files {
		whole := load(t, s, f.SessionID)
		var prompts, starts []int64
		for _, it := range whole.Items {
			if m := it.Message; m != nil && it.Kind == archive.ItemMessage && m.Role == "user" && m.Kind != "injected" {
				prompts = append(prompts, it.Seq)
			}
			if it.Kind == archive.ItemTurn && it.Type == "turn/start" {
				starts = append(starts, it.Seq)
			}
		}
		assert.Equal(t, prompts, starts, "%s: a turn starts at each prompt", f.Path)
		var md bytes.Buffer
		require.NoError(t, export.WriteMarkdown(&md, whole))
		var want []int64
		for i := range prompts {
			want = append(want, int64(i+1))
		}
		assert.Equal(t, want, turnHeadings(md.Bytes()), f.Path)
		assert.EqualValues(t, len(prompts), whole.Session.Turns, f.Path)
		nav, err := s.Turns(ctx, f.SessionID)
		require.NoError(t, err)
		require.Len(t, nav, len(prompts), f.Path)
		for i, tn := range nav {
			assert.EqualValues(t, i+1, tn.Turn, f.Path)
			assert.Equal(t, prompts[i], tn.StartSeq, f.Path)
		}
		turns += int64(len(prompts))
	}
	assert.Greater(t, turns, int64(len(rep.Files)), "the corpus has follow-up prompts")
}
