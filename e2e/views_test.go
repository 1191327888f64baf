package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
)

// sessionWith returns the id of a generated session for which ok is true.
func sessionWith(t *testing.T, e *env, ok func(archive.Session) bool) archive.Session {
	t.Helper()
	ss, err := e.store.ListSessions(t.Context(), archive.SessionFilter{})
	require.NoError(t, err)
	for _, s := range ss {
		if s.ID != e.realID && ok(s) {
			return s
		}
	}
	t.Fatal("no generated session fits")
	return archive.Session{}
}

func TestSessionsListOpensConversation(t *testing.T) {
	e := need(t)
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="session-row"]').length`)
	ss, err := e.store.ListSessions(t.Context(), archive.SessionFilter{})
	require.NoError(t, err)
	assert.Equal(t, len(ss), n, "every session has a row")
	shot(t, ctx, e, "sessions")

	// Open the busiest generated session by clicking its row.
	s := sessionWith(t, e, func(s archive.Session) bool { return s.ToolCalls > 0 })
	sel := fmt.Sprintf(`[data-testid="session-row"][data-session="%s"]`, s.ID)
	if eval[bool](t, ctx, fmt.Sprintf(`!!document.querySelector('%s')`, sel)) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))))
	} else {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.base+"#/session/"+s.ID)))
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="item"]`))))
	poll(t, ctx, `location.hash.startsWith('#/session/')`, "the conversation route")
}

func TestToolCallPairedWithResult(t *testing.T) {
	e := need(t)
	s := sessionWith(t, e, func(s archive.Session) bool { return s.ToolCalls > 0 })
	calls, err := e.store.ToolCalls(t.Context(), s.ID)
	require.NoError(t, err)
	var want archive.ToolCall
	for _, c := range calls {
		if c.Output != nil && strings.TrimSpace(*c.Output) != "" {
			want = c
			break
		}
	}
	require.NotEmpty(t, want.CallID, "a call with output")
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, fmt.Sprintf("#/session/%s?seq=%d", s.ID, want.CallSeq), `[data-testid="tool-card"] [data-testid="tool-result"]`)
	card := fmt.Sprintf(`[data-testid="item"][data-seq="%d"] [data-testid="tool-card"]`, want.CallSeq)
	poll(t, ctx, fmt.Sprintf(`!!document.querySelector('%s [data-testid="tool-result"]')`, card), "the paired result in the call's card")
	text := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s').innerText`, card))
	assert.Contains(t, text, want.Name, "the card names the tool")
	first := strings.SplitN(strings.TrimSpace(*want.Output), "\n", 2)[0]
	if len(first) > 40 {
		first = first[:40]
	}
	assert.Contains(t, text, strings.TrimSpace(first), "the card shows the result")
	shot(t, ctx, e, "conversation-tool")
}

