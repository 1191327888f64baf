package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// realTurns is the real session's turns, or a skip without the corpus.
func realTurns(t *testing.T, e *env) []archive.TurnSummary {
	t.Helper()
	if e.realID == "" {
		t.Skip("the real corpus is not available")
	}
	ts, err := e.store.Turns(t.Context(), e.realID)
	require.NoError(t, err)
	require.Greater(t, len(ts), 3, "the real session has several turns")
	return ts
}

// headerAtTop is whether turn n's header row sits at the top of the conversation.
func headerAtTop(n int64) string {
	return fmt.Sprintf(`(() => {
		const vl = document.querySelector('.vl').getBoundingClientRect();
		const it = [...document.querySelectorAll('[data-testid="item"][data-kind="turn"]')].find(i => {
			const p = i.querySelector('[data-testid="turn-start"] .pill'); return p && p.textContent.trim() === 'Turn %d'; });
		if (!it) return false;
		const d = it.getBoundingClientRect().top - vl.top;
		return d > -2 && d < 3;
	})()`, n)
}

const turnCounter = `((document.querySelector('.pos[title="turn at the top of the view"]') || {}).textContent || '')`

func TestTurnNavigatorAndJK(t *testing.T) {
	e := need(t)
	ts := realTurns(t, e)
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/session/"+e.realID, `[data-testid="turn-line"]`)
	assert.Equal(t, len(ts), eval[int](t, ctx, `document.querySelectorAll('[data-testid="turn-line"]').length`), "one line per turn of the whole session")
	for _, tu := range ts {
		line := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('[data-testid="turn-line"][data-turn="%d"]').textContent`, tu.Turn))
		p := tu.Prompt
		if len([]rune(p)) > 30 {
			p = string([]rune(p)[:30])
		}
		assert.Contains(t, line, p, "turn %d names its prompt", tu.Turn)
		if tu.Tools > 0 {
			assert.Contains(t, line, fmt.Sprintf("%d tool", tu.Tools), "turn %d counts its tool calls", tu.Turn)
		}
	}

	// A click on a turn far down puts its header at the top; the counter and the navigator agree.
	k := len(ts) - 3
	target := ts[k]
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="turn-line"][data-turn="%d"]`, target.Turn)))))
	total := fmt.Sprintf(" of %d", len(ts))
	poll(t, ctx, headerAtTop(target.Turn), "the clicked turn's header at the top")
	pollShot(t, ctx, e, turnCounter+fmt.Sprintf(` === 'Turn %d%s'`, target.Turn, total), "the counter names the turn", "turns-counter")
	poll(t, ctx, fmt.Sprintf(`document.querySelector('[data-testid="turn-line"][aria-current="true"]')?.dataset.turn === '%d'`, target.Turn), "the navigator marks it")
	shot(t, ctx, e, "turns-navigator-jump")

	// J and K: the next and previous turn, header at the top each time.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.conv .topbar .ttl`))))
	for _, step := range []struct {
		key  string
		turn int64
	}{{"J", ts[k+1].Turn}, {"J", ts[k+2].Turn}, {"K", ts[k+1].Turn}, {"K", ts[k].Turn}, {"K", ts[k-1].Turn}} {
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(step.key)))
		poll(t, ctx, headerAtTop(step.turn), fmt.Sprintf("%s: turn %d's header at the top", step.key, step.turn))
		poll(t, ctx, turnCounter+fmt.Sprintf(` === 'Turn %d%s'`, step.turn, total), fmt.Sprintf("%s: the counter names turn %d", step.key, step.turn))
	}
	shot(t, ctx, e, "turns-jk")
}

