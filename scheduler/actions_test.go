package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/scheduler/schedulertest"
)

// scriptWith writes a shell script that records each invocation's arguments
// (NUL-separated, one file per call) and then runs tail. calls returns the recorded
// argument lists.
func scriptWith(t *testing.T, tail string) (path string, calls func() [][]string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the test command is a POSIX shell script")
	}
	dir := t.TempDir()
	path = filepath.Join(dir, "record.sh")
	body := "#!/bin/sh\nf=$(mktemp '" + dir + "/call.XXXXXX')\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$f\"\n" + tail + "\n"
	require.NoError(t, os.WriteFile(path, []byte(body), 0o755))
	return path, func() [][]string {
		names, err := filepath.Glob(filepath.Join(dir, "call.*"))
		require.NoError(t, err)
		sort.Strings(names)
		out := [][]string{}
		for _, n := range names {
			data, err := os.ReadFile(n)
			require.NoError(t, err)
			args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
			if len(data) == 0 {
				args = []string{}
			}
			out = append(out, args)
		}
		return out
	}
}

func argvScript(t *testing.T) (string, func() [][]string) { return scriptWith(t, "exit 0") }

func TestSchedulerCommandActionArgvVerbatim(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	pwned := filepath.Join(t.TempDir(), "pwned")
	// What a shell would run: command substitution, backticks, a quoted string, a
	// second placeholder and a line break. (It touches a file, not rm -rf /: were
	// the argument ever given to a shell, the test must fail, not the machine.)
	prompt := "$(touch " + pwned + "); echo \"x\" `touch " + pwned + "` ; {session} 'q' \\\nline two"
	at := soon(time.Second)
	e.WriteSession(t, "session-cmd", []schedulertest.Spec{{Kind: "at", Prompt: prompt, At: at}}, nil)
	script, calls := argvScript(t)
	cfg := fastRetries(DefaultConfig())
	cfg.Action = ActionCommand
	cfg.Command = []string{script, "{prompt}", "--session={session}", "{cwd}", "{schedule}", "{unknown}", "two words"}
	_, log := startScheduler(t, e, cfg)

	f := log.waitN(t, 1, 5*time.Second)[0]
	require.Equal(t, archive.FireOK, f.Outcome, f.Error)
	assert.Equal(t, ActionCommand, f.Action)
	assert.Equal(t, 1, f.Attempts)
	require.Len(t, calls(), 1)
	assert.Equal(t, []string{prompt, "--session=session-cmd", schedCwd, "schedule-1", "{unknown}", "two words"}, calls()[0],
		"each argument arrives verbatim, the prompt as one argument, its {session} not expanded")
	assert.NoFileExists(t, pwned, "no shell ever saw the prompt")
}

func TestSchedulerCommandFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("RetriedThenReported", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		e.WriteSession(t, "session-f", []schedulertest.Spec{
			{Kind: "at", Prompt: "will fail", At: soon(time.Second)},
			{Kind: "at", Prompt: "still works", At: soon(time.Hour)},
		}, nil)
		script, calls := scriptWith(t, `[ "$1" = schedule-1 ] || exit 0; echo "boom: no agent" >&2; exit 3`)
		cfg := fastRetries(DefaultConfig())
		cfg.Action, cfg.Command = ActionCommand, []string{script, "{schedule}"}
		s, log := startScheduler(t, e, cfg)

		f := log.waitN(t, 1, 5*time.Second)[0]
		assert.Equal(t, archive.FireFailed, f.Outcome)
		assert.Equal(t, archive.TriggerScheduled, f.Trigger)
		assert.Equal(t, 3, f.Attempts, "one attempt and two retries")
		assert.Contains(t, f.Error, "exit status 3")
		assert.Contains(t, f.Error, "boom: no agent")
		assert.Len(t, calls(), 3)
		it := e.Item(t, "session-f", "schedule-1")
		assert.Equal(t, archive.LogbookFired, it.LogbookState, "a failure is reported, not replayed forever")
		assert.Equal(t, archive.FireFailed, it.LastFire.Outcome)

		// The scheduler carries on: the other schedule still fires, by hand.
		ok, err := s.FireNow(ctx, "session-f", "schedule-2")
		require.NoError(t, err)
		assert.Equal(t, archive.FireOK, ok.Outcome)
	})
	t.Run("Timeout", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		e.WriteSession(t, "session-t", []schedulertest.Spec{{Kind: "at", Prompt: "hangs", At: soon(time.Hour)}}, nil)
		script, _ := scriptWith(t, "exec sleep 30")
		cfg := DefaultConfig()
		cfg.Action, cfg.Command, cfg.TimeoutSeconds, cfg.Retries = ActionCommand, []string{script}, 0.3, 0
		s := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, Config: cfg})
		start := time.Now()
		f, err := s.FireNow(ctx, "session-t", "schedule-1")
		require.NoError(t, err)
		assert.Less(t, time.Since(start), 5*time.Second)
		assert.Equal(t, archive.FireFailed, f.Outcome)
		assert.Contains(t, f.Error, "timed out")
		assert.False(t, f.Settles, "a failed manual fire leaves the schedule armed")
		assert.Equal(t, archive.LogbookScheduled, e.Item(t, "session-t", "schedule-1").LogbookState)
	})
	t.Run("MissingProgram", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		e.WriteSession(t, "session-m", []schedulertest.Spec{{Kind: "at", Prompt: "x", At: soon(time.Hour)}}, nil)
		cfg := DefaultConfig()
		cfg.Action, cfg.Command, cfg.Retries = ActionCommand, []string{filepath.Join(t.TempDir(), "nope")}, 0
		s := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, Config: cfg})
		f, err := s.FireNow(ctx, "session-m", "schedule-1")
		require.NoError(t, err)
		assert.Equal(t, archive.FireFailed, f.Outcome)
		assert.Contains(t, f.Error, "nope")
	})
}

