package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

// forecastV1 is the 26-line Go file the scripted session writes; its edit changes
// one line of it (the bug: the reading before the latest instead of the latest).
var forecastV1 = strings.Join([]string{
	"package forecast",
	"",
	`import "time"`,
	"",
	"// Reading is one station measurement.",
	"type Reading struct {",
	"	At    time.Time",
	"	TempC float64",
	"	Wind  float64",
	"}",
	"",
	"// Latest returns the newest reading; readings are sorted oldest first.",
	"func Latest(rs []Reading) (Reading, bool) {",
	"	if len(rs) == 0 {",
	"		return Reading{}, false",
	"	}",
	"	return rs[len(rs)-2], true",
	"}",
	"",
	"// Today is the latest reading if it was taken today.",
	"func Today(rs []Reading, now time.Time) (Reading, bool) {",
	"	r, ok := Latest(rs)",
	"	if !ok || r.At.YearDay() != now.YearDay() {",
	"		return Reading{}, false",
	"	}",
	"	return r, true",
}, "\n") + "\n"

// forecastOld and forecastNew are the edit's old_string and new_string: the
// whole 26-line block with one line changed.
var (
	forecastOld = forecastV1
	forecastNew = strings.Replace(forecastV1, "	return rs[len(rs)-2], true", "	return rs[len(rs)-1], true", 1)
)

const forecastPath = "/home/dev/weather/forecast.go"

// changesEnv is an app over one scripted session that writes a file, edits one
// line of it, and tries an edit that fails.
type changesEnv struct {
	*env
	id      string
	editSeq int64 // the one-line edit's call seq
}

func jsonArgs(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func newChangesEnv(t *testing.T) *changesEnv {
	t.Helper()
	need(t)
	dir := t.TempDir()
	ce := &changesEnv{id: "session-fix-forecast"}
	g := dshgen.New(dshgen.Options{Seed: 11, ID: ce.id, Cwd: "/home/dev/weather", Families: dshgen.FamilyTools,
		CreatedAt: time.Now().Add(-2 * time.Hour).UnixMilli()})
	g.Turn(func(tb *dshgen.Turn) {
		tb.User("The forecast shows yesterday's temperature. Fix it.")
		tb.Step(func(st *dshgen.Step) {
			calls := st.Reply(dshgen.Text("I'll write the module out first."),
				dshgen.ToolCall("write", jsonArgs(t, map[string]any{"file_path": forecastPath, "content": forecastV1})))
			st.RunTool(calls[0], dshgen.Result{Text: "Wrote 26 lines to " + forecastPath})
		})
		tb.Step(func(st *dshgen.Step) {
			calls := st.Reply(dshgen.Text("`rs[len(rs)-2]` is the reading before the latest; the latest is `rs[len(rs)-1]`."),
				dshgen.ToolCall("edit", jsonArgs(t, map[string]any{"file_path": forecastPath, "old_string": forecastOld, "new_string": forecastNew})))
			st.RunTool(calls[0], dshgen.Result{Text: "Edited " + forecastPath})
		})
		tb.Step(func(st *dshgen.Step) {
			calls := st.Reply(dshgen.Text("And the docstring."),
				dshgen.ToolCall("edit", jsonArgs(t, map[string]any{"file_path": "/home/dev/weather/README.md", "old_string": "no such text", "new_string": "x"})))
			st.RunTool(calls[0], dshgen.Result{Text: "old_string not found in README.md", IsError: true})
		})
		tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Text("Fixed: the forecast now uses the latest reading.")) })
	})
	logs := filepath.Join(dir, "logs")
	_, err := g.Log().WriteFile(logs, false)
	require.NoError(t, err)

	// The same archive, index, app and server as the shared environment, over this log.
	ctx, cancel := context.WithCancel(context.Background())
	ce.env = &env{dataDir: filepath.Join(dir, "data"), cancel: cancel}
	require.NoError(t, os.MkdirAll(ce.dataDir, 0o755))
	t.Cleanup(ce.close)
	require.NoError(t, ce.serve(ctx, []string{logs}))
	calls, err := ce.store.ToolCalls(ctx, ce.id)
	require.NoError(t, err)
	for _, c := range calls {
		if c.Name == "edit" && !c.IsError {
			ce.editSeq = c.CallSeq
		}
	}
	require.NotZero(t, ce.editSeq)
	return ce
}

