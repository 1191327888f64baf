package e2e

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStalledCallSaysSo holds the page's search requests in the browser (the server
// never sees them): after about ten seconds the page says it is still waiting,
// instead of showing skeletons with no word, and Retry sends the search again.
func TestStalledCallSaysSo(t *testing.T) {
	e := need(t)
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	// The browser holds the first search request for good and lets later ones
	// (Retry's) through.
	evctx, stopEvents := context.WithCancel(ctx)
	defer stopEvents()
	paused := chromedp.Events(evctx, fetch.RequestPaused)
	var held atomic.Int32
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			// The Search view also counts each shown session's own matches
			// ("… session:ID"): those are not the search this test holds.
			var body strings.Builder
			for _, p := range ev.Request.PostDataEntries {
				body.Write(p.Bytes)
			}
			if strings.Contains(body.String(), " session:") {
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			if held.Add(1) > 1 {
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			}
		}
	}()
	_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/Search"}}})
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.base+"#/search?q=since:2000-01-01")))
	banner := `document.querySelector('[data-testid="stall-banner"]')`
	poll(t, ctx, banner+` !== null`, "the stall notice")
	took := time.Since(start)
	t.Logf("stall notice after %v", took.Round(time.Millisecond))
	assert.GreaterOrEqual(t, took, 9*time.Second, "not before the call had its time")
	assert.Less(t, took, 15*time.Second)
	assert.Contains(t, eval[string](t, ctx, banner+`.textContent`), "Still waiting for an answer from Logbook")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-testid="search-hit"]').length`))
	shot(t, ctx, e, "stall-notice")

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="stall-banner"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="search-hit"]`))))
	poll(t, ctx, banner+` === null`, "the notice gone with the answer")
	assert.EqualValues(t, 2, held.Load(), "one search held, one retried")
}