// hookServer is an in-process webhook receiver answering the statuses in order
// (the last one repeats).
type hookServer struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	bodies   [][]byte
	headers  []http.Header
}

func newHookServer(t *testing.T, statuses ...int) *hookServer {
	h := &hookServer{statuses: statuses}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, body)
		h.headers = append(h.headers, r.Header.Clone())
		st := h.statuses[min(len(h.bodies), len(h.statuses))-1]
		h.mu.Unlock()
		if r.Method != http.MethodPost {
			st = http.StatusMethodNotAllowed
		}
		w.WriteHeader(st)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookServer) requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bodies)
}

func TestSchedulerWebhookAction(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	at := soon(time.Second)
	e.WriteSession(t, "session-w", []schedulertest.Spec{{Kind: "at", Prompt: "ping \"the\" <team>", At: at}}, nil)
	hook := newHookServer(t, http.StatusNoContent)
	cfg := fastRetries(DefaultConfig())
	cfg.Action, cfg.WebhookURL = ActionWebhook, hook.URL+"/hook"
	_, log := startScheduler(t, e, cfg)

	f := log.waitN(t, 1, 5*time.Second)[0]
	require.Equal(t, archive.FireOK, f.Outcome, f.Error)
	require.Equal(t, 1, hook.requests())
	var got map[string]any
	require.NoError(t, json.Unmarshal(hook.bodies[0], &got))
	assert.Equal(t, map[string]any{
		"event": "schedule.fired", "session_id": "session-w", "schedule_id": "schedule-1", "kind": "at",
		"prompt": "ping \"the\" <team>", "cwd": schedCwd, "target_at": at.Format(time.RFC3339Nano),
		"fired_at": got["fired_at"], "trigger": "scheduled", "attempt": float64(1),
	}, got)
	assert.Equal(t, "application/json", hook.headers[0].Get("Content-Type"))
	assert.NotEmpty(t, hook.headers[0].Get("Idempotency-Key"))
}

func TestSchedulerWebhookFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("RetriedUntilItWorks", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		e.WriteSession(t, "session-w", []schedulertest.Spec{{Kind: "at", Prompt: "ping", At: soon(time.Second)}}, nil)
		hook := newHookServer(t, 503, 500, 200)
		cfg := fastRetries(DefaultConfig())
		cfg.Action, cfg.WebhookURL = ActionWebhook, hook.URL
		_, log := startScheduler(t, e, cfg)
		f := log.waitN(t, 1, 5*time.Second)[0]
		assert.Equal(t, archive.FireOK, f.Outcome)
		assert.Equal(t, 3, f.Attempts)
		assert.Equal(t, 3, hook.requests())
		var keys []string
		for _, h := range hook.headers {
			keys = append(keys, h.Get("Idempotency-Key"))
		}
		assert.Equal(t, []string{keys[0], keys[0], keys[0]}, keys, "retries carry the same key")
	})
	t.Run("FailingIsReportedAndTheSchedulerCarriesOn", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		e.WriteSession(t, "session-w", []schedulertest.Spec{
			{Kind: "at", Prompt: "ping", At: soon(time.Second)},
			{Kind: "at", Prompt: "pong", At: soon(1500 * time.Millisecond)},
		}, nil)
		hook := newHookServer(t, http.StatusInternalServerError)
		cfg := fastRetries(DefaultConfig())
		cfg.Action, cfg.WebhookURL = ActionWebhook, hook.URL
		s, log := startScheduler(t, e, cfg)
		fires := log.waitN(t, 2, 6*time.Second)
		for _, f := range fires {
			assert.Equal(t, archive.FireFailed, f.Outcome)
			assert.Equal(t, 3, f.Attempts)
			assert.Equal(t, "webhook answered 500 Internal Server Error", f.Error)
		}
		assert.Equal(t, 6, hook.requests())
		assert.True(t, s.Running())
		hist, err := e.Store.ScheduleFires(ctx, "session-w", "schedule-1", 0)
		require.NoError(t, err)
		require.Len(t, hist, 1)
		assert.Equal(t, archive.FireFailed, hist[0].Outcome)
	})
	t.Run("Unreachable", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		e.WriteSession(t, "session-u", []schedulertest.Spec{{Kind: "at", Prompt: "ping", At: soon(time.Hour)}}, nil)
		hook := newHookServer(t, 200)
		hook.Close() // nothing listens there any more
		cfg := DefaultConfig()
		cfg.Action, cfg.WebhookURL, cfg.Retries = ActionWebhook, hook.URL, 0
		s := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, Config: cfg})
		f, err := s.FireNow(ctx, "session-u", "schedule-1")
		require.NoError(t, err)
		assert.Equal(t, archive.FireFailed, f.Outcome)
		assert.Contains(t, f.Error, "webhook")
	})
}