func (ce *changesEnv) open(t *testing.T, width int, route, sel string) context.Context {
	t.Helper()
	ctx := browser(t, ce.env, width, 900)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ce.base+route), chromedp.WaitVisible(chromedp.CSS(sel))))
	return ctx
}

// TestEditShowsOneLineDiff: an edit whose old and new text are a 26-line block
// with one line changed shows that one line removed and its replacement added,
// with a few lines of context, both at once in the card — unified when narrow,
// side by side when wide — and highlighted as Go.
func TestEditShowsOneLineDiff(t *testing.T) {
	ce := newChangesEnv(t)
	// The changed line and the rows expected around it, from the texts themselves.
	oldLines := strings.Split(strings.TrimSuffix(forecastOld, "\n"), "\n")
	newLines := strings.Split(strings.TrimSuffix(forecastNew, "\n"), "\n")
	require.Len(t, oldLines, 26)
	k := 0
	for oldLines[k] == newLines[k] {
		k++
	}
	var wantRows []string
	for i := k - 3; i < k; i++ {
		wantRows = append(wantRows, "eq:"+oldLines[i])
	}
	wantRows = append(wantRows, "del:"+oldLines[k], "add:"+newLines[k])
	for i := k + 1; i <= k+3; i++ {
		wantRows = append(wantRows, "eq:"+oldLines[i])
	}
	for _, w := range []int{760, 1600} {
		card := fmt.Sprintf(`[data-testid="item"][data-seq="%d"] [data-testid="tool-card"]`, ce.editSeq)
		ctx := ce.open(t, w, fmt.Sprintf("#/session/%s?seq=%d", ce.id, ce.editSeq), card+` [data-testid="diff"]`)
		diff := card + ` [data-testid="diff"]`
		assert.Equal(t, "1", eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s').dataset.added`, diff)))
		assert.Equal(t, "1", eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s').dataset.removed`, diff)))
		layout := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s').dataset.layout`, diff))
		if w < 1000 {
			assert.Equal(t, "unified", layout)
			rows := eval[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('%s tr')].map(r => r.dataset.kind + ':' + r.querySelector('.code').textContent.replace(/^ $/, ''))`, diff))
			// (an empty line holds one space so its row keeps its height)
			assert.Equal(t, wantRows, rows, "the change with three lines of context on each side")
		} else {
			assert.Equal(t, "split", layout)
			left := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s td.code.del').textContent`, diff))
			right := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s td.code.add').textContent`, diff))
			assert.Equal(t, oldLines[k], left)
			assert.Equal(t, newLines[k], right)
		}
		// The rest of the block is folded into "unchanged lines" markers.
		skips := eval[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('%s .skip')].map(s => s.textContent.trim())`, diff))
		assert.Equal(t, []string{fmt.Sprintf("⋯ %d unchanged lines", k-3), fmt.Sprintf("⋯ %d unchanged lines", len(oldLines)-k-4)}, skips)
		// Both changed lines are on screen without scrolling the card or unfolding anything.
		inView := fmt.Sprintf(`[...document.querySelectorAll('%s td.code.del, %s td.code.add')].every(td => { const r = td.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight && r.height > 0; })`, diff, diff)
		eval[bool](t, ctx, fmt.Sprintf(`(document.querySelector('%s').scrollIntoView({block: 'center'}), true)`, diff))
		poll(t, ctx, inView, "both changed lines in view")
		// Go keywords are highlighted.
		assert.Positive(t, eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('%s .hljs-keyword').length`, diff)))
		shot(t, ctx, shared, fmt.Sprintf("diff-one-line-%d", w))
	}
}

