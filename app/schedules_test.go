package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/scheduler"
	"github.com/logbook/logbook/scheduler/schedulertest"
)

// newScheduleApp is an App over e's archive with a started scheduler (as Startup
// starts it), and a browser-like subscription to its events.
func newScheduleApp(t *testing.T, e *schedulertest.Env, withScheduler bool) (*App, *subscription) {
	t.Helper()
	hub := NewHub()
	d := Deps{Archive: e.Store, Logger: quietLogger(), Events: hub, Roots: []string{}}
	if withScheduler {
		d.Scheduler = scheduler.New(e.Store, scheduler.Options{Logger: quietLogger()})
	}
	a := New(d)
	a.startScheduler()
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	sub := hub.subscribe()
	t.Cleanup(func() { hub.unsubscribe(sub) })
	return a, sub
}

func TestScheduleMethods(t *testing.T) {
	t.Parallel()
	e := schedulertest.NewEnv(t)
	e.WriteSession(t, "session-ui", []schedulertest.Spec{
		{Kind: "at", Prompt: "ui one-shot", At: schedulertest.Soon(time.Hour)},
		{Kind: "every", Prompt: "ui hourly", At: schedulertest.Soon(time.Hour), Seconds: 3600},
	}, nil)
	a, sub := newScheduleApp(t, e, true)
	require.True(t, a.deps.Scheduler.Running(), "startScheduler started it")

	items, err := a.Schedules()
	require.NoError(t, err)
	require.Len(t, items, 2)
	assert.Equal(t, archive.LogbookScheduled, items[0].LogbookState)

	state := func(id string) string { return e.Item(t, "session-ui", id).LogbookState }
	require.NoError(t, a.ScheduleAction("session-ui", "schedule-1", "pause", 0))
	assert.Equal(t, archive.LogbookPaused, state("schedule-1"))
	require.NoError(t, a.ScheduleAction("session-ui", "schedule-1", "resume", 0))
	assert.Equal(t, archive.LogbookScheduled, state("schedule-1"))
	require.NoError(t, a.ScheduleAction("session-ui", "schedule-1", "snooze", 120))
	assert.NotNil(t, e.Item(t, "session-ui", "schedule-1").SnoozedUntil)
	require.NoError(t, a.ScheduleAction("session-ui", "schedule-2", "skip", 0))
	require.NoError(t, a.ScheduleAction("session-ui", "schedule-2", "dismiss", 0))
	assert.Equal(t, archive.LogbookDismissed, state("schedule-2"))

	// Fire now runs in the background; the outcome arrives as schedule:fired.
	require.NoError(t, a.ScheduleAction("session-ui", "schedule-1", "fire", 0))
	var got scheduler.Fire
	require.Eventually(t, func() bool {
		for _, ev := range sub.take() {
			if ev.Name == EventScheduleFired {
				require.NoError(t, json.Unmarshal(ev.Data, &got))
				return true
			}
		}
		return false
	}, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, "schedule-1", got.ScheduleID)
	assert.Equal(t, "ui one-shot", got.Prompt)
	assert.Equal(t, archive.TriggerManual, got.Trigger)
	assert.Equal(t, archive.LogbookFired, state("schedule-1"))

	fires, err := a.ScheduleFires("session-ui", "schedule-1")
	require.NoError(t, err)
	require.Len(t, fires, 1)
	assert.Equal(t, archive.FireOK, fires[0].Outcome)

	cfg, err := a.SchedulerConfig()
	require.NoError(t, err)
	assert.Equal(t, SchedulerConfig(scheduler.DefaultConfig()), cfg)
	cfg.CatchUp = scheduler.CatchUpAsk
	require.NoError(t, a.SetSchedulerConfig(cfg))
	cfg2, err := a.SchedulerConfig()
	require.NoError(t, err)
	assert.Equal(t, scheduler.CatchUpAsk, cfg2.CatchUp)

	// A browser may not choose a program to run; the desktop window may.
	cmd := cfg2
	cmd.Action, cmd.Command = scheduler.ActionCommand, []string{"/bin/echo", "{prompt}"}
	err = a.SetSchedulerConfig(cmd)
	require.Error(t, err)
	assert.Contains(t, FormatError(err), "desktop app")
	assert.Equal(t, scheduler.ActionNotify, a.deps.Scheduler.Config().Action)
	a.events.attach(&fakeShell{})
	require.NoError(t, a.SetSchedulerConfig(cmd))
	assert.Equal(t, []string{"/bin/echo", "{prompt}"}, a.deps.Scheduler.Config().Command)
	cmd.CatchUp = scheduler.CatchUpSkip
	a.events.attach(nil)
	require.NoError(t, a.SetSchedulerConfig(cmd), "the policy may change from a browser while the command stays")

	var ie *inputError
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"UnknownAction", a.ScheduleAction("session-ui", "schedule-1", "explode", 0)},
		{"NoIDs", a.ScheduleAction("", "schedule-1", "pause", 0)},
		{"SnoozeZero", a.ScheduleAction("session-ui", "schedule-1", "snooze", 0)},
		{"SnoozeTooLong", a.ScheduleAction("session-ui", "schedule-1", "snooze", maxSnoozeMinutes+1)},
		{"BadConfig", a.SetSchedulerConfig(SchedulerConfig{Action: "email"})},
		{"FiresNoIDs", func() error { _, err := a.ScheduleFires("session-ui", ""); return err }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.True(t, errors.As(tc.err, &ie), "%v is an input error", tc.err)
		})
	}
	err = a.ScheduleAction("session-ui", "schedule-9", "pause", 0)
	assert.ErrorIs(t, err, archive.ErrNotFound)
	assert.Contains(t, FormatError(err), "Not found")
}