func TestReasoningExpands(t *testing.T) {
	e := need(t)
	var msg archive.Message
	ss, err := e.store.ListSessions(t.Context(), archive.SessionFilter{})
	require.NoError(t, err)
	for _, s := range ss {
		ms, err := e.store.Messages(t.Context(), s.ID)
		require.NoError(t, err)
		for _, m := range ms {
			if m.Reasoning != "" && m.Surface == "current" {
				msg = m
				break
			}
		}
		if msg.SessionID != "" {
			break
		}
	}
	require.NotEmpty(t, msg.SessionID, "a message with reasoning")
	ctx := browser(t, e, 1280, 800)
	item := fmt.Sprintf(`[data-testid="item"][data-seq="%d"]`, msg.Seq)
	open(t, ctx, e, fmt.Sprintf("#/session/%s?seq=%d", msg.SessionID, msg.Seq), item+` [data-testid="reasoning-toggle"]`)
	body := item + ` [data-testid="reasoning"]`
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('`+body+`')`), "reasoning starts collapsed")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(item+` [data-testid="reasoning-toggle"]`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(body))))
	got := eval[string](t, ctx, `document.querySelector('`+body+`').textContent`)
	assert.Equal(t, strings.TrimSpace(msg.Reasoning), strings.TrimSpace(got), "the whole reasoning, exactly")
	shot(t, ctx, e, "conversation-reasoning")
}

func TestCompactionRevealsShadowedOriginals(t *testing.T) {
	e := need(t)
	cs, err := e.store.Compactions(t.Context(), archive.ItemFilter{})
	require.NoError(t, err)
	var c archive.Compaction
	for _, x := range cs {
		if x.Kind == "compaction" && x.Status == "ok" && len(x.ShadowedSeqs) > 0 {
			c = x
			break
		}
	}
	require.NotEmpty(t, c.CompactionID, "a finished compaction that shadowed messages")
	seq := *c.StartSeq
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, fmt.Sprintf("#/session/%s?seq=%d", c.SessionID, seq), `[data-testid="compaction-card"] [data-testid="reveal-shadowed"]`)
	visibleShadowed := `[...document.querySelectorAll('.shadowed')].filter(n => n.offsetParent !== null).length`
	assert.Equal(t, 0, eval[int](t, ctx, visibleShadowed), "replaced messages are hidden until asked for")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="compaction-card"] [data-testid="reveal-shadowed"]`))))
	poll(t, ctx, visibleShadowed+` > 0`, "the shadowed originals in place")
	shot(t, ctx, e, "conversation-compaction-revealed")
}

func TestChineseSearchJumpsToHit(t *testing.T) {
	e := need(t)
	if e.realID == "" {
		t.Skip("the real corpus is not available")
	}
	ctx := browser(t, e, 1280, 800)
	q := "写入权限"
	open(t, ctx, e, "#/search?q="+q, `[data-testid="search-hit"]`)
	shot(t, ctx, e, "search-chinese")
	// The session's title (测试写入权限) matches too and ranks first; the jump to a
	// block is checked on the first hit inside the conversation.
	assert.Equal(t, "-1", eval[string](t, ctx, `document.querySelector('[data-testid="search-hit"]').dataset.seq`),
		"the title hit comes first")
	hit := `[data-testid="search-hit"]:not([data-seq="-1"])`
	sid := eval[string](t, ctx, `document.querySelector('`+hit+`').dataset.session`)
	seq := eval[string](t, ctx, `document.querySelector('`+hit+`').dataset.seq`)
	assert.Equal(t, e.realID, sid, "the Chinese text is in the real session")
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('`+hit+`').innerHTML`), "<mark>", "the hit is highlighted")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(hit))))
	poll(t, ctx, `location.hash.startsWith('#/session/')`, "the conversation")
	assert.Contains(t, eval[string](t, ctx, `location.hash`), "seq="+seq)
	// The block holding the hit is rendered, marked as the target, and on screen.
	poll(t, ctx, `(() => { const n = document.querySelector('[data-testid="item"].target');
		if (!n) return false; const r = n.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })()`, "the hit's block in view")
	shot(t, ctx, e, "search-jump")
}

// manyBlocks serves an archive of its own holding one generated session of more
// blocks than a relevance search ranks at once.
func manyBlocks(t *testing.T) *env {
	t.Helper()
	base := need(t)
	e := &env{dataDir: t.TempDir(), artifacts: base.artifacts}
	root := filepath.Join(e.dataDir, "generated")
	l := dshgen.Generate(dshgen.Options{Seed: 7, Cwd: "/home/u/many", TargetBytes: 6 << 20, ASCII: true})
	_, err := l.WriteFile(root, true)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	t.Cleanup(e.close)
	require.NoError(t, e.serve(ctx, []string{root}))
	return e
}

func TestSearchRankAll(t *testing.T) {
	e := manyBlocks(t)
	ctx := browser(t, e, 1280, 800)
	// Every block (about 4,800): more than a relevance search ranks at once.
	q := "since:2000-01-01"
	open(t, ctx, e, "#/search?q="+q, `[data-testid="search-hit"]`)
	note := `document.querySelector('[data-testid="search-ranking"]')`
	totalText := `document.querySelector('[data-testid="search-total"]').textContent.trim()`
	require.True(t, eval[bool](t, ctx, note+` !== null`), "the page says it was ranked among the newest matches")
	assert.Regexp(t, `^Ranked among the [\d,]+ newest matches\.\s+Rank all$`, eval[string](t, ctx, note+`.textContent.trim()`))
	total := eval[string](t, ctx, totalText)
	assert.NotContains(t, total, "about", "a filter's total is exact")
	shot(t, ctx, e, "search-ranked-among")

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="search-ranking"] button`))))
	poll(t, ctx, note+` === null && !document.querySelector('.spinner')`, "the exhaustive result")
	assert.Equal(t, total, eval[string](t, ctx, totalText), "the same matches, all ranked")
	assert.True(t, eval[bool](t, ctx, `document.activeElement?.matches('[data-search-input]') ?? false`), "the keyboard stays in the search box")

	// Load more pages the exhaustive search (a planned search's cursor would fail).
	summary := `document.querySelector('.summary').textContent`
	assert.Contains(t, eval[string](t, ctx, summary), "showing 40 ")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.loadmore button`))))
	poll(t, ctx, summary+`.includes('showing 80 ') || document.querySelector('.banner.error') !== null`, "the next page")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('.banner.error') !== null`), "no error")
	shot(t, ctx, e, "search-ranked-all")

	// A new query ranks the newest matches first again.
	open(t, ctx, e, "#/search?q=since:2000-01-02", `[data-testid="search-hit"]`)
	poll(t, ctx, note+` !== null`, "the ranking note of the new query")
}

