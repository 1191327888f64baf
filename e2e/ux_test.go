package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/app"
	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/index"
	"github.com/logbook/logbook/scheduler"
)

// uxEnv (the issue #17 tests) is an app with a running scheduler whose action is
// a webhook: the demo archive, one session of the user's own with a schedule an
// hour away, and one whose last turn never ended.
type uxEnv struct {
	url, base string
	hits      *atomic.Int64 // webhook requests for session-own-sched
	demoHits  *atomic.Int64 // webhook requests for a demo session
	hook      string
	cutID     string // a session interrupted mid-turn
}

func newUXEnv(t *testing.T) *uxEnv {
	t.Helper()
	need(t)
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	store := archive.New(filepath.Join(dir, "logbook.db"))
	require.NoError(t, store.Open(ctx))
	se := &uxEnv{hits: &atomic.Int64{}, demoHits: &atomic.Int64{}}
	// The cut session's own overdue schedules fire on their own (every root is
	// local here); the counts are of the sessions the tests are about.
	demoRoot := app.DemoRoot(dir)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p struct {
			SessionID string `json:"session_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&p)
		switch files, _ := store.SessionFiles(context.Background(), p.SessionID); {
		case p.SessionID == "session-own-sched":
			se.hits.Add(1)
		case len(files) > 0 && strings.HasPrefix(files[0].Path, demoRoot):
			se.demoHits.Add(1)
		}
	}))
	se.hook = hook.URL + "/hook"
	idx, err := index.Open(filepath.Join(dir, "index"))
	require.NoError(t, err)
	// Every root counts as this machine's own, so only the demo rule keeps the
	// demo's due schedules from posting to the webhook.
	sched := scheduler.New(store, scheduler.Options{
		Config: scheduler.Config{Action: scheduler.ActionWebhook, WebhookURL: se.hook, TimeoutSeconds: 5,
			CatchUp: scheduler.CatchUpFire},
		LocalRoots: []string{"/"}, DemoRoots: []string{app.DemoRoot(dir)},
	})
	hub := app.NewHub()
	a := app.New(app.Deps{Archive: store, Index: idx, Events: hub, Version: "e2e", DataDir: dir, Roots: []string{},
		Scheduler: sched})
	a.Startup(ctx)
	require.NoError(t, a.CreateDemo())

	// One session of the user's own, with a schedule an hour from now.
	own := filepath.Join(dir, "own")
	s := dshgen.New(dshgen.Options{Seed: 3, ID: "session-own-sched", Cwd: "/home/u/own", Families: dshgen.FamilyTools,
		CreatedAt: time.Now().Add(-time.Hour).UnixMilli()})
	s.Turn(func(tb *dshgen.Turn) {
		tb.User("remind me to check CI")
		tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Text("Scheduled.")) })
	})
	s.ScheduleCreateAt("at", "check CI on main", time.Now().Add(time.Hour).UnixMilli(), 0)
	path, err := s.Log().WriteFile(own, false)
	require.NoError(t, err)
	_, err = store.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	require.NoError(t, sched.Reload(ctx))

	// And one whose agent was stopped before its last turn ended: the log ends
	// cleanly just before that turn/end, so its health is ok.
	cut := dshgen.Generate(dshgen.Options{Seed: 5, Turns: 3, Cwd: "/home/u/cut", ASCII: true})
	cutPath, err := cut.WriteFile(own, false)
	require.NoError(t, err)
	data, err := os.ReadFile(cutPath)
	require.NoError(t, err)
	end := bytes.LastIndex(data, []byte(`{"type":"turn/end"`))
	require.Positive(t, end)
	require.NoError(t, os.WriteFile(cutPath, data[:end], 0o644))
	_, err = store.Import(ctx, []string{cutPath}, archive.ImportOptions{})
	require.NoError(t, err)
	se.cutID = cut.ID()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := app.NewServer(a, hub, app.ServerOptions{Addr: ln.Addr().String()})
	se.url, se.base = srv.URL(), "http://"+ln.Addr().String()+"/"
	go func() { _ = app.ListenAndServe(ctx, ln, srv) }()
	t.Cleanup(func() {
		cancel()
		a.Shutdown(context.Background())
		_ = idx.Close()
		_ = store.Close()
		hook.Close()
	})
	return se
}

// page opens the schedules view of se in a fresh browser of the given width.
func (se *uxEnv) page(t *testing.T, width int) context.Context {
	t.Helper()
	return se.open(t, width, "#/schedules", `[data-testid="schedule-row"]`)
}

// open opens a route of se in a fresh browser of the given width and waits for sel.
func (se *uxEnv) open(t *testing.T, width int, route, sel string) context.Context {
	t.Helper()
	ctx := browser(t, &env{url: se.url}, width, 800)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(se.base+route), chromedp.WaitVisible(chromedp.CSS(sel))))
	return ctx
}

func (se *uxEnv) shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot(t, ctx, shared, name)
}

// TestDemoSchedulesNeverFire: the demo archive's schedules are listed as "demo —
// never fires", offer no action, and never reach the webhook.
func TestDemoSchedulesNeverFire(t *testing.T) {
	se := newUXEnv(t)
	for _, w := range []int{1280, 760} {
		ctx := se.page(t, w)
		n := eval[int](t, ctx, `document.querySelectorAll('[data-section="demo"] [data-testid="schedule-row"]').length`)
		assert.Positive(t, n, "demo schedules listed in their section")
		assert.Equal(t, n, eval[int](t, ctx, `[...document.querySelectorAll('[data-section="demo"] [data-testid="state"]')].filter(b => b.textContent.trim() === 'demo — never fires').length`))
		assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-section="demo"] [data-action]').length`), "a demo schedule offers an action")
		assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-section="overdue"] [data-demo], [data-section="upcoming"] [data-demo]').length`))
		se.shot(t, ctx, fmt.Sprintf("schedules-demo-%d", w))
	}
	time.Sleep(time.Second)
	assert.Zero(t, se.demoHits.Load(), "a demo schedule posted to the webhook")
}

