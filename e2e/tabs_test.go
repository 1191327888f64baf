package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/app"
	"github.com/logbook/logbook/archive"
)

// oneBrowser starts a headless Chromium and returns a context that owns it (an
// empty first tab); tabs made from it with chromedp.NewContext share its
// profile, and with it the browser's six connections per host.
func oneBrowser(t *testing.T, width, height int) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(allocator(t, width, height))
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx)) // start the browser
	return ctx
}

// TestSevenTabsShareOneBrowser opens the served UI in seven tabs of one browser:
// each must load a conversation and a search within seconds, though a browser
// allows only six connections to one host over HTTP/1.1 (a live-event stream
// per tab used them all up). One tab holds the stream for all; when it closes,
// another takes over and the rest still get live events.
func TestSevenTabsShareOneBrowser(t *testing.T) {
	e := need(t)
	b := oneBrowser(t, 1024, 700)
	s := sessionWith(t, e, func(s archive.Session) bool { return s.ToolCalls > 0 })
	const n = 7
	tabs := make([]context.Context, n)
	closeTab := make([]context.CancelFunc, n)
	for i := range n {
		// Tabs of one window, as a person opens them: only the newest is in front.
		ctx, cancel := chromedp.NewContext(b, chromedp.WithNewWindow(false))
		tabs[i], closeTab[i] = ctx, cancel
		t.Cleanup(cancel)
		// The tab opens on a context without a deadline: the deadline of a first run
		// would end the tab with it.
		require.NoError(t, chromedp.Do(ctx), "open tab %d", i+1)
		tctx, tcancel := context.WithTimeout(ctx, 20*time.Second)
		start := time.Now()
		err := chromedp.Do(tctx,
			chromedp.Navigate(e.url),
			chromedp.Navigate(e.base+"#/session/"+s.ID), chromedp.WaitVisible(chromedp.CSS(`[data-testid="item"]`)),
			chromedp.Navigate(e.base+"#/search?q=since:2000-01-01"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="search-hit"]`)),
		)
		tcancel()
		took := time.Since(start)
		require.NoError(t, err, "tab %d loads a session and a search (after %v)", i+1, took)
		t.Logf("tab %d: session and search in %v", i+1, took.Round(time.Millisecond))
		assert.Less(t, took, 10*time.Second, "tab %d", i+1)
	}
	require.Eventually(t, func() bool { return e.hub.Streams() == 1 }, 10*time.Second, 50*time.Millisecond,
		"one event stream for the whole browser, not one per tab (%d open)", e.hub.Streams())
	front(t, tabs[n-1])
	shot(t, tabs[n-1], e, "tabs-seventh")

	// Every tab hears a live event through the one stream.
	toast := func(prompt string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('[data-testid="schedule-toast"]')].some(n => n.textContent.includes(%q))`, prompt)
	}
	fire := func(prompt string) {
		e.hub.Publish(app.EventScheduleFired, map[string]any{"session_id": s.ID, "schedule_id": "tabs", "trigger": "manual",
			"outcome": "ok", "kind": "at", "prompt": prompt, "fired_at": time.Now().Format(time.RFC3339), "target_at": time.Now().Format(time.RFC3339)})
	}
	fire("heard by all seven")
	for i, ctx := range tabs {
		front(t, ctx)
		pollIn(t, ctx, toast("heard by all seven"), fmt.Sprintf("the event in tab %d", i+1))
	}

	// The tab holding the stream closes (the first one opened): another takes over.
	closeTab[0]()
	require.Eventually(t, func() bool { return e.hub.Streams() == 1 }, 10*time.Second, 50*time.Millisecond,
		"another tab opens the stream (%d open)", e.hub.Streams())
	fire("after the first tab closed")
	for i, ctx := range tabs[1:] {
		front(t, ctx)
		pollIn(t, ctx, toast("after the first tab closed"), fmt.Sprintf("the event in tab %d", i+2))
	}
}

// front makes ctx's tab the active one: a hidden tab draws no frames, and Poll
// waits for frames.
func front(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Call(ctx, page.BringToFront, cdp.Empty{})
	require.NoError(t, err, "bring the tab to the front")
}

// pollIn is poll with a shorter wait, for the many tabs of one test.
func pollIn(t *testing.T, ctx context.Context, expr, what string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, "waiting for %s (%s)", what, expr)
}
