package scheduler

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/scheduler/schedulertest"
)

func TestSchedulerReloadDuringDispatchIsNotACatchUp(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	at := soon(time.Second)
	e.WriteSession(t, "session-d", []schedulertest.Spec{{Kind: "at", Prompt: "on time", At: at}}, nil)
	cfg := DefaultConfig()
	cfg.CatchUp = CatchUpSkip // a fire wrongly taken for a catch-up would be skipped
	s, log := startScheduler(t, e, cfg)

	// Hold the schedule's claim, as a job that cron has started but that has not
	// claimed it yet would find it: the window in which an import's Reload lands.
	k := schedKey{"session-d", "schedule-1"}
	s.mu.Lock()
	s.inflight[k] = true
	s.mu.Unlock()
	require.Eventually(t, func() bool {
		n, ok := armedKeys(s)[k.String()]
		return ok && n.IsZero() && time.Now().After(at)
	}, 5*time.Second, 5*time.Millisecond, "cron dispatched the entry")
	time.Sleep(50 * time.Millisecond) // the dispatched job found the claim taken and left
	s.release(k)
	require.NoError(t, s.Reload(context.Background()))

	f := log.waitN(t, 1, 5*time.Second)[0]
	assert.Equal(t, archive.TriggerScheduled, f.Trigger, "the fire came due while Logbook ran")
	assert.Equal(t, archive.FireOK, f.Outcome)
}

func TestSchedulerWakesCronRegularly(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	e.WriteSession(t, "session-w", []schedulertest.Spec{{Kind: "at", Prompt: "far", At: soon(24 * time.Hour)}}, nil)
	s, _ := startScheduler(t, e, DefaultConfig(), func(o *Options) { o.WakeEvery = time.Second })
	// With only a fire a day away, cron's loop still wakes (and compares every
	// entry with the wall clock) each WakeEvery: a timer stalled by a suspend
	// costs at most that much.
	require.Eventually(t, func() bool { return s.wakes.Load() >= 2 }, 5*time.Second, 20*time.Millisecond)
	assert.Equal(t, []string{"session-w/schedule-1"}, keys(armedKeys(s)), "the wake-up is not a schedule")
	assert.Equal(t, defaultWakeEvery, New(e.Store, Options{}).wakeEvery)
}

func TestSchedulerWebhookDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	for _, code := range []int{http.StatusFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			t.Parallel()
			var reached atomic.Int64
			target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached.Add(1)
				w.WriteHeader(http.StatusOK) // a GET that never saw the payload would look delivered
			}))
			t.Cleanup(target.Close)
			redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+"/elsewhere", code)
			}))
			t.Cleanup(redirect.Close)

			e := newSchedEnv(t)
			e.WriteSession(t, "session-r", []schedulertest.Spec{{Kind: "at", Prompt: "secret plans", At: soon(time.Hour)}}, nil)
			cfg := fastRetries(DefaultConfig())
			cfg.Action, cfg.WebhookURL = ActionWebhook, redirect.URL+"/hook"
			s := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, Config: cfg})
			f, err := s.FireNow(context.Background(), "session-r", "schedule-1")
			require.NoError(t, err)
			assert.Equal(t, archive.FireFailed, f.Outcome)
			assert.Contains(t, f.Error, "redirects are not followed")
			assert.Contains(t, f.Error, target.URL+"/elsewhere")
			assert.Equal(t, 1, f.Attempts, "a redirect answers the same way every time")
			assert.Zero(t, reached.Load(), "nothing was sent where the redirect pointed")
		})
	}
}

func TestSchedulerCommandArgumentsThatCannotBePassed(t *testing.T) {
	t.Parallel()
	script, calls := argvScript(t)
	e := newSchedEnv(t)
	s := New(e.Store, Options{Logger: quietLogger()})
	cfg := DefaultConfig()
	cfg.Action, cfg.Command, cfg.Retries, cfg.BackoffSeconds = ActionCommand, []string{script, "--", "{prompt}"}, 3, 2
	for name, prompt := range map[string]string{
		"NUL":  "before\x00after",
		"Long": strings.Repeat("p", 200<<10),
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			n, err := s.runAction(context.Background(), cfg, firePayload{SessionID: "s", ScheduleID: "x", Prompt: prompt})
			require.Error(t, err)
			assert.Equal(t, 1, n, "no retry can pass it")
			assert.Less(t, time.Since(start), time.Second, "no backoff waited out")
			assert.Contains(t, err.Error(), "argument 2")
		})
	}
	assert.Empty(t, calls(), "the program never ran")

	t.Run("TooLongInTotal", func(t *testing.T) {
		// Under the per-argument limit, over the whole argument list's (E2BIG):
		// 8 MiB is past Linux's cap even with an unlimited stack (6 MiB).
		c := cfg
		c.Command = []string{script}
		for range 80 {
			c.Command = append(c.Command, "{prompt}")
		}
		n, err := s.runAction(context.Background(), c, firePayload{Prompt: strings.Repeat("p", 100<<10)})
		require.Error(t, err)
		assert.Equal(t, 1, n)
		assert.Contains(t, err.Error(), "too long")
	})
}