func TestOverviewSpansWholeSession(t *testing.T) {
	e := need(t)
	ts := realTurns(t, e)
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/session/"+e.realID, `[data-testid="overview"]`)
	poll(t, ctx, fmt.Sprintf(`document.querySelectorAll('[data-testid="overview"] .tick').length === %d`, len(ts)), "a tick per turn")
	type box struct{ X, Top, Bottom float64 }
	b := eval[box](t, ctx, `(() => { const r = document.querySelector('[data-testid="overview"]').getBoundingClientRect(); return { x: r.left + r.width / 2, top: r.top, bottom: r.bottom }; })()`)
	// Drag from the top to the very bottom: the last turn, the end of the session.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, b.X, b.Top+4, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.X, (b.Top+b.Bottom)/2, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.X, b.Bottom-1, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, b.X, b.Bottom-1, chromedp.ButtonLeft),
	))
	last := ts[len(ts)-1].Turn
	poll(t, ctx, turnCounter+fmt.Sprintf(` === 'Turn %d of %d'`, last, len(ts)), "the last turn in view")
	poll(t, ctx, `!!document.querySelector('[data-testid="conversation-end"]')`, "the end of the session")
	shot(t, ctx, e, "overview-drag-end")

	// A click halfway lands in the turn that holds the middle seq.
	sess, err := e.store.Session(t.Context(), e.realID)
	require.NoError(t, err)
	mid := sess.LastSeq / 2
	want := ts[0].Turn
	for _, tu := range ts {
		if tu.StartSeq <= mid {
			want = tu.Turn
		}
	}
	y := b.Top + (b.Bottom-b.Top)*0.5
	require.NoError(t, chromedp.Do(ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, b.X, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, b.X, y, chromedp.ButtonLeft),
	))
	poll(t, ctx, turnCounter+fmt.Sprintf(` === 'Turn %d of %d'`, want, len(ts)), fmt.Sprintf("turn %d (seq %d) in view", want, mid))
	// The box follows: it sits around the middle now.
	top := eval[float64](t, ctx, `parseFloat(document.querySelector('[data-testid="overview"] .thumb').style.top)`)
	assert.InDelta(t, 50, top, 6, "the overview's box is where the view is")
}

func TestStateDrawerBelow1100(t *testing.T) {
	e := need(t)
	s := sessionWith(t, e, func(s archive.Session) bool { return s.Turns > 3 })
	ctx := browser(t, e, 1000, 760)
	open(t, ctx, e, "#/session/"+s.ID, `[data-testid="item"]`)
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('[data-testid="side-panel"]')`), "closed at first: the conversation keeps the width")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="state-toggle"]`))))
	poll(t, ctx, `(() => { const p = document.querySelector('[data-testid="side-panel"].drawer'); if (!p) return false;
		const r = p.getBoundingClientRect(); return r.width > 200 && r.right <= innerWidth + 1 && r.left > 0; })()`, "the drawer on screen")
	poll(t, ctx, `!!document.querySelector('[data-testid="side-panel"] [data-testid="state-panel"]') && !!document.querySelector('[data-testid="side-panel"] [data-testid="turn-line"]')`, "state and turns in it")
	shot(t, ctx, e, "state-drawer-1000")
	// Its turn lines work from the drawer too.
	ts, err := e.store.Turns(t.Context(), s.ID)
	require.NoError(t, err)
	last := ts[len(ts)-1].Turn
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="turn-line"][data-turn="%d"]`, last)))))
	poll(t, ctx, headerAtTop(last), "the turn's header at the top")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)))
	poll(t, ctx, `!document.querySelector('[data-testid="side-panel"]')`, "Escape closes the drawer")
}

func TestFindAndDrawerNarrowDark(t *testing.T) {
	e := need(t)
	if e.realID == "" {
		t.Skip("the real corpus is not available")
	}
	ctx := browser(t, e, 760, 800)
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("t"))) // the other theme
	open(t, ctx, e, "#/session/"+e.realID+"?q=timeout", `[data-testid="session-find"]`)
	poll(t, ctx, `(() => { const c = document.querySelector('[data-testid="find-counter"]'); return !!c && /^\d+ matches$/.test(c.textContent); })()`, "the find's count")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("n")))
	poll(t, ctx, `!!CSS.highlights.get('logbook-find-current')?.size`, "the first match marked")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="state-toggle"]`))))
	poll(t, ctx, `!!document.querySelector('[data-testid="side-panel"].drawer [data-testid="turn-line"]')`, "the drawer")
	for _, sel := range []string{`[data-testid="find-toggle"]`, `[data-testid="state-toggle"]`, `[data-testid="find-next"]`, `[data-testid="overview"]`} {
		assert.True(t, eval[bool](t, ctx, `(() => { const r = document.querySelector('`+sel+`').getBoundingClientRect(); return r.width > 0 && r.right <= innerWidth && r.left >= 0; })()`), "%s on screen", sel)
	}
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 760, "no horizontal overflow")
	shot(t, ctx, e, "find-drawer-narrow-dark")
}
