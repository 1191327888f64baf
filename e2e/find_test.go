package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// lateWord is a word of a long tool output that only its late line holds, in the
// whole archive: a search for it has exactly one hit, deep in a folded output.
type lateWord struct {
	session string
	call    archive.ToolCall
	word    string
	line    int // 1-based, in the output
	lines   int
}

var wordRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]{7,30}`)

// findLateWord picks, in the real session (else any), a tool output of more
// than 100 lines and a word first seen past its 40th line that no other block
// of the archive holds.
func findLateWord(t *testing.T, e *env) lateWord {
	t.Helper()
	ss, err := e.store.ListSessions(t.Context(), archive.SessionFilter{})
	require.NoError(t, err)
	ids := []string{}
	if e.realID != "" {
		ids = append(ids, e.realID)
	}
	for _, s := range ss {
		if s.ID != e.realID {
			ids = append(ids, s.ID)
		}
	}
	tried := 0
	for _, id := range ids {
		calls, err := e.store.ToolCalls(t.Context(), id)
		require.NoError(t, err)
		for _, c := range calls {
			if c.Output == nil || c.ResultSeq == nil || c.IsError {
				continue
			}
			lines := strings.Split(strings.TrimRight(*c.Output, "\n"), "\n")
			if len(lines) < 100 {
				continue
			}
			seen := strings.ToLower(strings.Join(lines[:40], "\n"))
			for i := 40; i < len(lines) && tried < 400; i++ {
				for _, w := range wordRE.FindAllString(lines[i], -1) {
					lw := strings.ToLower(w)
					if strings.Contains(seen, lw) || strings.Contains(strings.ToLower(strings.Join(lines[i+1:], "\n")), lw) {
						continue
					}
					if strings.Count(strings.ToLower(lines[i]), lw) != 1 {
						continue
					}
					tried++
					res, err := e.index.Search(t.Context(), index.Query{Text: lw, Limit: 5})
					require.NoError(t, err)
					if res.Total == 1 && res.Hits[0].Seq == *c.ResultSeq {
						return lateWord{session: id, call: c, word: w, line: i + 1, lines: len(lines)}
					}
				}
				seen += "\n" + strings.ToLower(lines[i])
			}
		}
	}
	t.Fatal("no long tool output with a word of its own on a late line")
	return lateWord{}
}

// jsFind reads the find's marks: the current word, its line and where it is.
const jsFind = `(() => {
	const cur = CSS.highlights.get('logbook-find-current'), line = CSS.highlights.get('logbook-find-line');
	const all = CSS.highlights.get('logbook-find');
	if (!cur || cur.size !== 1) return null;
	const r = [...cur][0], l = line && [...line][0];
	const pre = r.startContainer.parentElement.closest('pre');
	const item = r.startContainer.parentElement.closest('[data-testid="item"]');
	const box = document.querySelector('.vl').getBoundingClientRect(), rr = r.getBoundingClientRect();
	let lineNo = 0;
	if (pre) { const t = document.createRange(); t.setStart(pre, 0); t.setEnd(r.startContainer, r.startOffset); lineNo = t.toString().split('\n').length; }
	const toggle = pre && pre.closest('.box') && pre.closest('.box').querySelector('[data-testid="fold-toggle"]');
	return { word: r.toString(), line: l ? l.toString() : '', lineNo, seq: item ? item.dataset.seq : '',
		inResult: !!r.startContainer.parentElement.closest('[data-testid="tool-result"]'),
		expanded: toggle ? toggle.getAttribute('aria-expanded') : 'none',
		inView: rr.top >= box.top && rr.bottom <= box.bottom && rr.height > 0,
		all: all ? all.size : 0 };
})()`

type findState struct {
	Word     string `json:"word"`
	Line     string `json:"line"`
	LineNo   int    `json:"lineNo"`
	Seq      string `json:"seq"`
	InResult bool   `json:"inResult"`
	Expanded string `json:"expanded"`
	InView   bool   `json:"inView"`
	All      int    `json:"all"`
}

func TestSearchHitOpensMarkedLine(t *testing.T) {
	e := need(t)
	w := findLateWord(t, e)
	t.Logf("%s: seq %d, line %d of %d: %q", w.session, w.call.CallSeq, w.line, w.lines, w.word)
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/search?q="+w.word, `[data-testid="search-hit"]`)
	hit := fmt.Sprintf(`[data-testid="search-hit"][data-seq="%d"]`, *w.call.ResultSeq)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(hit))))
	poll(t, ctx, `location.hash.startsWith('#/session/')`, "the conversation")
	poll(t, ctx, `(() => { const s = `+jsFind+`; return !!s && s.inView; })()`, "the hit's word marked and in view")
	time.Sleep(400 * time.Millisecond) // heights settle; the word must stay put
	got := eval[findState](t, ctx, jsFind)
	assert.Equal(t, strings.ToLower(w.word), strings.ToLower(got.Word), "the marked word is the query's")
	assert.Equal(t, fmt.Sprint(w.call.CallSeq), got.Seq, "in the tool call's item")
	assert.True(t, got.InResult, "inside its result")
	assert.Equal(t, "true", got.Expanded, "the folded output is unfolded")
	assert.Equal(t, w.line, got.LineNo, "on the matching line of the output")
	want := strings.Split(strings.TrimRight(*w.call.Output, "\n"), "\n")[w.line-1]
	assert.Equal(t, strings.TrimSpace(want), strings.TrimSpace(got.Line), "the whole line is marked")
	assert.True(t, got.InView, "the word is on screen")
	assert.Equal(t, "1 of 1", eval[string](t, ctx, `document.querySelector('[data-testid="find-counter"]').textContent`))
	shot(t, ctx, e, "find-hit-marked-line")
}

// sessionHits is every hit of q within session id, as the index has them.
func sessionHits(t *testing.T, e *env, q, id string) index.Result {
	t.Helper()
	res, err := e.index.Search(t.Context(), index.Query{Text: q + " session:" + id, Sort: index.SortRecent, Limit: index.MaxLimit})
	require.NoError(t, err)
	return res
}

// busyWord is a word with between lo and hi matches in the real session.
func busyWord(t *testing.T, e *env, lo, hi uint64) (string, uint64) {
	t.Helper()
	if e.realID == "" {
		t.Skip("the real corpus is not available")
	}
	for _, w := range []string{"gitignore", "timeout", "webpack", "electron", "installer", "sandbox", "error", "config", "npm"} {
		if n := sessionHits(t, e, w, e.realID).Total; n >= lo && n <= hi {
			return w, n
		}
	}
	t.Fatal("no word with a fitting number of matches in the real session")
	return "", 0
}

// pollShot is poll with a screenshot of the page when it gives up.
func pollShot(t *testing.T, ctx context.Context, e *env, expr, what, name string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		shot(t, ctx, e, name+"-failed")
	}
	require.NoError(t, err, "waiting for %s (%s)", what, expr)
}

func hashSeq(t *testing.T, ctx context.Context) int64 {
	t.Helper()
	var seq int64
	_, err := fmt.Sscanf(eval[string](t, ctx, `new URLSearchParams(location.hash.split('?')[1] || '').get('seq') || '-1'`), "%d", &seq)
	require.NoError(t, err)
	return seq
}

func TestFindInSessionSteps(t *testing.T) {
	e := need(t)
	word, total := busyWord(t, e, 4, 300)
	t.Logf("%q: %d matches", word, total)
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/session/"+e.realID, `[data-testid="item"]`)
	// "/" opens the find here (not the Search view), with the keyboard in it.
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("/")))
	poll(t, ctx, `document.activeElement && document.activeElement.dataset.testid === 'session-find-input'`, "the find box focused")
	assert.True(t, eval[bool](t, ctx, `location.hash.startsWith('#/session/')`), "still in the conversation")
	// DevTools' key events send the character apart from the keydown, so the "/" the
	// page cancelled may still land in the box: empty it.
	eval[bool](t, ctx, `(() => { const i = document.activeElement; i.value = ''; i.dispatchEvent(new Event('input')); return true; })()`)
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(`[data-testid="session-find-input"]`, word+"\r")))
	counter := `document.querySelector('[data-testid="find-counter"]').textContent`
	want1 := fmt.Sprintf("1 of %d", total)
	poll(t, ctx, counter+` === '`+want1+`'`, "the counter at the first match")
	poll(t, ctx, `(() => { const s = `+jsFind+`; return !!s && s.inView; })()`, "the first match marked in view")
	first := eval[findState](t, ctx, jsFind)
	assert.Equal(t, strings.ToLower(word), strings.ToLower(first.Word))
	firstSeq := hashSeq(t, ctx)

	// n steps forward in reading order; N back; N from the first wraps to the last.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.vl`)))) // the keyboard leaves the box
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("n")))
	poll(t, ctx, counter+fmt.Sprintf(` === '2 of %d'`, total), "n: the second match")
	poll(t, ctx, `(() => { const s = `+jsFind+`; return !!s && s.inView; })()`, "the second match marked in view")
	assert.GreaterOrEqual(t, hashSeq(t, ctx), firstSeq, "n goes forward")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("N")))
	poll(t, ctx, counter+` === '`+want1+`'`, "N: back to the first")
	assert.Equal(t, firstSeq, hashSeq(t, ctx))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("N")))
	poll(t, ctx, counter+fmt.Sprintf(` === '%d of %d'`, total, total), "N from the first: the last")
	pollShot(t, ctx, e, `(() => { const s = `+jsFind+`; return !!s && s.inView; })()`, "the last match marked in view", "find-last")
	hits := sessionHits(t, e, word, e.realID)
	var last int64 = -1
	for _, h := range hits.Hits {
		last = max(last, h.Seq)
	}
	assert.Equal(t, last, hashSeq(t, ctx), "the last match is the last block of the session holding the word")
	// The buttons do what the keys do.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="find-next"]`))))
	poll(t, ctx, counter+` === '`+want1+`'`, "the next button wraps to the first")
	shot(t, ctx, e, "find-in-session")

	// Escape closes it and clears the marks; Ctrl+F opens it again.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="find-close"]`))))
	poll(t, ctx, `!document.querySelector('[data-testid="session-find"]') && !(CSS.highlights.get('logbook-find-current')?.size)`, "the find closed")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("f", chromedp.KeyModifiers(chromedp.ModifierCtrl))))
	poll(t, ctx, `document.activeElement && document.activeElement.dataset.testid === 'session-find-input'`, "Ctrl+F opens the find")
}

