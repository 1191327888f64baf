package scheduler

import (
	"context"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the DST tests need zones even where the system has none

	"github.com/robfig/cron/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/scheduler/schedulertest"
)

// Scheduler tests run a real cron instance against a real archive, with instants a
// second or two away: nothing sleeps longer than a few seconds, and every wait is a
// poll with a generous deadline, so a slow machine makes them slower, not flaky.

const schedCwd = schedulertest.Cwd

// schedEnv is the shared test archive (see schedulertest.Env).
type schedEnv = schedulertest.Env

func newSchedEnv(t *testing.T) *schedEnv { return schedulertest.NewEnv(t) }

var (
	soon        = schedulertest.Soon
	quietLogger = schedulertest.QuietLogger
)

// fireLog collects what the Notify hook reports.
type fireLog struct {
	mu    sync.Mutex
	fires []Fire
}

func (l *fireLog) add(f Fire) {
	l.mu.Lock()
	l.fires = append(l.fires, f)
	l.mu.Unlock()
}

func (l *fireLog) all() []Fire {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Fire(nil), l.fires...)
}

// waitN waits until n fires were reported and returns them.
func (l *fireLog) waitN(t *testing.T, n int, within time.Duration) []Fire {
	t.Helper()
	require.Eventually(t, func() bool { return len(l.all()) >= n }, within, 10*time.Millisecond,
		"want %d fires, have %d", n, len(l.all()))
	return l.all()
}

// startScheduler starts a scheduler over e's archive; it is stopped at cleanup.
func startScheduler(t *testing.T, e *schedEnv, cfg Config, mod ...func(*Options)) (*Scheduler, *fireLog) {
	t.Helper()
	log := &fireLog{}
	o := Options{Logger: quietLogger(), Config: cfg, Notify: log.add, LocalRoots: []string{e.Root}}
	for _, m := range mod {
		m(&o)
	}
	s := New(e.Store, o)
	require.NoError(t, s.Start(context.Background()))
	t.Cleanup(func() { _ = s.Stop() })
	return s, log
}

func fastRetries(c Config) Config {
	c.TimeoutSeconds, c.Retries, c.BackoffSeconds = 2, 2, 0.01
	return c
}

func armedKeys(s *Scheduler) map[string]time.Time {
	m := map[string]time.Time{}
	for _, a := range s.Armed() {
		m[a.SessionID+"/"+a.ScheduleID] = a.Next
	}
	return m
}

func TestSchedulerFiresOneShotsOnTime(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	at, after := soon(time.Second), soon(1200*time.Millisecond)
	e.WriteSession(t, "session-a", []schedulertest.Spec{
		{Kind: "at", Prompt: "call the vet", At: at},
		{Kind: "after", Prompt: "stretch", At: after, Seconds: 60},
		{Kind: "at", Prompt: "next year", At: soon(365 * 24 * time.Hour)},
	}, nil)
	s, log := startScheduler(t, e, DefaultConfig())
	require.Len(t, s.Armed(), 3)

	fires := log.waitN(t, 2, 5*time.Second)
	byID := map[string]Fire{}
	for _, f := range fires {
		byID[f.ScheduleID] = f
	}
	for id, want := range map[string]time.Time{"schedule-1": at, "schedule-2": after} {
		f := byID[id]
		assert.Equal(t, archive.TriggerScheduled, f.Trigger, id)
		assert.Equal(t, archive.FireOK, f.Outcome, id)
		assert.Equal(t, ActionNotify, f.Action, id)
		assert.True(t, f.TargetAt.Equal(want), "%s target %s, want %s", id, f.TargetAt, want)
		assert.False(t, f.FiredAt.Before(want), "%s fired early: %s < %s", id, f.FiredAt, want)
		assert.Less(t, f.FiredAt.Sub(want), time.Second, "%s fired late", id)
		assert.Equal(t, schedCwd, f.Cwd)
	}
	assert.Equal(t, "call the vet", byID["schedule-1"].Prompt)

	// Both are done and disarmed; the far one stays armed.
	require.Eventually(t, func() bool { return len(s.Armed()) == 1 }, 2*time.Second, 10*time.Millisecond)
	assert.Contains(t, armedKeys(s), "session-a/schedule-3")
	it := e.Item(t, "session-a", "schedule-1")
	assert.Equal(t, archive.LogbookFired, it.LogbookState)
	assert.EqualValues(t, 1, it.FireCount)
	require.NoError(t, s.Reload(context.Background()))
	time.Sleep(200 * time.Millisecond)
	assert.Len(t, log.all(), 2, "a settled one-shot never fires again")
}