func TestApprovalsFilterByOutcome(t *testing.T) {
	e := need(t)
	as, err := e.store.Approvals(t.Context(), archive.ItemFilter{})
	require.NoError(t, err)
	counts := map[string]int{}
	for _, a := range as {
		if a.Outcome != nil {
			counts[*a.Outcome]++
		}
	}
	require.GreaterOrEqual(t, len(counts), 2, "generated approvals have several outcomes: %v", counts)
	var outcome string
	for o := range counts {
		if outcome == "" || counts[o] < counts[outcome] {
			outcome = o
		}
	}
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/approvals", `[data-testid="approval-row"]`)
	shot(t, ctx, e, "approvals")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="outcome-filter"][data-outcome="%s"]`, outcome)))))
	rows := `[...document.querySelectorAll('[data-testid="approval-row"]')]`
	poll(t, ctx, rows+`.every(r => r.dataset.outcome === '`+outcome+`')`, "only "+outcome+" rows")
	// Rows may be virtualized; the count shown must match the archive.
	n := eval[int](t, ctx, rows+`.length`)
	assert.LessOrEqual(t, n, counts[outcome])
	assert.Positive(t, n)
	shot(t, ctx, e, "approvals-filtered")
}

func TestRealSessionFirstContent(t *testing.T) {
	e := need(t)
	if e.realID == "" {
		t.Skip("the real corpus is not available")
	}
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	start := time.Now()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.base+"#/session/"+e.realID),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="item"]`))))
	took := time.Since(start)
	t.Logf("87k-event session: first content after %v", took)
	// Virtualized: the DOM holds a window of the conversation, not all of it.
	n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="item"]').length`)
	assert.Less(t, n, 200, "items in the DOM")
	// Scroll to the end: the log ends mid-turn, and the view says so.
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("End")))
	shot(t, ctx, e, "conversation-real")
}

func TestNarrowAndDark(t *testing.T) {
	e := need(t)
	ctx := browser(t, e, 700, 900)
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("t")))
	poll(t, ctx, `document.documentElement.dataset.theme === 'dark' || document.documentElement.dataset.theme === 'light'`, "a theme")
	w := eval[int](t, ctx, `document.documentElement.scrollWidth`)
	assert.LessOrEqual(t, w, 700, "no horizontal overflow at 700 px")
	shot(t, ctx, e, "narrow-theme")
}

