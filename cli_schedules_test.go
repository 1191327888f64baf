package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/scheduler"
)

// importSchedules imports one session (session-cli) whose schedules have the given
// targets (one-shots "at"), and returns the data directory.
func importSchedules(t *testing.T, targets ...time.Time) string {
	t.Helper()
	s := dshgen.New(dshgen.Options{Seed: 3, ID: "session-cli", Cwd: "/home/u/cli", Families: dshgen.FamilyTools})
	s.Turn(func(tb *dshgen.Turn) {
		tb.User("remind me")
		tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Text("ok")) })
	})
	for i, at := range targets {
		s.ScheduleCreateAt("at", "reminder "+string(rune('A'+i)), at.UnixMilli(), 0)
	}
	// The session sits in this machine's own agent folder ($DSH_HOME/sessions): only
	// such a session's prompts run a command by themselves.
	home, data := t.TempDir(), t.TempDir()
	t.Setenv("DSH_HOME", home)
	root := filepath.Join(home, "sessions")
	_, err := s.Log().WriteFile(root, false)
	require.NoError(t, err)
	rep := mustJSON[map[string]any](t, data, "import", "--json", root)
	require.Equal(t, "ok", objs(t, rep["files"])[0]["verdict"])
	return data
}

func scheduleByID(t *testing.T, data, id string) map[string]any {
	t.Helper()
	for _, it := range objs(t, mustJSON[any](t, data, "schedules", "--json")) {
		if it["id"] == id {
			return it
		}
	}
	t.Fatalf("schedule %s not listed", id)
	return nil
}

func TestCLIScheduleActions(t *testing.T) {
	hour := time.Now().Add(time.Hour).Truncate(time.Second).UTC()
	data := importSchedules(t, hour, hour.Add(time.Hour))

	it := scheduleByID(t, data, "schedule-1")
	assert.Equal(t, "scheduled", it["logbook_state"])
	assert.Equal(t, it["next_fire"], it["logbook_next_fire"])
	assert.NotContains(t, it, "override")

	r := cliData(t, data, "schedules", "pause", "session-cli", "schedule-1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "schedule-1 of session-cli: paused\n", r.stdout)
	it = scheduleByID(t, data, "schedule-1")
	assert.Equal(t, "paused", it["override"])
	assert.Equal(t, "paused", it["logbook_state"])
	assert.Equal(t, "scheduled", it["state"], "the fold's view is unchanged")

	r = cliData(t, data, "schedules", "snooze", "session-cli", "schedule-2", "3h")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "scheduled (next fire")
	it = scheduleByID(t, data, "schedule-2")
	assert.NotNil(t, it["snoozed_until"])
	assert.NotEqual(t, it["next_fire"], it["logbook_next_fire"])

	r = cliData(t, data, "schedules", "resume", "session-cli", "schedule-1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "scheduled", scheduleByID(t, data, "schedule-1")["logbook_state"])

	// fire runs the configured action (notify by default) and records it.
	fire := mustJSON[map[string]any](t, data, "schedules", "fire", "--json", "session-cli", "schedule-1")
	assert.Equal(t, "ok", fire["outcome"])
	assert.Equal(t, "manual", fire["trigger"])
	assert.Positive(t, assertInstantsUTC(t, fire))
	it = scheduleByID(t, data, "schedule-1")
	assert.Equal(t, "fired", it["logbook_state"])
	for _, it := range objs(t, mustJSON[any](t, data, "schedules", "--json", "--now", "2200-01-01T00:00:00Z")) {
		if it["id"] == "schedule-1" {
			assert.Equal(t, "overdue", it["state"], "dsh would still deliver it on resume")
			assert.Equal(t, "fired", it["logbook_state"], "Logbook already did")
		}
	}
}

func TestCLISchedulesTable(t *testing.T) {
	data := importSchedules(t, time.Now().Add(time.Hour))
	require.Equal(t, 0, cliData(t, data, "schedules", "dismiss", "session-cli", "schedule-1").code)
	r := cliData(t, data, "schedules")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "LOGBOOK")
	assert.Contains(t, r.stdout, "dismissed")
	r = cliData(t, data, "schedules", "skip", "session-cli", "schedule-1")
	assert.Equal(t, 1, r.code, "a dismissed schedule has nothing to skip")
	assert.Contains(t, r.stderr, "nothing to skip")
}

func TestCLIScheduleErrors(t *testing.T) {
	data := importSchedules(t, time.Now().Add(time.Hour))
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing schedule", []string{"schedules", "pause", "session-cli"}, 2, "takes SESSION SCHEDULE"},
		{"snooze without duration", []string{"schedules", "snooze", "session-cli", "schedule-1"}, 2, "DURATION"},
		{"bad duration", []string{"schedules", "snooze", "session-cli", "schedule-1", "soon"}, 2, "like 30m"},
		{"zero duration", []string{"schedules", "snooze", "session-cli", "schedule-1", "0s"}, 2, "positive"},
		{"unknown schedule", []string{"schedules", "pause", "session-cli", "schedule-9"}, 1, "schedule-9"},
		{"unknown session", []string{"schedules", "fire", "session-nosuch", "schedule-1"}, 1, "session-nosuch"},
		{"scheduler bad policy", []string{"scheduler", "--policy", "replay"}, 2, "fire, ask or skip"},
		{"scheduler two actions", []string{"scheduler", "--webhook", "http://127.0.0.1:1/", "--", "echo"}, 2, "choose one action"},
		{"scheduler bad webhook", []string{"scheduler", "--webhook", "ftp://x"}, 2, "http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cliData(t, data, tt.args...)
			assert.Equal(t, tt.code, r.code, "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, tt.msg)
			assert.Empty(t, r.stdout)
		})
	}
}