func TestSchedulerEveryCadenceAnchorAligned(t *testing.T) {
	t.Parallel()
	t.Run("OneSecondGridWithTestMinimum", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		anchor := soon(800 * time.Millisecond)
		e.WriteSession(t, "session-e", []schedulertest.Spec{{Kind: "every", Prompt: "tick", At: anchor, Seconds: 300}}, nil)
		e.SetEverySeconds(t, "schedule-1", 1)
		_, log := startScheduler(t, e, DefaultConfig(), func(o *Options) { o.MinEvery = time.Second })
		fires := log.waitN(t, 3, 6*time.Second)
		for i, f := range fires[:3] {
			want := anchor.Add(time.Duration(i) * time.Second)
			assert.True(t, f.TargetAt.Equal(want), "fire %d for %s, want %s", i, f.TargetAt, want)
			assert.Equal(t, archive.TriggerScheduled, f.Trigger)
			assert.Less(t, f.FiredAt.Sub(want), 900*time.Millisecond, "fire %d late", i)
		}
	})
	t.Run("DefaultMinimumRefusesShortInterval", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		e.WriteSession(t, "session-e", []schedulertest.Spec{{Kind: "every", Prompt: "tick", At: soon(time.Second), Seconds: 300}}, nil)
		e.SetEverySeconds(t, "schedule-1", 1)
		s, _ := startScheduler(t, e, DefaultConfig())
		assert.Empty(t, s.Armed(), "an every under 300 s is never armed")
	})
	t.Run("RealIntervalFiresThenNextGridPoint", func(t *testing.T) {
		t.Parallel()
		e := newSchedEnv(t)
		anchor := soon(time.Second)
		e.WriteSession(t, "session-e", []schedulertest.Spec{{Kind: "every", Prompt: "tick", At: anchor, Seconds: 300}}, nil)
		s, log := startScheduler(t, e, DefaultConfig())
		f := log.waitN(t, 1, 5*time.Second)[0]
		assert.True(t, f.TargetAt.Equal(anchor))
		next := anchor.Add(300 * time.Second)
		require.Eventually(t, func() bool { return armedKeys(s)["session-e/schedule-1"].Equal(next) },
			2*time.Second, 10*time.Millisecond, "re-armed on the grid: %v", s.Armed())
		it := e.Item(t, "session-e", "schedule-1")
		assert.True(t, it.LogbookNextFire.Equal(next))
		assert.Equal(t, archive.LogbookScheduled, it.LogbookState)
	})
}

func TestSchedulerCatchUpPolicies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		policy      string
		wantOutcome string
		ran         bool // the action (a command) ran
	}{
		{CatchUpFire, archive.FireOK, true},
		{CatchUpAsk, archive.FireAsked, false},
		{CatchUpSkip, archive.FireSkipped, false},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			t.Parallel()
			e := newSchedEnv(t)
			now := time.Now().UTC()
			anchor := now.Add(-10*time.Hour - 20*time.Minute).Truncate(time.Millisecond)
			e.WriteSession(t, "session-c", []schedulertest.Spec{
				{Kind: "at", Prompt: "missed one-shot", At: now.Add(-time.Hour).Truncate(time.Millisecond)},
				{Kind: "every", Prompt: "missed hourly", At: anchor, Seconds: 3600},
			}, nil)
			script, calls := argvScript(t)
			cfg := fastRetries(DefaultConfig())
			cfg.Action, cfg.Command, cfg.CatchUp = ActionCommand, []string{script, "{schedule}"}, tt.policy
			s, log := startScheduler(t, e, cfg)

			fires := log.waitN(t, 2, 5*time.Second)
			for _, f := range fires {
				assert.Equal(t, archive.TriggerCatchUp, f.Trigger, f.ScheduleID)
				assert.Equal(t, tt.wantOutcome, f.Outcome, f.ScheduleID)
			}
			if tt.ran {
				assert.ElementsMatch(t, [][]string{{"schedule-1"}, {"schedule-2"}}, calls())
			} else {
				assert.Empty(t, calls(), "the %s policy runs no action", tt.policy)
			}
			// However often the archive is reloaded, nothing fires or asks twice.
			require.NoError(t, s.Reload(context.Background()))
			time.Sleep(300 * time.Millisecond)
			require.NoError(t, s.Reload(context.Background()))
			time.Sleep(100 * time.Millisecond)
			assert.Len(t, log.all(), 2)

			once := e.Item(t, "session-c", "schedule-1")
			every := e.Item(t, "session-c", "schedule-2")
			if tt.policy == CatchUpAsk {
				assert.Equal(t, archive.LogbookOverdue, once.LogbookState, "waiting for the answer")
				assert.Equal(t, archive.LogbookOverdue, every.LogbookState)
				assert.Empty(t, s.Armed(), "a question is not re-armed")
				// The user answers: fire the one-shot, skip the every.
				f, err := s.FireNow(context.Background(), "session-c", "schedule-1")
				require.NoError(t, err)
				assert.Equal(t, archive.TriggerManual, f.Trigger)
				assert.True(t, f.Settles)
				_, err = s.Skip(context.Background(), "session-c", "schedule-2")
				require.NoError(t, err)
				once = e.Item(t, "session-c", "schedule-1")
				every = e.Item(t, "session-c", "schedule-2")
				assert.Equal(t, [][]string{{"schedule-1"}}, calls())
			}
			assert.Equal(t, archive.LogbookFired, once.LogbookState)
			// The every fires (or is skipped) once, then resumes on its grid: the ten
			// missed intervals are not replayed.
			require.NotNil(t, every.LogbookNextFire)
			wantNext := dsh.NextEveryAfter(anchor, time.Hour, now)
			assert.True(t, every.LogbookNextFire.Equal(wantNext), "next %s, want %s", every.LogbookNextFire, wantNext)
			assert.Equal(t, archive.LogbookScheduled, every.LogbookState)
			assert.Equal(t, wantNext, armedKeys(s)["session-c/schedule-2"])
		})
	}
}