func TestSchedulerNotifyPanicIsContained(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	e.WriteSession(t, "session-p", []schedulertest.Spec{
		{Kind: "at", Prompt: "one", At: soon(time.Second)},
		{Kind: "at", Prompt: "two", At: soon(1300 * time.Millisecond)},
	}, nil)
	var mu sync.Mutex
	n := 0
	s, _ := startScheduler(t, e, DefaultConfig(), func(o *Options) {
		o.Notify = func(Fire) { mu.Lock(); n++; mu.Unlock(); panic("hook bug") }
	})
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return n == 2 }, 5*time.Second, 10*time.Millisecond)
	assert.True(t, s.Running())
	assert.Equal(t, archive.LogbookFired, e.Item(t, "session-p", "schedule-2").LogbookState)
}

func TestSchedulerConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	tests := []struct {
		name   string
		modify func(*Config)
		err    string // "" = valid
	}{
		{"Default", func(*Config) {}, ""},
		{"Command", func(c *Config) { c.Action, c.Command = ActionCommand, []string{"dsh", "{prompt}"} }, ""},
		{"CommandMissing", func(c *Config) { c.Action = ActionCommand }, "needs a command"},
		{"CommandBlankProgram", func(c *Config) { c.Action, c.Command = ActionCommand, []string{" "} }, "needs a command"},
		{"ProgramFromPrompt", func(c *Config) { c.Action, c.Command = ActionCommand, []string{"{prompt}"} }, "cannot contain {prompt}"},
		{"ProgramFromCwd", func(c *Config) { c.Action, c.Command = ActionCommand, []string{"{cwd}/run.sh", "x"} }, "cannot contain {cwd}"},
		{"Webhook", func(c *Config) { c.Action, c.WebhookURL = ActionWebhook, "https://example.test/h" }, ""},
		{"WebhookNotHTTP", func(c *Config) { c.Action, c.WebhookURL = ActionWebhook, "file:///etc/passwd" }, "http"},
		{"WebhookRelative", func(c *Config) { c.Action, c.WebhookURL = ActionWebhook, "/hook" }, "http"},
		{"UnknownAction", func(c *Config) { c.Action = "email" }, "notify, command or webhook"},
		{"ZeroTimeout", func(c *Config) { c.TimeoutSeconds = 0 }, "timeout"},
		{"NegativeRetries", func(c *Config) { c.Retries = -1 }, "retries"},
		{"TooManyRetries", func(c *Config) { c.Retries = 11 }, "retries"},
		{"HugeBackoff", func(c *Config) { c.BackoffSeconds = 3600 }, "backoff"},
		{"UnknownCatchUp", func(c *Config) { c.CatchUp = "replay" }, "fire, ask or skip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.modify(&c)
			err := c.Validate()
			if tt.err == "" {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
			}
		})
	}
}

func TestSchedulerConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "scheduler.json")
	t.Run("MissingIsDefault", func(t *testing.T) {
		c, err := LoadConfig(path)
		require.NoError(t, err)
		assert.Equal(t, DefaultConfig(), c)
	})
	t.Run("RoundTripUserOnly", func(t *testing.T) {
		want := DefaultConfig()
		want.Action, want.Command, want.CatchUp, want.Retries = ActionCommand, []string{"dsh", "resume", "{session}"}, CatchUpAsk, 0
		require.NoError(t, SaveConfig(path, want))
		got, err := LoadConfig(path)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		if runtime.GOOS != "windows" {
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		}
	})
	t.Run("PartialFileKeepsDefaults", func(t *testing.T) {
		require.NoError(t, os.WriteFile(path, []byte(`{"catch_up":"skip"}`), 0o600))
		got, err := LoadConfig(path)
		require.NoError(t, err)
		want := DefaultConfig()
		want.CatchUp = CatchUpSkip
		assert.Equal(t, want, got)
	})
	t.Run("InvalidRefusedSaveAndLoad", func(t *testing.T) {
		assert.Error(t, SaveConfig(path, Config{Action: "email"}))
		require.NoError(t, os.WriteFile(path, []byte(`{"action":"command"}`), 0o600))
		c, err := LoadConfig(path)
		assert.Error(t, err)
		assert.Equal(t, DefaultConfig(), c, "a broken file falls back to notify only")
		require.NoError(t, os.WriteFile(path, []byte(`{not json`), 0o600))
		_, err = LoadConfig(path)
		assert.Error(t, err)
	})
	t.Run("SchedulerSavesAndReloads", func(t *testing.T) {
		e := newSchedEnv(t)
		p := filepath.Join(t.TempDir(), "scheduler.json")
		s := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, ConfigPath: p})
		c := s.Config()
		c.CatchUp = CatchUpSkip
		require.NoError(t, s.SetConfig(c))
		assert.Error(t, s.SetConfig(Config{Action: "email"}))
		assert.Equal(t, CatchUpSkip, s.Config().CatchUp, "a refused config changes nothing")
		s2 := New(e.Store, Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, ConfigPath: p})
		require.NoError(t, s2.Start(context.Background()))
		defer s2.Stop()
		assert.Equal(t, CatchUpSkip, s2.Config().CatchUp)
	})
}

func TestSchedulerExpandArgs(t *testing.T) {
	p := firePayload{SessionID: "session-1", ScheduleID: "schedule-2", Cwd: "/w d", Prompt: "say {cwd} and {session}"}
	got := expandArgs([]string{"agent", "--cwd={cwd}", "{prompt}", "{session}{schedule}", "{{prompt}}"}, p)
	assert.Equal(t, []string{"agent", "--cwd=/w d", "say {cwd} and {session}", "session-1schedule-2",
		"{say {cwd} and {session}}"}, got)
}

func TestSchedulerTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 4}
	_, _ = b.Write([]byte("abc"))
	_, _ = b.Write([]byte("defg"))
	assert.Equal(t, "defg", b.String())
	_, _ = io.Copy(b, bytes.NewReader([]byte("xy")))
	assert.Equal(t, "fgxy", b.String())
}

// TestSchedulerForeignSessionsAsk imports a session from outside this machine's
// agent roots whose scheduled prompt is an hour overdue, with the command action and
// the catch-up policy "fire". The command never runs by itself: the fire is asked,
// says why, and runs only when the person fires it. The same session under a local
// root fires on its own.
func TestSchedulerForeignSessionsAsk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		local bool
	}{{"ForeignAsks", false}, {"LocalFires", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newSchedEnv(t)
			e.WriteSession(t, "session-x", []schedulertest.Spec{{Kind: "at", Prompt: "run me", At: time.Now().Add(-time.Hour)}}, nil)
			script, calls := argvScript(t)
			cfg := fastRetries(DefaultConfig())
			cfg.Action, cfg.Command, cfg.CatchUp = ActionCommand, []string{script, "{prompt}", "{cwd}"}, CatchUpFire
			roots := []string{t.TempDir()} // this machine's agent folder, elsewhere
			if tc.local {
				roots = []string{e.Root}
			}
			s, log := startScheduler(t, e, cfg, func(o *Options) { o.LocalRoots = roots })

			f := log.waitN(t, 1, 5*time.Second)[0]
			if tc.local {
				assert.Equal(t, archive.FireOK, f.Outcome, f.Error)
				assert.Len(t, calls(), 1)
				return
			}
			assert.Equal(t, archive.FireAsked, f.Outcome)
			assert.Contains(t, f.Error, "not archived from this machine's own agent folders")
			time.Sleep(300 * time.Millisecond)
			assert.Empty(t, calls(), "someone else's prompt never reaches the command by itself")
			it := e.Item(t, "session-x", "schedule-1")
			require.NotNil(t, it.LastFire)
			assert.Equal(t, archive.FireAsked, it.LastFire.Outcome)

			ok, err := s.FireNow(ctx, "session-x", "schedule-1")
			require.NoError(t, err)
			assert.Equal(t, archive.FireOK, ok.Outcome, ok.Error)
			require.Len(t, calls(), 1, "the person's own fire runs it")
			assert.Equal(t, []string{"run me", schedCwd}, calls()[0])
		})
	}
}
