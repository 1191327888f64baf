package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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

// schedEnv is an app with a running scheduler whose action is a webhook: the
// demo archive plus one session of the user's own with a schedule an hour away.
type schedEnv struct {
	url, base string
	hits      *atomic.Int64 // webhook requests
	hook      string
}

func newSchedEnv(t *testing.T) *schedEnv {
	t.Helper()
	need(t)
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	se := &schedEnv{hits: &atomic.Int64{}}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { se.hits.Add(1) }))
	se.hook = hook.URL + "/hook"
	store := archive.New(filepath.Join(dir, "logbook.db"))
	require.NoError(t, store.Open(ctx))
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
func (se *schedEnv) page(t *testing.T, width int) context.Context {
	t.Helper()
	ctx := browser(t, &env{url: se.url}, width, 800)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(se.base+"#/schedules"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="schedule-row"]`))))
	return ctx
}

func (se *schedEnv) shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot(t, ctx, shared, name)
}

// TestDemoSchedulesNeverFire: the demo archive's schedules are listed as "demo —
// never fires", offer no action, and never reach the webhook.
func TestDemoSchedulesNeverFire(t *testing.T) {
	se := newSchedEnv(t)
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
	assert.Zero(t, se.hits.Load(), "a demo schedule posted to the webhook")
}

// TestFireNowConfirmsTheAction: Fire now names the webhook it will post to and
// posts only after the second click.
func TestFireNowConfirmsTheAction(t *testing.T) {
	se := newSchedEnv(t)
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