func TestSchedulerRestartCatchUp(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	at := soon(1500 * time.Millisecond)
	e.WriteSession(t, "session-r", []schedulertest.Spec{
		{Kind: "at", Prompt: "while closed", At: at},
		{Kind: "every", Prompt: "hourly", At: soon(time.Hour), Seconds: 3600},
	}, nil)

	// First run: armed, then Logbook closes before the instant.
	s1, log1 := startScheduler(t, e, DefaultConfig())
	assert.Len(t, s1.Armed(), 2)
	require.NoError(t, s1.Stop())
	e.Close(t)
	time.Sleep(time.Until(at) + 100*time.Millisecond)
	assert.Empty(t, log1.all(), "nothing fires while closed")

	// Reopened later: the missed one-shot fires once, as a catch-up.
	e.Reopen(t)
	s2, log2 := startScheduler(t, e, DefaultConfig())
	f := log2.waitN(t, 1, 5*time.Second)[0]
	assert.Equal(t, "schedule-1", f.ScheduleID)
	assert.Equal(t, archive.TriggerCatchUp, f.Trigger)
	assert.True(t, f.TargetAt.Equal(at))
	require.Eventually(t, func() bool { return len(s2.Armed()) == 1 }, 2*time.Second, 10*time.Millisecond)
	require.NoError(t, s2.Stop())
	e.Close(t)

	// Reopened once more: the fire history is in the archive, so nothing repeats.
	e.Reopen(t)
	s3, log3 := startScheduler(t, e, DefaultConfig())
	time.Sleep(300 * time.Millisecond)
	assert.Empty(t, log3.all())
	assert.Equal(t, []string{"session-r/schedule-2"}, keys(armedKeys(s3)))
	fires, err := e.Store.ScheduleFires(context.Background(), "session-r", "schedule-1", 0)
	require.NoError(t, err)
	require.Len(t, fires, 1)
	assert.Equal(t, archive.TriggerCatchUp, fires[0].Trigger)
}

func keys(m map[string]time.Time) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestSchedulerReloadFollowsImports(t *testing.T) {
	t.Parallel()
	e := newSchedEnv(t)
	s, log := startScheduler(t, e, DefaultConfig())
	assert.Empty(t, s.Armed())

	// A new session arrives: after Reload its schedule is armed without a restart.
	doomed := soon(1500 * time.Millisecond)
	specs := []schedulertest.Spec{{Kind: "at", Prompt: "doomed", At: doomed}}
	e.WriteSession(t, "session-n", specs, nil)
	require.NoError(t, s.Reload(context.Background()))
	assert.Contains(t, armedKeys(s), "session-n/schedule-1")

	// The session deletes it and creates another: the next import disarms the first
	// and arms the second.
	fresh := soon(1200 * time.Millisecond)
	e.WriteSession(t, "session-n", specs, func(ss *dshgen.Session) {
		require.True(t, ss.ScheduleDelete("schedule-1"))
		ss.ScheduleCreateAt("at", "fresh", fresh.UnixMilli(), 0)
	})
	require.NoError(t, s.Reload(context.Background()))
	assert.Equal(t, []string{"session-n/schedule-2"}, keys(armedKeys(s)))
	assert.Equal(t, archive.LogbookDeleted, e.Item(t, "session-n", "schedule-1").LogbookState)

	f := log.waitN(t, 1, 5*time.Second)[0]
	assert.Equal(t, "schedule-2", f.ScheduleID)
	time.Sleep(time.Until(doomed) + 200*time.Millisecond)
	assert.Len(t, log.all(), 1, "the deleted schedule never fires")
}