func TestCLISchedulerRunsUntilInterrupted(t *testing.T) {
	at := time.Now().Add(time.Second).Truncate(time.Millisecond)
	data := importSchedules(t, at, time.Now().Add(-time.Hour))
	// The command action, given after "--": a script that records its arguments.
	dir := t.TempDir()
	script := filepath.Join(dir, "got.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s|' \"$@\" >> '"+dir+"/args'\n"), 0o755))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--data", data, "scheduler", "--policy", "skip", "--save", "--", script, "{schedule}", "{prompt}"}, &out, &errOut)
	}()
	// The missed one is skipped at once (policy skip); the other fires on time.
	require.Eventually(t, func() bool { return strings.Count(out.String(), "\n") >= 2 }, 6*time.Second, 20*time.Millisecond,
		"stdout: %q stderr: %q", out.String(), errOut.String())
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
	case <-time.After(15 * time.Second):
		t.Fatal("scheduler did not stop on interrupt")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	// when (2 fields), outcome, trigger, action, schedule, prompt
	assert.Equal(t, []string{"skipped", "catch-up", "none", "session-cli/schedule-2", "reminder", "B"}, strings.Fields(lines[0])[2:])
	assert.Equal(t, []string{"ok", "scheduled", "command", "session-cli/schedule-1", "reminder", "A"}, strings.Fields(lines[1])[2:])
	assert.Contains(t, errOut.String(), "Scheduler running (action command, catch-up skip)")
	got, err := os.ReadFile(filepath.Join(dir, "args"))
	require.NoError(t, err)
	assert.Equal(t, "schedule-1|reminder A|", string(got), "only the on-time fire ran the command")

	// --save kept the configuration; the history is in the archive.
	saved, err := os.ReadFile(filepath.Join(data, "scheduler.json"))
	require.NoError(t, err)
	assert.Contains(t, string(saved), `"catch_up": "skip"`)
	assert.Equal(t, "fired", scheduleByID(t, data, "schedule-1")["logbook_state"])
	assert.Equal(t, "fired", scheduleByID(t, data, "schedule-2")["logbook_state"])
}

func TestCLISchedulerPicksUpOtherImports(t *testing.T) {
	old := schedulerWatchEvery
	schedulerWatchEvery = 100 * time.Millisecond
	t.Cleanup(func() { schedulerWatchEvery = old })

	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--data", data, "scheduler", "--notify"}, &out, &errOut) }()
	require.Eventually(t, func() bool { return strings.Contains(errOut.String(), "Scheduler running") }, 5*time.Second, 20*time.Millisecond)

	// Another process imports a session with a schedule due in a moment; the running
	// scheduler notices without a restart or a signal, and fires it.
	s := dshgen.New(dshgen.Options{Seed: 4, ID: "session-later", Cwd: "/home/u/later", Families: dshgen.FamilyTools})
	s.Turn(func(tb *dshgen.Turn) {
		tb.User("remind me")
		tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Text("ok")) })
	})
	s.ScheduleCreateAt("at", "imported later", time.Now().Add(1500*time.Millisecond).UnixMilli(), 0)
	root := t.TempDir()
	_, err := s.Log().WriteFile(root, false)
	require.NoError(t, err)
	var iout, ierr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--data", data, "import", root}, &iout, &ierr), ierr.String())

	require.Eventually(t, func() bool { return strings.Contains(out.String(), "imported later") }, 6*time.Second, 20*time.Millisecond,
		"stdout: %q stderr: %q", out.String(), errOut.String())
	assert.Contains(t, out.String(), "session-later/schedule-1")
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
	case <-time.After(15 * time.Second):
		t.Fatal("scheduler did not stop on interrupt")
	}
}

func TestCLISchedulerSaveWhileAnotherInstanceRuns(t *testing.T) {
	data := importSchedules(t, time.Now().Add(time.Hour))
	release, err := lockDataDir(data, "serve") // `logbook serve` holds the data directory
	require.NoError(t, err)
	defer release()

	r := cliData(t, data, "scheduler", "--save", "--", "/bin/echo", "{prompt}")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "saved "+filepath.Join(data, "scheduler.json"))
	assert.Contains(t, r.stderr, "already using the archive")
	cfg, err := scheduler.LoadConfig(filepath.Join(data, "scheduler.json"))
	require.NoError(t, err)
	assert.Equal(t, []string{"/bin/echo", "{prompt}"}, cfg.Command, "the running instance picks it up (Scheduler.Config)")

	r = cliData(t, data, "scheduler", "--notify")
	assert.Equal(t, 1, r.code)
	assert.NotContains(t, r.stderr, "saved", "nothing was saved without --save")
}
