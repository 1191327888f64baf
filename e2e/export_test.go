package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/exporttest"
)

// exportPage writes t as HTML into a temporary file and returns its file:// URL.
func exportPage(t *testing.T, tr *export.Transcript, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".html")
	f, err := os.Create(p)
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, export.WriteHTML(f, tr))
	require.NoError(t, f.Close())
	fi, _ := os.Stat(p)
	t.Logf("%s: %d bytes of HTML written in %v", name, fi.Size(), time.Since(start).Round(time.Millisecond))
	return "file://" + p
}

// offlineTab is a fresh headless Chromium tab that records every network request
// its pages make (a file:// page's own load included).
func offlineTab(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(allocator(t, 1280, 900))
	ctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { tcancel(); cancel() })
	var mu sync.Mutex
	var urls []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		var url string
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			url = e.Request.URL
		case network.EventRequestWillBeSent:
			url = e.Request.URL
		default:
			return
		}
		mu.Lock()
		urls = append(urls, url)
		mu.Unlock()
	}))
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), urls...)
	}
}

// loadTimes opens url and returns the time to DOMContentLoaded and to first paint
// as the page's own performance timeline measured them, in milliseconds.
func loadTimes(t *testing.T, ctx context.Context, url string) (dcl, paint float64) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body"))))
	poll(t, ctx, `performance.getEntriesByType('paint').length > 0`, "first paint")
	dcl = eval[float64](t, ctx, `performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd`)
	paint = eval[float64](t, ctx, `performance.getEntriesByType('paint')[0].startTime`)
	return dcl, paint
}

// onlyFile fails on any request but the page itself.
func onlyFile(t *testing.T, url string, requests []string) {
	t.Helper()
	for _, u := range requests {
		assert.Equal(t, url, u, "the exported page requested something besides itself")
	}
}

// The real 87k-event session, exported as HTML, opens fast and offline.
func TestExportHTMLRealLogOpensFast(t *testing.T) {
	e := need(t)
	if e.realID == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("the real log is missing in CI")
		}
		t.Skip("the shared corpus is not on this machine")
	}
	tr, err := export.Load(context.Background(), e.store, e.realID)
	require.NoError(t, err)
	url := exportPage(t, tr, "real")
	ctx, requests := offlineTab(t)
	dcl, paint := loadTimes(t, ctx, url)
	t.Logf("real log (%d items): DOMContentLoaded %.0f ms, first paint %.0f ms", len(tr.Items), dcl, paint)
	assert.Less(t, dcl, 3000.0, "DOMContentLoaded within 3 s")
	assert.Less(t, paint, 3000.0, "first paint within 3 s")
	onlyFile(t, url, requests())

	// The search script runs (the CSP allows it by its hash) and finds text.
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#q"), "deepseek\r")))
	poll(t, ctx, `/^1 \/ \d+$/.test(document.getElementById('count').textContent)`, "the first search hit")
	shot(t, ctx, e, "export-real-search")

	// The page follows the reader's colour scheme with the UI's tokens.
	assert.Equal(t, "rgb(247, 247, 245)", eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`), "light --bg")
	_, err = chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
	require.NoError(t, err)
	assert.Equal(t, "rgb(22, 23, 26)", eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`), "dark --bg")
	shot(t, ctx, e, "export-real-dark")
}

// Payloads planted in a session's texts stay inert text in the exported page.
func TestExportHTMLPayloadsInert(t *testing.T) {
	e := need(t)
	ctx := context.Background()
	s := archive.New(filepath.Join(t.TempDir(), "logbook.db"))
	require.NoError(t, s.Open(ctx))
	defer s.Close()
	root := t.TempDir()
	l := exporttest.Hostile("session-hostile-e2e")
	_, err := l.WriteFile(root, false)
	require.NoError(t, err)
	_, err = s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	tr, err := export.Load(ctx, s, l.ID())
	require.NoError(t, err)
	url := exportPage(t, tr, "hostile")

	tab, requests := offlineTab(t)
	loadTimes(t, tab, url)
	assert.Equal(t, "undefined", eval[string](t, tab, `typeof window.pwned`), "no planted script ran")
	assert.Equal(t, 0, eval[int](t, tab, `document.images.length`), "no planted image element")
	assert.Equal(t, 1, eval[int](t, tab, `document.scripts.length`), "only the page's own script")
	body := eval[string](t, tab, `document.body.textContent`)
	assert.True(t, strings.Contains(body, `<img src=x onerror="window.pwned=3">`), "the payload shows as text")
	assert.True(t, strings.Contains(body, `<script>window.pwned=1</script>`), "the payload shows as text")
	onlyFile(t, url, requests())
	shot(t, tab, e, "export-hostile")
}

// serveLog serves a data dir that has imported l.
func serveLog(t *testing.T, l *dshgen.Log) *env {
	t.Helper()
	base := need(t)
	e := &env{dataDir: t.TempDir(), artifacts: base.artifacts}
	root := filepath.Join(e.dataDir, "sessions")
	_, err := l.WriteFile(root, false)
	require.NoError(t, err)
	sctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	t.Cleanup(e.close)
	require.NoError(t, e.serve(sctx, []string{root}))
	return e
}

