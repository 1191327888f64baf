package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/index"
)

// The find in a session counts every match and steps to any of them, past the
// 5,000 hits it once stopped at: a generated session with a word in more blocks.
func TestFindCountsEveryMatch(t *testing.T) {
	l := dshgen.Generate(dshgen.Options{Seed: 23, Turns: 1800, Cwd: "/home/u/many"})
	e := serveLog(t, l)
	// The oracle: the index's exact count of a word the blocks keep repeating.
	word, total := "", uint64(0)
	for _, w := range []string{"the", "a", "to", "and", "of", "is", "in", "file", "error", "test"} {
		r, err := e.index.Search(t.Context(), index.Query{Text: fmt.Sprintf("session:%s %s", l.ID(), w), Exhaustive: true, Limit: 1})
		require.NoError(t, err)
		if r.Total > total {
			word, total = w, r.Total
		}
	}
	require.Greater(t, total, uint64(5000), "a word in more than 5,000 blocks of the session (%q)", word)

	ctx := browser(t, e, 1280, 800)
	counter := `(document.querySelector('[data-testid="find-counter"]') || {}).textContent`
	open(t, ctx, e, "#/session/"+l.ID()+"?q="+word, `[data-testid="session-find"]`)
	want := fmt.Sprintf("%s matches", thousands(int64(total)))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](counter+` === '`+want+`'`, chromedp.WithPollingTimeout(60*time.Second)))
	require.NoError(t, err, "every match counted and loaded: %q (now %q)", want, eval[string](t, ctx, counter))

	// From the end of the session, N goes to the match before the reading position:
	// one of the last, far past the 5,000th, marked; n then goes to the next.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.conv .topbar .ttl`)), chromedp.KeyEvent(kb.End)))
	poll(t, ctx, `!!document.querySelector('[data-testid="conversation-end"]')`, "the end of the session")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("N")))
	all := thousands(int64(total))
	poll(t, ctx, counter+fmt.Sprintf(`.endsWith(' of %s')`, all), "a match stepped to")
	var n int64
	_, err = fmt.Sscanf(strings.ReplaceAll(eval[string](t, ctx, counter), ",", ""), "%d of", &n)
	require.NoError(t, err)
	assert.Greater(t, n, int64(5000), "a match past the 5,000th")
	poll(t, ctx, `!!CSS.highlights.get('logbook-find-current')?.size`, "the match marked")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("n")))
	next := n + 1
	if next > int64(total) {
		next = 1
	}
	poll(t, ctx, counter+fmt.Sprintf(` === '%s of %s'`, thousands(next), all), "n goes to the next match")
	poll(t, ctx, `!!CSS.highlights.get('logbook-find-current')?.size`, "the next match marked")
	shot(t, ctx, e, "find-every-match")
	assert.NotContains(t, eval[string](t, ctx, counter), "loaded")
}