// TestFireNowConfirmsTheAction: Fire now names the webhook it will post to and
// posts only after the second click.
func TestFireNowConfirmsTheAction(t *testing.T) {
	se := newUXEnv(t)
	for _, w := range []int{1280, 760} {
		ctx := se.page(t, w)
		row := `[data-schedule][data-session="session-own-sched"]`
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row+` [data-action="fire"]`)),
			chromedp.WaitVisible(chromedp.CSS(row+` [data-testid="fire-confirm"]`))))
		assert.Equal(t, "POST to "+se.hook, eval[string](t, ctx, `document.querySelector('`+row+` [data-testid="fire-target"]').textContent`))
		se.shot(t, ctx, fmt.Sprintf("schedules-fire-confirm-%d", w))
		time.Sleep(300 * time.Millisecond)
		assert.Zero(t, se.hits.Load(), "Fire now ran before it was confirmed")
		// Cancel leaves it unfired.
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row+` [data-testid="fire-confirm-no"]`))))
		poll(t, ctx, `!document.querySelector('`+row+` [data-testid="fire-confirm"]')`, "the confirm step to close")
		assert.Zero(t, se.hits.Load())
	}
	ctx := se.page(t, 1280)
	row := `[data-schedule][data-session="session-own-sched"]`
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row+` [data-action="fire"]`)),
		chromedp.Click(chromedp.CSS(row+` [data-testid="fire-confirm-yes"]`))))
	require.Eventually(t, func() bool { return se.hits.Load() == 1 }, 15*time.Second, 50*time.Millisecond, "the webhook was not posted to")
	// The one-shot is done: it moves to the Completed section.
	poll(t, ctx, `!!document.querySelector('[data-section="completed"]') && !document.querySelector('[data-section="upcoming"] `+row+`')`,
		"the fired schedule to move to Completed")
	se.shot(t, ctx, "schedules-fired-1280")
}

