package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// ohFollowUps is a real OpenHands CLI conversation: a system prompt, then four
// prompts of a person, the third answered with tool calls.
const ohFollowUps = "OpenHands-CLI/tests/trajectories/cli447_hi_followup_iterative_case_a"

// TestOpenHandsTurnNavigator: an OpenHands log names no turns, yet its session
// has one per prompt a person sent. The turn navigator lists them (prompt, tool
// calls, approvals), a turn header stands before each prompt with the prompt
// still shown under it, and a click, J and K put the header at the top.
func TestOpenHandsTurnNavigator(t *testing.T) {
	base := need(t)
	real := ohCorpus(t, ohFollowUps)
	gen := t.TempDir()
	facts, err := openhandsgen.Generate(gen, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 11, Turns: 9, Confirmation: true})
	require.NoError(t, err)
	e := &env{dataDir: t.TempDir(), artifacts: base.artifacts}
	sctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	t.Cleanup(e.close)
	require.NoError(t, e.serve(sctx, []string{real, facts.Unit.Path}))

	ctx := t.Context()
	ss, err := e.store.ListSessions(ctx, archive.SessionFilter{})
	require.NoError(t, err)
	require.Len(t, ss, 2)
	var realID, genID string
	for _, s := range ss {
		if s.Turns == 4 {
			realID = s.ID
		} else {
			genID = s.ID
		}
	}
	require.NotEmpty(t, realID, "the real conversation has four turns: %+v", ss)

	// The real conversation: four lines, each naming its prompt.
	b := browser(t, e, 1280, 800)
	open(t, b, e, "#/session/"+realID, `[data-testid="turn-line"]`)
	ts, err := e.store.Turns(ctx, realID)
	require.NoError(t, err)
	require.Len(t, ts, 4)
	assert.Equal(t, 4, eval[int](t, b, `document.querySelectorAll('[data-testid="turn-line"]').length`), "one line per prompt")
	for _, tu := range ts {
		require.NotEmpty(t, tu.Prompt)
		line := eval[string](t, b, fmt.Sprintf(`document.querySelector('[data-testid="turn-line"][data-turn="%d"]').textContent`, tu.Turn))
		assert.Contains(t, line, firstWords(tu.Prompt, 30), "turn %d names its prompt", tu.Turn)
		if tu.Tools > 0 {
			assert.Contains(t, line, fmt.Sprintf("%d tool", tu.Tools), "turn %d counts its tool calls", tu.Turn)
		}
	}
	// Each turn's header comes right before its prompt, which still shows.
	// A click on each line puts its header at the top, its prompt shown right under it.
	for _, tu := range ts {
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="turn-line"][data-turn="%d"]`, tu.Turn)))))
		poll(t, b, headerAtTop(tu.Turn), fmt.Sprintf("turn %d's header at the top", tu.Turn))
		poll(t, b, fmt.Sprintf(`document.querySelector('[data-testid="turn-line"][aria-current="true"]')?.dataset.turn === '%d'`, tu.Turn), "the navigator marks it")
		under := eval[string](t, b, fmt.Sprintf(`(() => {
			const items = [...document.querySelectorAll('[data-testid="item"]')];
			const i = items.findIndex(h => h.dataset.kind === 'turn' && h.querySelector('.pill')?.textContent.trim() === 'Turn %d');
			const p = items[i + 1];
			return p ? p.dataset.kind + ' ' + p.innerText : '';
		})()`, tu.Turn))
		assert.True(t, strings.HasPrefix(under, "message "), "turn %d: a message under its header: %q", tu.Turn, under)
		assert.Contains(t, under, firstWords(tu.Prompt, 20), "turn %d's prompt under its header", tu.Turn)
	}
	shot(t, b, e, "openhands-turns")

	// A longer generated conversation: a click and J/K put the header at the top.
	gts, err := e.store.Turns(ctx, genID)
	require.NoError(t, err)
	require.Len(t, gts, 9)
	approvals := int64(0)
	for _, tu := range gts {
		approvals += tu.Approvals
	}
	assert.Positive(t, approvals, "confirmation mode asks approvals, counted per turn")
	g := browser(t, e, 1280, 720)
	open(t, g, e, "#/session/"+genID, `[data-testid="turn-line"]`)
	assert.Equal(t, 9, eval[int](t, g, `document.querySelectorAll('[data-testid="turn-line"]').length`))
	k := 5
	require.NoError(t, chromedp.Do(g, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="turn-line"][data-turn="%d"]`, gts[k].Turn)))))
	total := fmt.Sprintf(" of %d", len(gts))
	poll(t, g, headerAtTop(gts[k].Turn), "the clicked turn's header at the top")
	poll(t, g, turnCounter+fmt.Sprintf(` === 'Turn %d%s'`, gts[k].Turn, total), "the counter names the turn")
	poll(t, g, fmt.Sprintf(`document.querySelector('[data-testid="turn-line"][aria-current="true"]')?.dataset.turn === '%d'`, gts[k].Turn), "the navigator marks it")
	shot(t, g, e, "openhands-turns-jump")

	require.NoError(t, chromedp.Do(g, chromedp.Click(chromedp.CSS(`.conv .topbar .ttl`))))
	for _, step := range []struct {
		key  string
		turn int64
	}{{"J", gts[k+1].Turn}, {"K", gts[k].Turn}, {"K", gts[k-1].Turn}, {"K", gts[k-2].Turn}, {"J", gts[k-1].Turn}} {
		require.NoError(t, chromedp.Do(g, chromedp.KeyEvent(step.key)))
		poll(t, g, headerAtTop(step.turn), fmt.Sprintf("%s: turn %d's header at the top", step.key, step.turn))
		poll(t, g, turnCounter+fmt.Sprintf(` === 'Turn %d%s'`, step.turn, total), fmt.Sprintf("%s: the counter names turn %d", step.key, step.turn))
	}
	shot(t, g, e, "openhands-turns-jk")
}