// TestFilesChangedPanel: the Files panel lists each path the session changed
// with its +/− counts, jumps to an edit, and shows the file's final content,
// reconstructed from the write and the edit on top of it.
func TestFilesChangedPanel(t *testing.T) {
	ce := newChangesEnv(t)
	ctx := ce.open(t, 1280, "#/session/"+ce.id, `[data-testid="files-toggle"]`)
	poll(t, ctx, `document.querySelector('[data-testid="files-toggle"]').textContent.includes('2')`, "the Files button counts 2 files")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="files-toggle"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="changed-file"]`))))
	type file struct {
		Path           string
		Added, Removed string
	}
	files := eval[[]file](t, ctx, `[...document.querySelectorAll('[data-testid="changed-file"]')].map(li => ({Path: li.dataset.path, Added: li.dataset.added, Removed: li.dataset.removed}))`)
	// 26 lines written, then one replaced; the README edit failed and changed nothing.
	assert.Equal(t, []file{{forecastPath, "27", "1"}, {"/home/dev/weather/README.md", "0", "0"}}, files)

	// Unfold the file: its edits and its final content.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="changed-file"] button.file`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="files-panel"] [data-testid="code-view"]`))))
	// Show the whole content, then compare it with the edit applied to the write.
	eval[bool](t, ctx, `(document.querySelector('[data-testid="files-panel"] [data-testid="code-view"] .more')?.click(), true)`)
	poll(t, ctx, `document.querySelector('[data-testid="files-panel"] [data-testid="code-view"] pre').textContent.includes('return r, true')`, "the whole final content")
	final := eval[string](t, ctx, `document.querySelector('[data-testid="files-panel"] [data-testid="code-view"] pre').textContent`)
	assert.Equal(t, strings.TrimSuffix(forecastNew, "\n"), strings.TrimSuffix(final, "\n"))
	assert.Equal(t, "go", eval[string](t, ctx, `document.querySelector('[data-testid="files-panel"] [data-testid="code-view"]').dataset.lang`))
	shot(t, ctx, shared, "files-changed")

	// Jump to the one-line edit.
	seqs := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="jump-edit"]')].map(b => b.dataset.seq)`)
	require.Len(t, seqs, 2)
	assert.Equal(t, fmt.Sprint(ce.editSeq), seqs[1])
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="jump-edit"][data-seq="%d"]`, ce.editSeq)))))
	poll(t, ctx, fmt.Sprintf(`(() => { const el = document.querySelector('[data-testid="item"][data-seq="%d"]'); if (!el) return false; const r = el.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })()`, ce.editSeq),
		"the edit in view after the jump")

	// The cost button opens the session's usage per turn, summing to its totals.
	sess, err := ce.store.Session(context.Background(), ce.id)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="usage-toggle"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="usage-total"]`))))
	assert.Equal(t, fmt.Sprint(sess.Tokens.Input+sess.Tokens.Output+sess.Tokens.CacheRead),
		eval[string](t, ctx, `document.querySelector('[data-testid="usage-total"]').dataset.total`))
	assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('[data-testid="session-usage"] tbody tr').length`), "one turn")
	shot(t, ctx, shared, "session-usage")

	// The sessions list row says what happened.
	ctx = ce.open(t, 1280, "#/sessions", `[data-testid="session-row"]`)
	row := fmt.Sprintf(`[data-testid="session-row"][data-id="%s"]`, ce.id)
	poll(t, ctx, fmt.Sprintf(`!!document.querySelector('%s [data-testid="gist-files"]')`, row), "the row's files count")
	assert.Equal(t, "1 file", eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s [data-testid="gist-files"]').textContent.trim()`, row)))
	assert.Equal(t, "1 error", eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s [data-testid="gist-errors"]').textContent.trim()`, row)))
	assert.Contains(t, eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s [data-testid="gist-prompt"]').textContent`, row)),
		"The forecast shows yesterday's temperature. Fix it.")
	shot(t, ctx, shared, "sessions-gist")
}

