package e2e

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

func TestTurnDividerTokens(t *testing.T) {
	e := need(t)
	ts := realTurns(t, e)
	rows, err := e.store.SessionUsage(t.Context(), e.realID)
	require.NoError(t, err)
	// The oracle: the archive's usage of each turn, every model summed.
	want := map[int64]archive.Tokens{}
	for _, r := range rows {
		if n, err := strconv.ParseInt(r.Key, 10, 64); err == nil {
			want[n] = want[n].Add(r.Tokens)
		}
	}
	require.NotEmpty(t, want, "the real session reports usage per turn")
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/session/"+e.realID, `[data-testid="turn-line"]`)
	// Jump to each of two turns: its header names its tokens, exactly as the archive has them.
	for _, tu := range []archive.TurnSummary{ts[0], ts[len(ts)-1]} {
		w, ok := want[tu.Turn]
		if !ok {
			continue
		}
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="turn-line"][data-turn="%d"]`, tu.Turn)))))
		poll(t, ctx, headerAtTop(tu.Turn), fmt.Sprintf("turn %d's header at the top", tu.Turn))
		sel := fmt.Sprintf(`[...document.querySelectorAll('[data-testid="turn-start"]')].find(h => h.querySelector('.pill').textContent.trim() === 'Turn %d')?.querySelector('[data-testid="turn-tokens"]')`, tu.Turn)
		poll(t, ctx, "!!"+sel, fmt.Sprintf("turn %d's tokens", tu.Turn))
		title := eval[string](t, ctx, sel+".title")
		assert.Equal(t, fmt.Sprintf("Tokens in this turn: input %s · output %s · reasoning %s · cache read %s",
			thousands(w.Input), thousands(w.Output), thousands(w.Reasoning), thousands(w.CacheRead)), title, "turn %d", tu.Turn)
		assert.Contains(t, eval[string](t, ctx, sel+".textContent"), " in · ", "turn %d's divider says it in short", tu.Turn)
	}
	shot(t, ctx, e, "turn-tokens")
}

// thousands writes n as toLocaleString('en-US') does.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