func TestSchedulerOverrides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newSchedEnv(t)
	far := soon(time.Hour)
	e.WriteSession(t, "session-o", []schedulertest.Spec{
		{Kind: "at", Prompt: "later", At: far},
		{Kind: "every", Prompt: "hourly", At: far, Seconds: 3600},
	}, nil)
	s, log := startScheduler(t, e, DefaultConfig())
	require.Len(t, s.Armed(), 2)

	require.NoError(t, s.Pause(ctx, "session-o", "schedule-1"))
	assert.NotContains(t, armedKeys(s), "session-o/schedule-1")
	assert.Equal(t, archive.LogbookPaused, e.Item(t, "session-o", "schedule-1").LogbookState)
	require.NoError(t, s.Resume(ctx, "session-o", "schedule-1"))
	assert.Equal(t, far, armedKeys(s)["session-o/schedule-1"])

	require.NoError(t, s.Dismiss(ctx, "session-o", "schedule-2"))
	assert.NotContains(t, armedKeys(s), "session-o/schedule-2")
	assert.Equal(t, archive.LogbookDismissed, e.Item(t, "session-o", "schedule-2").LogbookState)

	// A snooze moves the next fire (and so the cron entry) to its end.
	e.WriteSession(t, "session-d", []schedulertest.Spec{{Kind: "at", Prompt: "due", At: soon(time.Hour)}}, nil)
	require.NoError(t, s.Reload(ctx))
	assert.Error(t, s.Snooze(ctx, "session-o", "schedule-1", -time.Hour))
	require.NoError(t, s.Snooze(ctx, "session-d", "schedule-1", 2*time.Hour))
	snoozed := e.Item(t, "session-d", "schedule-1")
	require.NotNil(t, snoozed.SnoozedUntil)
	assert.Equal(t, *snoozed.SnoozedUntil, armedKeys(s)["session-d/schedule-1"])
	assert.Empty(t, log.all())

	assert.ErrorIs(t, s.Pause(ctx, "session-o", "schedule-9"), archive.ErrNotFound)
}

func TestSchedulerSnoozeAnswersAQuestion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newSchedEnv(t)
	e.WriteSession(t, "session-z", []schedulertest.Spec{{Kind: "at", Prompt: "nag", At: soon(-time.Hour)}}, nil)
	cfg := DefaultConfig()
	cfg.CatchUp = CatchUpAsk
	s, log := startScheduler(t, e, cfg)
	assert.Equal(t, archive.FireAsked, log.waitN(t, 1, 5*time.Second)[0].Outcome)

	// "Remind me in a second": the snooze arms it again, and it then fires on time.
	require.NoError(t, s.Snooze(ctx, "session-z", "schedule-1", time.Second))
	until := *e.Item(t, "session-z", "schedule-1").SnoozedUntil
	f := log.waitN(t, 2, 5*time.Second)[1]
	assert.Equal(t, archive.FireOK, f.Outcome)
	assert.Equal(t, archive.TriggerScheduled, f.Trigger)
	assert.True(t, f.TargetAt.Equal(until))
	assert.False(t, f.FiredAt.Before(until))
	assert.Equal(t, archive.LogbookFired, e.Item(t, "session-z", "schedule-1").LogbookState)
}