func TestBackToSearchResultsWhereTheyWere(t *testing.T) {
	e := need(t)
	word := "error"
	all, err := e.index.Search(t.Context(), index.Query{Text: word, Limit: 1})
	require.NoError(t, err)
	total := all.Total
	ctx := browser(t, e, 1280, 700)
	open(t, ctx, e, "#/search?q="+word, `[data-testid="search-hit"]`)
	// A session with more matches than the first page shows: its group says how many it
	// holds, the same count the index has for it.
	group := `[...document.querySelectorAll('section.group')].find(g => / hits · /.test(g.querySelector('[data-testid="group-count"]').textContent))`
	pollShot(t, ctx, e, `!!`+group, "a group's own count", "find-group-count")
	sid := eval[string](t, ctx, group+`.querySelector('[data-testid="search-hit"]').dataset.session`)
	n := sessionHits(t, e, word, sid).Total
	assert.Equal(t, fmt.Sprintf("%d hits · ", n), strings.SplitAfter(eval[string](t, ctx, group+`.querySelector('[data-testid="group-count"]').textContent`), "· ")[0])
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('[data-testid="search-total"]').textContent`), fmt.Sprint(total))

	// Scroll the results, open a hit further down, come back.
	eval[bool](t, ctx, `(document.querySelector('.content').scrollTop = 900, true)`)
	time.Sleep(200 * time.Millisecond)
	top := eval[float64](t, ctx, `document.querySelector('.content').scrollTop`)
	require.Greater(t, top, 500.0, "the results scroll")
	hit := `[...document.querySelectorAll('[data-testid="search-hit"]')].find(a => { const r = a.getBoundingClientRect(); return r.top > 80 && r.bottom < innerHeight && a.dataset.seq !== '-1'; })`
	eval[bool](t, ctx, `(`+hit+`.click(), true)`)
	poll(t, ctx, `location.hash.startsWith('#/session/') && !!document.querySelector('[data-testid="back-to-search"]')`, "the conversation")
	poll(t, ctx, `!!document.querySelector('[data-testid="item"].target')`, "the hit")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="back-to-search"]`))))
	poll(t, ctx, `location.hash.startsWith('#/search') && !!document.querySelector('[data-testid="search-hit"]')`, "the results again")
	time.Sleep(200 * time.Millisecond)
	assert.InDelta(t, top, eval[float64](t, ctx, `document.querySelector('.content').scrollTop`), 2, "scrolled where they were")
	assert.Contains(t, eval[string](t, ctx, `location.hash`), "q="+word)
	shot(t, ctx, e, "find-back-to-results")
}

