package e2e

import (
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