// The Export dialog of the conversation view: markdown with redaction, e-mail
// addresses kept by category, everything else replaced in the downloaded file.
func TestExportDialogRedacts(t *testing.T) {
	l, c := exporttest.Planted(5, "session-planted-e2e")
	e := serveLog(t, l)

	b := browser(t, e, 1280, 900)
	open(t, b, e, "#/session/"+l.ID(), `[data-testid="export-open"]`)
	// Keep what the browser downloads, to read it back.
	dl := keepDownloads(t, b)
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="export-format-md"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="export-redact"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-category"][data-category="email"]`))))
	// Name the people the session mentions: the scan runs again and finds them.
	before := eval[string](t, b, `document.querySelector('[data-testid="export-findings"] p').textContent`)
	require.NoError(t, chromedp.Do(b, chromedp.SendKeys(chromedp.CSS(`[data-testid="export-names"]`), strings.Join(c.UserNames, ", ")+"\t")))
	poll(t, b, `(() => { const p = document.querySelector('[data-testid="export-findings"] p'); return p && p.textContent !== `+
		strconv.Quote(before)+` && !p.textContent.startsWith('Scanning') })()`, "the findings with the names")
	// Keep e-mail addresses, look at one category's findings, then export.
	require.NoError(t, chromedp.Do(b,
		chromedp.Click(chromedp.CSS(`[data-testid="export-category"][data-category="email"] input[type=checkbox]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="export-category"][data-category="token"] button`))))
	shot(t, b, e, "export-dialog-findings")
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
	md := readFile(t, downloaded(t, dl, 0, l.ID()+".md"))
	require.True(t, strings.HasPrefix(md, "# "), "a Markdown file was downloaded")
	assert.Contains(t, md, "[REDACTED:")
	keptEmail := false
	for _, o := range c.Occurrences {
		switch o.Category {
		case "email":
			keptEmail = keptEmail || strings.Contains(md, o.Secret.Value)
		default:
			assert.NotContains(t, md, o.Secret.Value, "a planted %s secret is in the download", o.Kind)
		}
	}
	assert.True(t, keptEmail, "the e-mail addresses the person kept are in the download")
	assert.NotContains(t, md, "[REDACTED:email")
}

// The Export dialog opened from a search hit (the conversation's ?seq=) offers
// the turns around it, and a turn range; the downloads hold those turns only.
func TestExportDialogPart(t *testing.T) {
	l := dshgen.Generate(dshgen.Options{Seed: 3, Turns: 6, Cwd: "/home/dev/part"})
	e := serveLog(t, l)
	sctx := context.Background()
	// A message of turn 4, where a search hit would open the conversation.
	s, err := archive.Open(sctx, filepath.Join(e.dataDir, "logbook.db"))
	require.NoError(t, err)
	page, err := s.Timeline(sctx, l.ID(), archive.TimelineQuery{Limit: archive.MaxTimelineLimit})
	require.NoError(t, s.Close())
	require.NoError(t, err)
	seq := int64(-1)
	for _, it := range page.Items {
		if it.Message != nil && it.Turn != nil && *it.Turn == 4 {
			seq = it.Seq
			break
		}
	}
	require.NotEqual(t, int64(-1), seq)

	b := browser(t, e, 1280, 900)
	open(t, b, e, "#/session/"+l.ID()+"?seq="+strconv.FormatInt(seq, 10), `[data-testid="export-open"]`)
	dl := keepDownloads(t, b)
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="export-format-md"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="export-part-around"]`))))
	eval[bool](t, b, `(() => { const i = document.querySelector('[data-testid="export-context"]'); i.value = '0';
		i.dispatchEvent(new Event('input', {bubbles: true})); i.dispatchEvent(new Event('change', {bubbles: true})); return true })()`)
	shot(t, b, e, "export-dialog-part")
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
	md := readFile(t, downloaded(t, dl, 0, l.ID()+".md"))
	assert.Contains(t, md, "around seq "+strconv.FormatInt(seq, 10))
	assert.Contains(t, md, "## Turn 4\n")
	assert.NotContains(t, md, "## Turn 3\n")
	assert.NotContains(t, md, "## Turn 5\n")

	require.NoError(t, chromedp.Do(b,
		chromedp.Click(chromedp.CSS(`[data-testid="export-part-turns"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="export-turn-from"]`), "2"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="export-turn-to"]`), "3\t"),
		chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`))))
	md = readFile(t, downloaded(t, dl, 1, l.ID()+".md"))
	assert.Contains(t, md, "## Turn 2\n")
	assert.Contains(t, md, "## Turn 3\n")
	assert.NotContains(t, md, "## Turn 4\n")
	assert.Contains(t, md, "Excerpt | turns 2-3;")
}