// TestInterruptedSessionMarked: a session whose last turn never ended says
// "interrupted" in the sessions list, where its health alone would say ok; the
// torn demo log keeps its "recovered" badge; a finished session says ok.
func TestInterruptedSessionMarked(t *testing.T) {
	se := newUXEnv(t)
	for _, w := range []int{1280, 760} {
		ctx := se.open(t, w, "#/sessions", `[data-testid="session-row"]`)
		row := `[data-testid="session-row"][data-id="` + se.cutID + `"]`
		poll(t, ctx, `!!document.querySelector('`+row+`[data-interrupted="true"] [data-testid="interrupted"]')`, "the interrupted mark")
		assert.Equal(t, "interrupted", eval[string](t, ctx, `document.querySelector('`+row+` [data-testid="interrupted"]').textContent.trim()`))
		assert.Equal(t, 2, eval[int](t, ctx, `document.querySelectorAll('[data-interrupted="true"]').length`), "the cut session and the torn demo log")
		assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('[data-interrupted="true"] .badge.recovered').length`))
		own := `[data-testid="session-row"][data-id="session-own-sched"]`
		assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('`+own+`[data-interrupted]').length`))
		eval[bool](t, ctx, `document.querySelector('`+row+`').scrollIntoView({block: 'center'}), true`)
		time.Sleep(400 * time.Millisecond) // the virtual list lays out the rows scrolled to
		se.shot(t, ctx, fmt.Sprintf("sessions-interrupted-%d", w))
	}
}

// TestWindowTitleNamesSession: the tab's title is the open session's title, and
// the app's name again after going back.
func TestWindowTitleNamesSession(t *testing.T) {
	se := newUXEnv(t)
	ctx := se.open(t, 1280, "#/sessions", `[data-testid="session-row"]`)
	assert.Equal(t, "Logbook", eval[string](t, ctx, `document.title`))
	title := eval[string](t, ctx, `document.querySelector('[data-testid="session-row"] .title').textContent.trim()`)
	require.NotEmpty(t, title)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="session-row"] .title`))))
	poll(t, ctx, `document.title !== 'Logbook'`, "the title to change")
	assert.Equal(t, title+" — Logbook", eval[string](t, ctx, `document.title`))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(se.base+"#/sessions")))
	poll(t, ctx, `document.title === 'Logbook'`, "the title to be the app's again")
}

// TestShortcutSheetListsGlobalKeys: ? in a conversation opens the sheet, which
// lists the global keys as well as the view's.
func TestShortcutSheetListsGlobalKeys(t *testing.T) {
	se := newUXEnv(t)
	for _, w := range []int{1280, 760} {
		ctx := se.open(t, w, "#/session/"+se.cutID, `[data-testid="item"]`)
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("?"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="shortcut-sheet"]`))))
		for _, scope := range []string{"global", "sessions", "conversation"} {
			assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('[data-testid="shortcut-sheet"] [data-scope="`+scope+`"] kbd').length`), scope)
		}
		assert.Contains(t, eval[string](t, ctx, `document.querySelector('[data-scope="global"]').textContent`), "go to Schedules")
		se.shot(t, ctx, fmt.Sprintf("shortcut-sheet-%d", w))
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\x1b")))
		poll(t, ctx, `!document.querySelector('[data-testid="shortcut-sheet"]')`, "Esc to close the sheet")
	}
}

// contrastJS defines contrast(a, b): the WCAG contrast ratio of two CSS colours.
const contrastJS = `const lum = (c) => { const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
const contrast = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };`

// TestJumpFlashVisibleInDark: the item a jump lands on is ringed in a colour that
// stands out from the page in the dark theme (and the light one), at its start.
func TestJumpFlashVisibleInDark(t *testing.T) {
	se := newUXEnv(t)
	for _, theme := range []string{"dark", "light"} {
		ctx := se.open(t, 1280, "#/session/"+se.cutID, `[data-testid="item"]`)
		eval[bool](t, ctx, `localStorage.setItem('logbook.theme', '`+theme+`'), document.documentElement.dataset.theme = '`+theme+`', true`)
		seq := eval[string](t, ctx, `document.querySelectorAll('[data-testid="item"]')[8].dataset.seq`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(se.base+"#/session/"+se.cutID+"?seq="+seq)))
		poll(t, ctx, `!!document.querySelector('[data-testid="item"].target')`, "the jump target")
		// Hold the flash at its start, then compare the ring with the page.
		ratio := eval[float64](t, ctx, contrastJS+`
			const el = document.querySelector('[data-testid="item"].target');
			el.getAnimations().forEach((a) => { a.pause(); a.currentTime = 0; });
			const ring = getComputedStyle(el).boxShadow;
			const bg = getComputedStyle(document.body).backgroundColor;
			contrast(ring.match(/rgba?\([^)]*\)/)[0], bg)`)
		assert.GreaterOrEqual(t, ratio, 3.0, "%s: the flash ring's contrast with the page", theme)
		se.shot(t, ctx, "jump-flash-"+theme)
	}
}