// TestUsageDashboardMatchesArchive: the dashboard's totals, tool and approval
// counts and per-project tokens equal what SQL over the archive file says,
// over the shared archive (the real dsh log, dsh's fixtures, generated sessions).
func TestUsageDashboardMatchesArchive(t *testing.T) {
	e := need(t)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.dataDir, "logbook.db")+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	var sessions, input, output, reasoning, cache int64
	require.NoError(t, db.QueryRow(`SELECT COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(reasoning_tokens), SUM(cached_tokens) FROM sessions`).
		Scan(&sessions, &input, &output, &reasoning, &cache))
	require.Positive(t, input)
	var calls, failed int64
	require.NoError(t, db.QueryRow(`SELECT COUNT(*), SUM(is_error) FROM tool_calls WHERE name != ''`).Scan(&calls, &failed))
	var asked, denied int64
	require.NoError(t, db.QueryRow(`SELECT COUNT(*), COALESCE(SUM(outcome IN ('rejected', 'cancelled', 'unavailable')), 0) FROM approvals`).Scan(&asked, &denied))
	perProject := map[string]string{}
	rows, err := db.Query(`SELECT project, SUM(input_tokens + output_tokens + cached_tokens) FROM sessions GROUP BY project HAVING SUM(input_tokens + output_tokens + cached_tokens) > 0`)
	require.NoError(t, err)
	for rows.Next() {
		var p string
		var n int64
		require.NoError(t, rows.Scan(&p, &n))
		perProject[p] = fmt.Sprint(n)
	}
	require.NoError(t, rows.Err())

	for _, w := range []int{1280, 760} {
		ctx := browser(t, e, w, 900)
		open(t, ctx, e, "#/usage", `[data-testid="stat-tokens"]`)
		data := func(sel, key string) string {
			return eval[string](t, ctx, fmt.Sprintf(`document.querySelector('[data-testid="%s"]').dataset.%s`, sel, key))
		}
		assert.Equal(t, fmt.Sprint(sessions), data("stat-sessions", "value"))
		assert.Equal(t, fmt.Sprint(input), data("stat-tokens", "input"))
		assert.Equal(t, fmt.Sprint(output), data("stat-tokens", "output"))
		assert.Equal(t, fmt.Sprint(reasoning), data("stat-tokens", "reasoning"))
		assert.Equal(t, fmt.Sprint(cache), data("stat-tokens", "cache"))
		assert.Equal(t, fmt.Sprint(calls), data("stat-tools", "calls"))
		assert.Equal(t, fmt.Sprint(failed), data("stat-tools", "errors"))
		assert.Equal(t, fmt.Sprint(asked), data("stat-approvals", "asked"))
		assert.Equal(t, fmt.Sprint(denied), data("stat-approvals", "denied"))
		got := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('[data-testid="usage-projects"] tr[data-project]')].map(r => [r.dataset.project, r.dataset.tokens]).filter(([, n]) => n !== '0'))`)
		assert.Equal(t, perProject, got)
		// Every session here was imported with per-event usage: nothing is undated,
		// and the charts are drawn.
		assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-testid="usage-undated"]').length`))
		assert.GreaterOrEqual(t, eval[int](t, ctx, `document.querySelectorAll('.usage svg').length`), 2)
		shot(t, ctx, e, fmt.Sprintf("usage-dashboard-%d", w))
	}
}

