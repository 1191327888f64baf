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
