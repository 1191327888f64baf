package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otherServer is another HTTP server on a loopback port of this machine (a dev
// server, or one a crafted session links to), recording every request it gets.
type otherServer struct {
	base string
	mu   sync.Mutex
	reqs []string // each request as it came over the wire, headers included
}

func startOtherServer(t *testing.T) *otherServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	o := &otherServer{base: "http://" + ln.Addr().String()}
	hs := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dump, _ := httputil.DumpRequest(r, true)
		o.mu.Lock()
		o.reqs = append(o.reqs, string(dump))
		o.mu.Unlock()
		switch r.URL.Path {
		case "/page":
			// A page that, as a crafted page would, loads an image, calls fetch with
			// credentials, and links on.
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>other</title><img src="/img">
<a id="next" href="/link">next</a>
<script>fetch('/fetch', {credentials: 'include'}).then(() => document.title = 'fetched')</script>`)
		default:
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "ok")
		}
	})}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return o
}

func (o *otherServer) requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.reqs...)
}

// TestCredentialStaysOnItsPort signs a browser in to the served UI, then has it
// reach another server on another loopback port in every ordinary way (a link
// clicked in the UI, a page of that server loading an image, calling fetch and
// following a link, the address typed in): that server must receive the token in
// no header, cookie or URL. Cookies ignore ports, so a token cookie for
// 127.0.0.1 used to go to it.
func TestCredentialStaysOnItsPort(t *testing.T) {
	e := need(t)
	other := startOtherServer(t)
	token := e.server.Token()
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	assert.NotContains(t, eval[string](t, ctx, `location.href`), token, "the token left the address bar")
	hist, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
	require.NoError(t, err)
	for _, h := range hist.Entries {
		assert.NotContains(t, h.URL, token, "the history keeps no entry with the token")
	}
	assert.Equal(t, token, eval[string](t, ctx, `sessionStorage.getItem('logbook.token')`))

	// A link in the UI (as a crafted session's markdown might render one, here
	// without rel=noreferrer) to the other port.
	require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const a = document.createElement('a'); a.id = 'crafted'; a.href = %q; a.textContent = 'crafted';
		document.body.prepend(a); })()`, other.base+"/page?from=logbook"), chromedp.EvalAwaitPromise)))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#crafted`)), chromedp.WaitVisible(chromedp.CSS(`#next`))))
	poll(t, ctx, `document.title === 'fetched' && document.querySelector('img').complete`, "the other page's fetch and image")
	assert.Zero(t, eval[int](t, ctx, `sessionStorage.length`), "the other origin sees none of the UI's session storage")
	assert.Empty(t, eval[string](t, ctx, `document.referrer`))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#next`)), chromedp.WaitReady(chromedp.CSS(`body`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(other.base+"/typed")))

	// Back on the UI's port, the page still signs in (the tab's session storage),
	// through a reload as well.
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="session-row"]`))))
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('[data-testid="link-banner"]')`), "signed in after a reload")

	reqs := other.requests()
	var paths []string
	for _, r := range reqs {
		paths = append(paths, strings.Fields(r)[1])
		assert.NotContains(t, r, token, "the other server got the token:\n%s", r)
		assert.NotContains(t, strings.ToLower(r), "logbook_token", "the other server got a Logbook cookie:\n%s", r)
	}
	for _, want := range []string{"/page?from=logbook", "/img", "/fetch", "/link", "/typed"} {
		assert.Contains(t, paths, want, "the browser reached the other server")
	}
	t.Logf("the other server got %d requests, none with the token: %v", len(reqs), paths)
}

// TestPageWithoutTheLink opens the UI's address without its token: in a browser
// where another tab is signed in, the new tab gets the token from it (tabs of one
// origin only); in a browser where none is, the page says to open the link.
func TestPageWithoutTheLink(t *testing.T) {
	e := need(t)
	ctx := browser(t, e, 1280, 800) // signed in
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	require.NoError(t, chromedp.Do(tab))
	open(t, tab, e, "#/sessions", `[data-testid="session-row"]`)
	assert.Equal(t, e.server.Token(), eval[string](t, tab, `sessionStorage.getItem('logbook.token')`))

	fresh := oneBrowser(t, 1280, 800)
	require.NoError(t, chromedp.Do(fresh, chromedp.Navigate(e.base+"#/sessions")))
	poll(t, fresh, `!!document.querySelector('[data-testid="link-banner"]')`, "the sign-in notice")
	assert.Contains(t, eval[string](t, fresh, `document.querySelector('[data-testid="link-banner"]').textContent`),
		"not signed in")
	shot(t, fresh, e, "not-signed-in")
}
