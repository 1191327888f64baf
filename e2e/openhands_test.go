package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// openhandsConv is a real 2025 agent-server conversation (OpenHands benchmarks,
// SWE-bench run, Sept 2025) with two Condensations; see the corpus PROVENANCE.md.
const openhandsConv = "benchmarks/workspace/conversations/3749ed60c63e4def840a46f15f4ee18c/event_service"

// openhandsEvents is real agent-server events (June 2026, one per line, the
// webhook form) whose ActionEvent carries reasoning_content: the Sept 2025 run
// above has none (its thoughts are plain text before each call).
const openhandsEvents = "software-agent-sdk/tests/sdk/conversation/goal/fixtures/events.jsonl"

// ohCorpus is the path of rel in ../shared/corpus/openhands; it skips when the
// corpus is absent, and fails under CI.
func ohCorpus(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(repoRoot(), "..", "shared", "corpus", "openhands", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("OpenHands corpus absent under CI: %v", err)
		}
		t.Skipf("OpenHands corpus absent: %v", err)
	}
	return p
}

// TestOpenHandsConversation serves an archive holding a real 2025 agent-server
// conversation and opens it in Chromium: its messages, a reasoning block, a tool
// call card with its result paired in, and its condensations as compaction cards
// all show, though OpenHands has no turns. The reasoning block comes from
// openhandsEvents, served beside it.
func TestOpenHandsConversation(t *testing.T) {
	base := need(t)
	conv, events := ohCorpus(t, openhandsConv), ohCorpus(t, openhandsEvents)
	e := &env{dataDir: t.TempDir(), artifacts: base.artifacts}
	sctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	t.Cleanup(e.close)
	require.NoError(t, e.serve(sctx, []string{conv, events}))

	ctx := t.Context()
	ss, err := e.store.ListSessions(ctx, archive.SessionFilter{})
	require.NoError(t, err)
	require.Len(t, ss, 2)
	var id string
	var user, reasoning archive.Message
	var ms []archive.Message // the 2025 conversation's
	for _, s := range ss {
		assert.Equal(t, "openhands", s.Agent, s.ID)
		all, err := e.store.Messages(ctx, s.ID)
		require.NoError(t, err)
		if strings.HasPrefix(s.ID, "3749ed60") {
			id, ms = s.ID, all
		}
		for _, m := range all {
			if s.ID == id && user.Seq == 0 && m.Role == "user" && strings.TrimSpace(m.Text) != "" {
				user = m
			}
			if reasoning.Seq == 0 && m.Reasoning != "" && m.Surface == "current" {
				reasoning = m
			}
		}
	}
	require.NotZero(t, user.Seq, "a user message in the 2025 conversation")
	require.NotZero(t, reasoning.Seq, "a message with reasoning")
	calls, err := e.store.ToolCalls(ctx, id)
	require.NoError(t, err)
	var call archive.ToolCall
	for _, c := range calls {
		if c.ResultSeq != nil && c.Output != nil && strings.TrimSpace(*c.Output) != "" {
			call = c
			break
		}
	}
	require.NotEmpty(t, call.CallID, "a call paired with its result")
	comps, err := e.store.Compactions(ctx, archive.ItemFilter{SessionID: id})
	require.NoError(t, err)
	require.Len(t, comps, 2, "both Condensations are compactions")

	b := browser(t, e, 1280, 800)
	open(t, b, e, "#/sessions", `[data-testid="session-row"]`)
	marks := `[...document.querySelectorAll('[data-testid="session-row"] [data-testid="agent-badge"]')].map(n => n.textContent.trim())`
	assert.Equal(t, []string{"OpenHands", "OpenHands"}, eval[[]string](t, b, marks), "each row marks its agent")
	shot(t, b, e, "openhands-sessions")

	// Search finds the conversation's tool output under agent:openhands, with
	// the agent facet and mark.
	open(t, b, e, "#/search?q=agent:openhands%20kind:tool_result", `[data-testid="search-hit"]`)
	poll(t, b, `!!document.querySelector('[data-testid="facet"][data-field="agent"][data-value="openhands"]')`, "the agent facet")
	assert.True(t, eval[bool](t, b, `!!document.querySelector('.group [data-testid="agent-badge"][data-agent="openhands"]')`), "hits name their agent")
	shot(t, b, e, "openhands-search")

	// The first user message.
	item := fmt.Sprintf(`[data-testid="item"][data-seq="%d"]`, user.Seq)
	open(t, b, e, fmt.Sprintf("#/session/%s?seq=%d", id, user.Seq), item)
	text := eval[string](t, b, `document.querySelector('`+item+`').innerText`)
	assert.Contains(t, text, firstWords(user.Text, 40), "the user message shows")
	assert.Equal(t, "OpenHands", eval[string](t, b, `document.querySelector('[data-testid="agent-badge"]')?.textContent ?? ''`), "the header marks the agent")
	assert.Contains(t, eval[string](t, b, `document.querySelector('[data-testid="session-agent"]')?.textContent ?? ''`), "OpenHands", "the header names the agent")
	n := eval[int](t, b, `document.querySelectorAll('[data-testid="item"]').length`)
	assert.Greater(t, n, 1, "the conversation shows more than one item")
	shot(t, b, e, "openhands-conversation")

	// Reasoning, collapsed and expandable.
	item = fmt.Sprintf(`[data-testid="item"][data-seq="%d"]`, reasoning.Seq)
	open(t, b, e, fmt.Sprintf("#/session/%s?seq=%d", reasoning.SessionID, reasoning.Seq), item+` [data-testid="reasoning-toggle"]`)
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(item+` [data-testid="reasoning-toggle"]`))))
	body := item + ` [data-testid="reasoning"]`
	require.NoError(t, chromedp.Do(b, chromedp.WaitVisible(chromedp.CSS(body))))
	got := eval[string](t, b, `document.querySelector('`+body+`').textContent`)
	assert.Equal(t, strings.TrimSpace(reasoning.Reasoning), strings.TrimSpace(got), "the whole reasoning, exactly")
	shot(t, b, e, "openhands-reasoning")

	// A tool call card with its result.
	card := fmt.Sprintf(`[data-testid="item"][data-seq="%d"] [data-testid="tool-card"]`, call.CallSeq)
	open(t, b, e, fmt.Sprintf("#/session/%s?seq=%d", id, call.CallSeq), card+` [data-testid="tool-result"]`)
	text = eval[string](t, b, `document.querySelector('`+card+`').innerText`)
	assert.Contains(t, text, call.Name, "the card names the tool")
	for _, m := range ms {
		if m.Seq == call.CallSeq && strings.TrimSpace(m.Text) != "" {
			// The ActionEvent's thought shows above its card.
			whole := eval[string](t, b, fmt.Sprintf(`document.querySelector('[data-testid="item"][data-seq="%d"]').innerText`, call.CallSeq))
			assert.Contains(t, whole, firstWords(m.Text, 30), "the thought before the call")
		}
	}
	shot(t, b, e, "openhands-tool")

	// The compactions view lists both condensations, marked OpenHands.
	open(t, b, e, "#/compactions", `[data-testid="agent-badge"]`)
	assert.Equal(t, 2, eval[int](t, b, `document.querySelectorAll('[data-testid="agent-badge"][data-agent="openhands"]').length`), "both condensations, marked")
	assert.NotContains(t, eval[string](t, b, `document.querySelector('[data-testid="compaction-row"]').innerText`), "Manual", "no turns is not a manual compaction")
	shot(t, b, e, "openhands-compactions")

	// Each condensation is a compaction card.
	for i, c := range comps {
		require.NotNil(t, c.StartSeq)
		sel := fmt.Sprintf(`[data-testid="item"][data-seq="%d"] [data-testid="compaction-card"]`, *c.StartSeq)
		open(t, b, e, fmt.Sprintf("#/session/%s?seq=%d", id, *c.StartSeq), sel)
		shot(t, b, e, fmt.Sprintf("openhands-condensation-%d", i+1))
	}
}

// firstWords is up to n runes of text's first line, trimmed.
func firstWords(text string, n int) string {
	line := []rune(strings.SplitN(strings.TrimSpace(text), "\n", 2)[0])
	if len(line) > n {
		line = line[:n]
	}
	return strings.TrimSpace(string(line))
}