func TestScheduleMethodsEndedAndWithoutScheduler(t *testing.T) {
	t.Parallel()
	e := schedulertest.NewEnv(t)
	e.WriteSession(t, "session-x", []schedulertest.Spec{{Kind: "at", Prompt: "gone", At: schedulertest.Soon(time.Hour)}},
		func(s *dshgen.Session) { require.True(t, s.ScheduleDelete("schedule-1")) })
	var ie *inputError
	t.Run("Ended", func(t *testing.T) {
		a, _ := newScheduleApp(t, e, true)
		for _, action := range []string{"pause", "snooze", "fire", "skip", "dismiss"} {
			err := a.ScheduleAction("session-x", "schedule-1", action, 5)
			require.True(t, errors.As(err, &ie), "%s: %v", action, err)
			assert.Contains(t, FormatError(err), "ended in its session")
		}
	})
	t.Run("NoScheduler", func(t *testing.T) {
		a, _ := newScheduleApp(t, e, false)
		items, err := a.Schedules()
		require.NoError(t, err, "listing needs only the archive")
		require.Len(t, items, 1)
		assert.Equal(t, archive.LogbookDeleted, items[0].LogbookState)
		assert.True(t, errors.As(a.ScheduleAction("session-x", "schedule-1", "pause", 0), &ie))
		_, err = a.SchedulerConfig()
		assert.True(t, errors.As(err, &ie))
		assert.True(t, errors.As(a.SetSchedulerConfig(SchedulerConfig(scheduler.DefaultConfig())), &ie))
	})
}

func TestSetSchedulerConfigFromBrowserSeesTheFile(t *testing.T) {
	t.Parallel()
	e := schedulertest.NewEnv(t)
	path := filepath.Join(t.TempDir(), "scheduler.json")
	a := New(Deps{Archive: e.Store, Logger: quietLogger(), Roots: []string{},
		Scheduler: scheduler.New(e.Store, scheduler.Options{Logger: quietLogger(), LocalRoots: []string{e.Root}, ConfigPath: path})})
	a.startScheduler()
	t.Cleanup(func() { a.Shutdown(context.Background()) })

	stale, err := a.SchedulerConfig() // what a browser tab loaded
	require.NoError(t, err)
	// Meanwhile the user sets a command outside the browser (by hand, or with
	// `logbook scheduler --save`, which writes the file while serve runs).
	cmd := scheduler.DefaultConfig()
	cmd.Action, cmd.Command = scheduler.ActionCommand, []string{"/bin/echo", "{prompt}"}
	require.NoError(t, scheduler.SaveConfig(path, cmd))
	later := time.Now().Add(2 * time.Second)
	require.NoError(t, os.Chtimes(path, later, later))

	stale.CatchUp = scheduler.CatchUpSkip
	err = a.SetSchedulerConfig(stale)
	require.Error(t, err, "the browser's stale copy would drop the command")
	assert.Contains(t, FormatError(err), "desktop app")
	got, err := scheduler.LoadConfig(path)
	require.NoError(t, err)
	assert.Equal(t, cmd, got, "the file keeps the command")

	fresh, err := a.SchedulerConfig()
	require.NoError(t, err)
	assert.Equal(t, cmd.Command, fresh.Command)
	fresh.CatchUp = scheduler.CatchUpSkip
	require.NoError(t, a.SetSchedulerConfig(fresh), "with the command as the file has it, the policy may change")
}