func TestSchedulerConfigFollowsTheFile(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	path := filepath.Join(t.TempDir(), "scheduler.json")
	s := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, ConfigPath: path})
	assert.Equal(t, ActionNotify, s.Config().Action)

	edit := func(body string) {
		t.Helper()
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		// A later modification time, even on a file system with coarse times.
		later := time.Now().Add(time.Duration(len(body)) * time.Second)
		require.NoError(t, os.Chtimes(path, later, later))
	}
	edit(`{"action":"command","command":["/bin/echo","{prompt}"]}`)
	assert.Equal(t, []string{"/bin/echo", "{prompt}"}, s.Config().Command, "a hand edit applies without a restart")
	edit(`{"action":"command","command":["/bin/echo","{prompt}"],`)
	assert.Equal(t, DefaultConfig(), s.Config(), "a broken edit falls back to notify only")

	t.Run("SavingOverABrokenFileKeepsIt", func(t *testing.T) {
		require.NoError(t, s.SetConfig(DefaultConfig()))
		kept, err := os.ReadFile(path + ".bad")
		require.NoError(t, err)
		assert.Equal(t, `{"action":"command","command":["/bin/echo","{prompt}"],`, string(kept))
		c, err := LoadConfig(path)
		require.NoError(t, err)
		assert.Equal(t, DefaultConfig(), c)
	})
}

func TestSchedulerWebhookErrorsKeepTheURLOutOfTheHistory(t *testing.T) {
	t.Parallel()
	const secret = "T0000/B0000/s3cr3t-hook-token"
	done := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // answers after the attempt's timeout, or when the test ends
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(done) }) // runs first
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	for name, base := range map[string]string{"Unreachable": closed.URL, "TimedOut": slow.URL} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newSchedEnv(t)
			e.WriteSession(t, "session-s", []schedulertest.Spec{{Kind: "at", Prompt: "ping", At: soon(time.Hour)}}, nil)
			cfg := DefaultConfig()
			cfg.Action, cfg.WebhookURL = ActionWebhook, base+"/services/"+secret+"?token="+secret
			cfg.TimeoutSeconds, cfg.Retries, cfg.BackoffSeconds = 0.3, 1, 0.01
			s := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, Config: cfg})
			start := time.Now()
			f, err := s.FireNow(context.Background(), "session-s", "schedule-1")
			require.NoError(t, err)
			assert.Less(t, time.Since(start), 3*time.Second, "each attempt is bounded by the timeout")
			assert.Equal(t, archive.FireFailed, f.Outcome)
			assert.Equal(t, 2, f.Attempts)
			assert.Contains(t, f.Error, "webhook POST failed")
			assert.NotContains(t, f.Error, secret)
			hist, err := e.Store.ScheduleFires(context.Background(), "session-s", "schedule-1", 0)
			require.NoError(t, err)
			require.Len(t, hist, 1)
			assert.NotContains(t, hist[0].Error, secret, "the archive never holds the webhook's secret")
		})
	}
}

func TestSchedulerTriggerPanicIsContained(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	e.WriteSession(t, "session-t", []schedulertest.Spec{{Kind: "at", Prompt: "boom", At: soon(time.Hour)}}, nil)
	var calls atomic.Int64
	var broken atomic.Bool
	s := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, Now: func() time.Time {
		// Trigger's own lookup passes; the background fire then hits a bug just
		// after it claimed the schedule (the first s.Now in fire).
		if broken.Load() && calls.Add(1) > 2 {
			panic("clock bug")
		}
		return time.Now()
	}})
	broken.Store(true)
	require.NoError(t, s.Trigger(context.Background(), "session-t", "schedule-1"))
	s.wg.Wait() // the background fire ended, and the test process is alive
	assert.GreaterOrEqual(t, calls.Load(), int64(3), "the fire reached the bug")
	broken.Store(false)
	s.mu.Lock()
	assert.Empty(t, s.inflight, "the claim was released: the schedule can fire again")
	s.mu.Unlock()
	f, err := s.FireNow(context.Background(), "session-t", "schedule-1")
	require.NoError(t, err)
	assert.Equal(t, archive.FireOK, f.Outcome)
}