func TestSearchHitUnfoldsReasoning(t *testing.T) {
	e := need(t)
	if e.realID == "" {
		t.Skip("the real corpus is not available")
	}
	ms, err := e.store.Messages(t.Context(), e.realID)
	require.NoError(t, err)
	// A word only one reasoning block of the archive holds, past its first lines.
	var msg archive.Message
	var word string
	for _, m := range ms {
		if len(m.Reasoning) < 600 || word != "" {
			continue
		}
		for _, w := range wordRE.FindAllString(m.Reasoning[len(m.Reasoning)/2:], -1) {
			res, err := e.index.Search(t.Context(), index.Query{Text: w, Limit: 2})
			require.NoError(t, err)
			if res.Total == 1 && res.Hits[0].Kind == "reasoning" && strings.Count(strings.ToLower(m.Reasoning), strings.ToLower(w)) == 1 {
				msg, word = m, w
				break
			}
		}
	}
	require.NotEmpty(t, word, "a reasoning block with a word of its own")
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, fmt.Sprintf("#/session/%s?seq=%d&q=%s&hk=reasoning&from=search", e.realID, msg.Seq, word), `[data-testid="item"]`)
	poll(t, ctx, `(() => { const s = `+jsFind+`; return !!s && s.inView; })()`, "the word marked in view")
	got := eval[findState](t, ctx, jsFind)
	assert.Equal(t, strings.ToLower(word), strings.ToLower(got.Word))
	assert.Equal(t, fmt.Sprint(msg.Seq), got.Seq)
	assert.True(t, eval[bool](t, ctx, `!![...CSS.highlights.get('logbook-find-current')][0].startContainer.parentElement.closest('[data-testid="reasoning"]')`),
		"inside the reasoning, unfolded")
	shot(t, ctx, e, "find-hit-reasoning")
}
