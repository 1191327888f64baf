package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// dragScrollbar holds the conversation's native scrollbar thumb with the mouse,
// brings it to the fraction to of the scroll range, and lets go. The position is
// set as the drag would set it: headless Chromium maps a synthetic drag over this
// list's growing scroll range unreliably (it stops short of the end), and what is
// tested is what the view does with a held, moved and released thumb.
func dragScrollbar(t *testing.T, ctx context.Context, to float64) {
	t.Helper()
	type geo struct{ X, Y float64 }
	// Chromium's classic scrollbar: a 15 px arrow button at each end, the thumb
	// between them, at least 17 px long.
	g := eval[geo](t, ctx, `(() => { const vl = document.querySelector('.vl'); const r = vl.getBoundingClientRect();
		const arrow = 15, track = vl.clientHeight - 2 * arrow, thumb = Math.max(17, track * vl.clientHeight / vl.scrollHeight);
		const y = r.top + arrow + (vl.scrollTop / Math.max(1, vl.scrollHeight - vl.clientHeight)) * (track - thumb) + thumb / 2;
		return { x: r.left + vl.clientWidth + (vl.offsetWidth - vl.clientWidth) / 2, y }; })()`)
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, g.X, g.Y, chromedp.ButtonLeft)), "hold the thumb")
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const vl = document.querySelector('.vl'); vl.scrollTop = %v * (vl.scrollHeight - vl.clientHeight); return true; })()`, to))
	require.NoError(t, chromedp.Do(ctx, chromedp.Sleep(300e6)))
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, g.X, g.Y, chromedp.ButtonLeft)), "let go")
}

// settle waits until the conversation's scroll position holds for half a second.
func settle(t *testing.T, ctx context.Context) {
	t.Helper()
	for range 20 {
		if eval[bool](t, ctx, `new Promise(r => { const vl = document.querySelector('.vl'), a = vl.scrollTop; setTimeout(() => r(vl.scrollTop === a), 500); })`) {
			return
		}
	}
	t.Fatal("the conversation kept scrolling")
}

// firstSeqInView is the seq of the first conversation item in the list's viewport.
const firstSeqInView = `(() => { const vl = document.querySelector('.vl').getBoundingClientRect();
	const it = [...document.querySelectorAll('[data-testid="item"]')].find(i => i.getBoundingClientRect().bottom > vl.top + 2);
	return it ? Number(it.dataset.seq) : -1; })()`

func TestScrollbarSpansWholeSession(t *testing.T) {
	e := need(t)
	ts := realTurns(t, e)
	sess, err := e.store.Session(t.Context(), e.realID)
	require.NoError(t, err)
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/session/"+e.realID, `[data-testid="item"]`)
	// The room of the unloaded items below the first page is there: the scrollbar
	// spans the whole session, not the 120 items loaded.
	poll(t, ctx, `!!document.querySelector('[data-testid="unloaded-after"]')`, "room for the unloaded items")
	type sizes struct{ Scroll, Loaded float64 }
	sz := eval[sizes](t, ctx, `(() => { const vl = document.querySelector('.vl'); const a = document.querySelector('[data-testid="unloaded-after"]');
		return { scroll: vl.scrollHeight, loaded: vl.scrollHeight - a.offsetHeight }; })()`)
	assert.Greater(t, sz.Scroll, 1.5*sz.Loaded, "the scroll range holds room for the unloaded items (the first page is 120 of 322)")
	shot(t, ctx, e, "scrollbar-start")

	// The thumb dragged to the very bottom lands at the end of the session.
	dragScrollbar(t, ctx, 1)
	last := ts[len(ts)-1].Turn
	poll(t, ctx, turnCounter+fmt.Sprintf(` === 'Turn %d of %d'`, last, len(ts)), "the last turn in view")
	pollShot(t, ctx, e, `(() => { const end = document.querySelector('[data-testid="conversation-end"]'); if (!end) return false;
		const r = end.getBoundingClientRect(), vl = document.querySelector('.vl').getBoundingClientRect(); return r.top < vl.bottom && r.bottom > vl.top; })()`, "the end of the session in view", "scrollbar-end")
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('[data-testid="unloaded-after"]')`), "nothing left unloaded below")
	shot(t, ctx, e, "scrollbar-drag-end")

	// Dragged to the middle, it pages in the middle of the conversation: the items in
	// view are those about halfway through its items (the room is estimated from each
	// turn's item count: within 15%).
	page, err := e.store.Timeline(t.Context(), e.realID, archive.TimelineQuery{Limit: archive.MaxTimelineLimit})
	require.NoError(t, err)
	require.False(t, page.HasAfter, "the whole timeline in one page")
	dragScrollbar(t, ctx, 0.5)
	poll(t, ctx, `!document.querySelector('[data-testid="seeking"]') && `+firstSeqInView+` > 0`, "the middle paged in")
	seq := int64(eval[float64](t, ctx, firstSeqInView))
	at := slices.IndexFunc(page.Items, func(it archive.TimelineItem) bool { return it.Seq == seq })
	require.GreaterOrEqual(t, at, 0, "seq %d is an item", seq)
	assert.InDelta(t, 0.5, float64(at)/float64(len(page.Items)), 0.15, "item %d of %d (seq %d of %d) at the top", at, len(page.Items), seq, sess.LastSeq)
	assert.True(t, eval[bool](t, ctx, `!!document.querySelector('[data-testid="unloaded-before"]')`), "room above the middle")
	settle(t, ctx)
	assert.Positive(t, eval[float64](t, ctx, firstSeqInView), "items in view once the view is still")
	shot(t, ctx, e, "scrollbar-drag-middle")

	// And to the top: the start of the session, its header (once the view is still).
	settle(t, ctx)
	dragScrollbar(t, ctx, 0)
	poll(t, ctx, `!document.querySelector('[data-testid="unloaded-before"]') && document.querySelector('.vl').scrollTop < 2 && !!document.querySelector('.vl-header [data-testid="session-agent"]')`, "the start of the session")
}