// TestDemoReadsAsStories: the demo archive's sessions are scripted stories: the
// list says what each did (last prompt, files changed, failures), the forecast
// fix shows its one-line diff, and the release session shows the refused approval.
func TestDemoReadsAsStories(t *testing.T) {
	se := newUXEnv(t)
	ctx := se.open(t, 1280, "#/sessions", `[data-testid="session-row"]`)
	poll(t, ctx, `document.querySelectorAll('[data-testid="gist-prompt"]').length >= 5`, "the rows' last prompts")
	prompts := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="gist-prompt"]')].map(p => p.textContent.trim())`)
	assert.Contains(t, prompts, "› Thanks. Is there a test that would have caught this?")
	assert.Contains(t, prompts, "› Clean the build and publish the 0.9 release.")
	se.shot(t, ctx, "demo-sessions")

	id := eval[string](t, ctx, `[...document.querySelectorAll('[data-testid="session-row"]')].find(r => r.querySelector('.title').textContent.includes("Forecast shows yesterday")).dataset.id`)
	require.NotEmpty(t, id)
	assert.Equal(t, "2 files", eval[string](t, ctx, `document.querySelector('[data-testid="session-row"][data-id="`+id+`"] [data-testid="gist-files"]').textContent.trim()`))
	ctx = se.open(t, 1280, "#/session/"+id, `[data-testid="tool-card"][data-tool="edit"] [data-testid="diff"]`)
	diff := `[data-testid="tool-card"][data-tool="edit"] [data-testid="diff"]`
	assert.Equal(t, "1", eval[string](t, ctx, `document.querySelector('`+diff+`').dataset.added`))
	assert.Equal(t, "1", eval[string](t, ctx, `document.querySelector('`+diff+`').dataset.removed`))
	eval[bool](t, ctx, `(document.querySelector('`+diff+`').scrollIntoView({block: 'center'}), true)`)
	time.Sleep(400 * time.Millisecond)
	se.shot(t, ctx, "demo-forecast-diff")

	ctx = se.open(t, 1280, "#/sessions", `[data-testid="session-row"]`)
	rid := eval[string](t, ctx, `[...document.querySelectorAll('[data-testid="session-row"]')].find(r => r.querySelector('.title').textContent.includes("publish 0.9")).dataset.id`)
	ctx = se.open(t, 1280, "#/session/"+rid, `[data-kind="approval"]`)
	text := eval[string](t, ctx, `document.querySelector('[data-kind="approval"]').innerText`)
	assert.Contains(t, text, "git push --force rewrites origin/main")
	se.shot(t, ctx, "demo-approval-denied")
}

// TestEmojiRender: an emoji in the UI's font stack draws in colour (the emoji
// font named in app.css), not as an empty box. Skipped where no emoji font is
// installed (scripts/setup.sh installs fonts-noto-color-emoji).
func TestEmojiRender(t *testing.T) {
	e := need(t)
	if out, err := exec.Command("fc-list", ":charset=1f600").Output(); err != nil || len(strings.TrimSpace(string(out))) == 0 {
		t.Skip("no emoji font installed (apt-get install fonts-noto-color-emoji)")
	}
	ctx := browser(t, e, 800, 600)
	open(t, ctx, e, "#/sessions", `[data-testid="session-row"]`)
	// Draw 😀 with the body's font on a canvas and count the coloured pixels.
	coloured := eval[int](t, ctx, `(async () => {
		const font = getComputedStyle(document.body).fontFamily;
		await document.fonts.load('32px ' + font, '😀');
		const c = document.createElement('canvas'); c.width = c.height = 48;
		const g = c.getContext('2d'); g.font = '32px ' + font; g.textBaseline = 'top'; g.fillStyle = '#000';
		g.fillText('😀', 4, 4);
		const d = g.getImageData(0, 0, 48, 48).data;
		let n = 0;
		for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (Math.abs(d[i] - d[i + 1]) > 40 || Math.abs(d[i + 1] - d[i + 2]) > 40)) n++;
		return n;
	})()`)
	assert.Greater(t, coloured, 50, "the emoji drew in colour")
}