func TestCompactionsImportAndSchedulesViews(t *testing.T) {
	e := need(t)
	ctx := browser(t, e, 1280, 800)
	for _, v := range []struct{ route, row, name string }{
		{"#/compactions", `[data-testid="compaction-row"]`, "compactions"},
		{"#/import", `[data-testid="file-row"]`, "import"},
		{"#/schedules", `[data-testid="schedule-row"]`, "schedules"},
	} {
		open(t, ctx, e, v.route, v.row)
		assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('`+v.row+`').length`), v.name)
		shot(t, ctx, e, v.name)
	}
	// Every imported file is listed with its verdict.
	files, err := e.store.Files(t.Context())
	require.NoError(t, err)
	open(t, ctx, e, "#/import", `[data-testid="file-row"]`)
	assert.Equal(t, len(files), eval[int](t, ctx, `document.querySelectorAll('[data-testid="file-row"]').length`))
}

// TestPreReleaseLogsAcceptedFromImportView runs last: it changes the shared archive.
func TestPreReleaseLogsAcceptedFromImportView(t *testing.T) {
	e := need(t)
	if corpusDir() == "" {
		t.Skip("the shared corpus (dsh's pre-release web fixtures) is not available")
	}
	ctx := browser(t, e, 1280, 800)
	open(t, ctx, e, "#/import", `[data-testid="pre-release-callout"] button`)
	corrupt := `document.querySelectorAll('[data-testid="file-row"][data-verdict="corrupt"]').length`
	before := eval[int](t, ctx, corrupt)
	require.Positive(t, before)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="pre-release-callout"] button`))))
	poll(t, ctx, `!document.querySelector('[data-testid="pre-release-callout"]') && `+corrupt+` < `+fmt.Sprint(before),
		"the pre-release files imported")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="lenient-headers"]').checked`))
	shot(t, ctx, e, "import-lenient")
}

func TestStatePanelFollowsReadingPosition(t *testing.T) {
	e := need(t)
	s := sessionWith(t, e, func(s archive.Session) bool { return s.Turns > 5 })
	ctx := browser(t, e, 1400, 900)
	check := func(where string) int64 {
		t.Helper()
		poll(t, ctx, `(() => { const a = document.querySelector('[data-testid="state-panel"] .at'); return !!a && /seq \d+/.test(a.textContent); })()`, "the state panel")
		var seq int64
		_, err := fmt.Sscanf(eval[string](t, ctx, `document.querySelector('[data-testid="state-panel"] .at').textContent`), "seq %d", &seq)
		require.NoError(t, err)
		want, err := e.store.SessionState(t.Context(), s.ID, seq)
		require.NoError(t, err)
		rows, todos := 0, -1
		for _, en := range want.Entries {
			if en.Type == "todo/write" {
				todos = len(en.Marker.Todos)
			} else {
				rows++
			}
		}
		assert.Equal(t, rows, eval[int](t, ctx, `document.querySelectorAll('[data-testid="state-panel"] dt').length`), "%s: state rows at seq %d", where, seq)
		if todos >= 0 {
			assert.Equal(t, todos, eval[int](t, ctx, `document.querySelectorAll('[data-testid="state-panel"] .todos li').length`), "%s: todos at seq %d", where, seq)
		}
		return seq
	}
	open(t, ctx, e, "#/session/"+s.ID, `[data-testid="state-panel"]`)
	first := check("start")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button[aria-label="End of the session"]`))))
	poll(t, ctx, fmt.Sprintf(`(() => { const a = document.querySelector('[data-testid="state-panel"] .at'); return !!a && a.textContent !== 'seq %d'; })()`, first), "the panel following the scroll")
	time.Sleep(300 * time.Millisecond) // let the debounced request settle
	last := check("end")
	assert.Greater(t, last, first)
	shot(t, ctx, e, "conversation-state-panel")
}
