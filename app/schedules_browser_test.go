package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/scheduler"
	"github.com/logbook/logbook/scheduler/schedulertest"
)

// TestSchedulesViewInBrowser drives the schedules view in headless Chromium against
// the real HTTP server, App and scheduler: pause and resume a schedule, then fire
// one now and see the fire arrive through the event stream. It needs the built UI
// (frontend/dist, `make test` builds it first) and Chromium; without either it skips.
func TestSchedulesViewInBrowser(t *testing.T) {
	chrome := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chrome = p
			break
		}
	}
	// CI installs Chromium and builds the UI before the Go tests: there, a browser
	// test that cannot run is a failure, not a skip.
	skip := t.Skip
	if os.Getenv("CI") != "" {
		skip = t.Fatal
	}
	if chrome == "" {
		skip("no Chromium on this machine")
	}
	dist := filepath.Join("..", "frontend", "dist")
	if _, err := os.Stat(filepath.Join(dist, "assets")); err != nil {
		skip("the UI is not built (cd frontend && npx vite build)")
	}

	e := schedulertest.NewEnv(t)
	e.WriteSession(t, "session-b", []schedulertest.Spec{
		{Kind: "at", Prompt: "pause me", At: schedulertest.Soon(time.Hour)},
		{Kind: "every", Prompt: "fire me", At: schedulertest.Soon(2 * time.Hour), Seconds: 3600},
	}, nil)
	hub := NewHub()
	a := New(Deps{Archive: e.Store, Logger: quietLogger(), Events: hub, Roots: []string{},
		Scheduler: scheduler.New(e.Store, scheduler.Options{Logger: quietLogger()})})
	a.startScheduler()
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := NewServer(a, hub, ServerOptions{Addr: ln.Addr().String(), Assets: os.DirFS(dist), Logger: quietLogger()})
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	hs.RegisterOnShutdown(srv.Close)
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	}()
	t.Cleanup(func() { _ = hs.Shutdown(context.Background()) })

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chrome), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()

	row := func(id string) string { return `[data-testid="schedule-row"][data-schedule="` + id + `"]` }
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL()), // the page keeps the token in sessionStorage and sends it in a header
		chromedp.Navigate("http://"+ln.Addr().String()+"/#/schedules"),
		chromedp.WaitVisible(chromedp.CSS(row("schedule-1")+`[data-state="scheduled"]`)),
	))
	countdown, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row("schedule-1")+` [data-testid="countdown"]`)))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(countdown, "in "), "live countdown, got %q", countdown)
	link, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(row("schedule-1")+` a.session`), "href"))
	require.NoError(t, err)
	assert.Contains(t, link.Value, "#/session/session-b?seq=")

	t.Run("Pause", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(row("schedule-1")+` button[data-action="pause"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-section="paused"] `+row("schedule-1")+`[data-state="paused"]`)),
		))
		assert.Equal(t, archive.LogbookPaused, e.Item(t, "session-b", "schedule-1").LogbookState)
		assert.NotContains(t, armedIDs(a), "session-b/schedule-1", "paused means disarmed")

		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(row("schedule-1")+` button[data-action="resume"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-section="upcoming"] `+row("schedule-1")+`[data-state="scheduled"]`)),
		))
		assert.Contains(t, armedIDs(a), "session-b/schedule-1")
	})

	t.Run("FireNow", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(row("schedule-2")+` button[data-action="fire"]`)),
			// The fire runs in the background; the row learns of it from schedule:fired.
			chromedp.WaitVisible(chromedp.CSS(row("schedule-2")+` [data-testid="history-toggle"]`)),
		))
		summary, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row("schedule-2")+` [data-testid="history-toggle"]`)))
		require.NoError(t, err)
		assert.Contains(t, summary, "fired by hand via notify")
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(row("schedule-2")+` [data-testid="history-toggle"]`)),
			chromedp.WaitVisible(chromedp.CSS(row("schedule-2")+` [data-testid="fire-entry"][data-outcome="ok"]`)),
		))
		fires, err := e.Store.ScheduleFires(context.Background(), "session-b", "schedule-2", 0)
		require.NoError(t, err)
		require.Len(t, fires, 1)
		assert.Equal(t, archive.TriggerManual, fires[0].Trigger)
		it := e.Item(t, "session-b", "schedule-2")
		assert.Equal(t, archive.LogbookScheduled, it.LogbookState, "an every fired early keeps its cadence")

		if dir := os.Getenv("LOGBOOK_SCREENSHOTS"); dir != "" {
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "schedules.png"), png, 0o644))
		}
	})
}
