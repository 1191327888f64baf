package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// machineGet calls a machine endpoint of the served app as a script would (curl,
// the OpenHands SDK), with key in X-Session-API-Key when set.
func machineGet(t *testing.T, e *env, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", e.base+"api/v1/conversation/0b6c3f5e-0000-4000-8000-000000000000/events/search", nil)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("X-Session-API-Key", key)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestAPIKeyFromSettings makes an API key in the settings view, reads it off the
// page as a person copying it would, uses it from outside the browser, then
// revokes it there and sees it refused.
func TestAPIKeyFromSettings(t *testing.T) {
	e := need(t)
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/settings", `[data-testid="api-keys"]`)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="api-key-name"]`), "e2e-script"),
		chromedp.Click(chromedp.CSS(`[data-testid="api-key-create"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-api-key"]`))))
	key := eval[string](t, ctx, `document.querySelector('[data-testid="new-api-key"]').textContent.trim()`)
	require.Regexp(t, `^lbk_[A-Za-z0-9_-]{43}$`, key)
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('[data-testid="new-api-key-panel"]').textContent`),
		"will not be shown again")
	poll(t, ctx, `!!document.querySelector('[data-testid="api-key-row"][data-name="e2e-script"]')`, "the new key listed")
	shot(t, ctx, e, "settings-api-key-created")

	code, body := machineGet(t, e, "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.JSONEq(t, `{"detail":"X-Session-API-Key header is required"}`, body)
	code, body = machineGet(t, e, key)
	assert.Equal(t, http.StatusNotFound, code, "the key opens the machine endpoints (reserved so far)")
	assert.JSONEq(t, `{"detail":"Not Found"}`, body)

	// The list shows the use; the key is never shown again, after a reload too.
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="api-key-row"][data-name="e2e-script"]`))))
	assert.NotContains(t, eval[string](t, ctx, `document.body.innerText`), key)
	assert.NotContains(t, eval[string](t, ctx, `document.querySelector('[data-testid="api-key-row"][data-name="e2e-script"]').textContent`), "never",
		"its last use is listed")

	row := `[data-testid="api-key-row"][data-name="e2e-script"] `
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(row+`[data-testid="api-key-revoke"]`)),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-testid="api-key-confirm-revoke"]`))))
	shot(t, ctx, e, "settings-api-key-revoke")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row+`[data-testid="api-key-confirm-revoke"]`))))
	poll(t, ctx, `!document.querySelector('[data-testid="api-key-row"][data-name="e2e-script"]')`, "the key gone from the list")

	code, body = machineGet(t, e, key)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.JSONEq(t, `{"detail":"Invalid session API key"}`, body)
	assert.False(t, strings.Contains(eval[string](t, ctx, `document.body.innerText`), "e2e-script"))
}