// TestSchedulerDST checks the cron side of time zones: instants are absolute, so a
// zone's DST change neither repeats nor skips a fire, whatever zone cron runs in.
func TestSchedulerDST(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	utc := func(s string) time.Time { return mustParse(t, s) }

	t.Run("EveryAcrossTransitions", func(t *testing.T) {
		tests := []struct {
			name      string
			loc       *time.Location
			anchor    string
			wantLocal []string
		}{
			// 2026-11-01: New York's 01:00-02:00 happens twice.
			{"NewYorkFallBack", ny, "2026-11-01T04:30:00Z",
				[]string{"00:30 EDT", "01:00 EDT", "01:30 EDT", "01:00 EST", "01:30 EST", "02:00 EST"}},
			// 2027-03-28: Berlin's 02:00-03:00 never happens.
			{"BerlinSpringForward", berlin, "2027-03-28T00:00:00Z",
				[]string{"01:00 CET", "01:30 CET", "03:00 CEST", "03:30 CEST", "04:00 CEST", "04:30 CEST"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				anchor := utc(tt.anchor)
				sch := &everySchedule{first: anchor, anchor: anchor, every: 30 * time.Minute}
				// Call Next the way cron does: with "now" in cron's zone, each time
				// at the instant the previous run woke.
				at := anchor.Add(-time.Minute).In(tt.loc)
				var got []string
				for range tt.wantLocal {
					next := sch.Next(at)
					got = append(got, next.In(tt.loc).Format("15:04 MST"))
					at = next.In(tt.loc)
				}
				assert.Equal(t, tt.wantLocal, got)
			})
		}
	})
	t.Run("OnceIsOnceInAnyZone", func(t *testing.T) {
		at := utc("2026-11-01T05:30:00Z") // 01:30 EDT, an hour before 01:30 EST
		sch := &onceSchedule{at: at}
		assert.True(t, sch.Next(at.Add(-time.Hour).In(ny)).Equal(at))
		assert.True(t, sch.Next(at.Add(time.Hour).In(ny)).IsZero(), "the repeated wall hour does not fire it again")
	})
	for _, loc := range []*time.Location{ny, berlin} {
		t.Run("RealCronIn"+loc.String(), func(t *testing.T) {
			t.Parallel()
			e := newSchedEnv(t)
			at := soon(time.Second)
			e.WriteSession(t, "session-z", []schedulertest.Spec{{Kind: "at", Prompt: "tz", At: at}}, nil)
			s, log := startScheduler(t, e, DefaultConfig(), func(o *Options) { o.Location = loc })
			assert.Equal(t, loc, s.cron.Location())
			f := log.waitN(t, 1, 5*time.Second)[0]
			assert.True(t, f.TargetAt.Equal(at))
			assert.Less(t, f.FiredAt.Sub(at), time.Second)
		})
	}
}

func mustParse(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v
}

// TestSchedulerCronWiring checks the cron instance is built as the house style asks:
// one entry per schedule, replaced (not duplicated) when a schedule is re-armed.
func TestSchedulerCronWiring(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newSchedEnv(t)
	e.WriteSession(t, "session-w", []schedulertest.Spec{{Kind: "at", Prompt: "x", At: soon(time.Hour)}}, nil)
	s, _ := startScheduler(t, e, DefaultConfig())
	entries := func() []cron.Entry { // the schedules' entries, without the wake-up
		var out []cron.Entry
		for _, e := range s.cron.Entries() {
			if e.ID != s.wakeID {
				out = append(out, e)
			}
		}
		return out
	}
	require.Len(t, s.cron.Entries(), 2, "one per schedule, plus the wake-up")
	require.Len(t, entries(), 1)
	first := entries()[0].ID
	require.NoError(t, s.Reload(ctx))
	assert.Equal(t, first, entries()[0].ID, "an unchanged schedule keeps its entry")
	require.NoError(t, s.Snooze(ctx, "session-w", "schedule-1", 2*time.Hour))
	require.Len(t, entries(), 1, "re-arming replaces the entry")
	assert.NotEqual(t, first, entries()[0].ID)
	require.NoError(t, s.Stop())
	assert.False(t, s.Running())
	assert.Error(t, s.Start(ctx), "a stopped scheduler does not start again")
	assert.NoError(t, s.Reload(ctx), "reloading a stopped scheduler is a no-op")
}

func TestSchedulerStaleCatchUpIsAsked(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		maxHours float64
		want     string
	}{
		{"DefaultBoundAsks", 24, archive.FireAsked},
		{"NoBoundFires", 0, archive.FireOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newSchedEnv(t)
			e.WriteSession(t, "session-s", []schedulertest.Spec{
				{Kind: "at", Prompt: "three days old", At: time.Now().UTC().Add(-72 * time.Hour).Truncate(time.Millisecond)},
			}, nil)
			script, calls := argvScript(t)
			cfg := fastRetries(DefaultConfig())
			cfg.Action, cfg.Command, cfg.MaxCatchUpHours = ActionCommand, []string{script, "{schedule}"}, tt.maxHours
			_, log := startScheduler(t, e, cfg)
			f := log.waitN(t, 1, 5*time.Second)[0]
			assert.Equal(t, archive.TriggerCatchUp, f.Trigger)
			assert.Equal(t, tt.want, f.Outcome)
			if tt.want == archive.FireAsked {
				assert.Empty(t, calls(), "a stale reminder runs nothing until the user answers")
			} else {
				assert.Equal(t, [][]string{{"schedule-1"}}, calls())
			}
		})
	}
}
