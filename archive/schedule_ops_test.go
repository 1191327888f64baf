package archive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// Tests of Logbook's side of schedules: overrides, fire history and the state that
// follows from them (schedule_ops.go).

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v.UTC()
}

func (b *logB) scheduleEvery(id, at string, secs int) int64 {
	return b.ev("schedule/change", fmt.Sprintf(`{"version":1,"operation":"create","schedule":{"id":%q,"kind":"every","prompt":"tick %s","everySeconds":%d,"scheduledAt":%q}}`, id, id, secs, at), "")
}

func (b *logB) scheduleDelete(id string) int64 {
	return b.ev("schedule/change", fmt.Sprintf(`{"version":1,"operation":"delete","id":%q}`, id), "")
}

func (b *logB) scheduleDispatch(id, acceptedAt string) int64 {
	acc := ""
	if acceptedAt != "" {
		acc = fmt.Sprintf(`,"acceptedAt":%q`, acceptedAt)
	}
	return b.ev("schedule/change", fmt.Sprintf(`{"version":1,"operation":"dispatch","id":%q%s}`, id, acc), "")
}

// schedFixture imports session-s with:
//
//	schedule-1 at    2030-01-01T00:00Z
//	schedule-2 every 3600 s anchored 2030-01-01T00:00Z
//	schedule-3 at    2030-02-01, deleted in the session
//	schedule-4 at    2030-03-01, dispatched (completed) in the session
func schedFixture(t *testing.T) (*archive.Store, string) {
	t.Helper()
	s := archivetest.MustOpen(t)
	b := newLog("session-s", "")
	b.startTurn()
	b.user("remind me")
	b.scheduleAt("schedule-1", "2030-01-01T00:00:00.000Z")
	b.scheduleEvery("schedule-2", "2030-01-01T00:00:00.000Z", 3600)
	b.scheduleAt("schedule-3", "2030-02-01T00:00:00.000Z")
	b.scheduleDelete("schedule-3")
	b.scheduleAt("schedule-4", "2030-03-01T00:00:00.000Z")
	b.scheduleDispatch("schedule-4", "")
	b.assistant("", "o", "k")
	b.endTurn()
	path := sessionFile(t, t.TempDir(), "session-s", false)
	writeFile(t, path, b.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	require.Empty(t, fr.Warnings)
	return s, path
}

func schedByID(t *testing.T, s *archive.Store, now time.Time) map[string]archive.ScheduleItem {
	t.Helper()
	items, err := s.Schedules(context.Background(), archive.ItemFilter{}, now)
	require.NoError(t, err)
	m := map[string]archive.ScheduleItem{}
	for _, it := range items {
		m[it.ID] = it
	}
	return m
}

func recordFire(t *testing.T, s *archive.Store, id, target, fired, outcome string, settles bool) archive.ScheduleFire {
	t.Helper()
	f, err := s.RecordScheduleFire(context.Background(), archive.ScheduleFire{SessionID: "session-s", ScheduleID: id,
		TargetAt: mustTime(t, target), FiredAt: mustTime(t, fired), Trigger: archive.TriggerScheduled,
		Action: "notify", Outcome: outcome, Settles: settles})
	require.NoError(t, err)
	return f
}

func TestScheduleLogbookStateWithoutOverrides(t *testing.T) {
	s, _ := schedFixture(t)
	before := schedByID(t, s, mustTime(t, "2029-12-31T00:00:00Z"))
	require.Len(t, before, 4)
	for id, want := range map[string]string{"schedule-1": "scheduled", "schedule-2": "scheduled",
		"schedule-3": "deleted", "schedule-4": "completed"} {
		assert.Equal(t, want, before[id].LogbookState, id)
		assert.Equal(t, want, before[id].State, "%s: without overrides Logbook agrees with the fold", id)
		assert.Equal(t, before[id].NextFire, before[id].LogbookNextFire, id)
		assert.Equal(t, testCwd, before[id].Cwd)
		assert.Zero(t, before[id].FireCount)
		assert.Nil(t, before[id].LastFire)
	}
	after := schedByID(t, s, mustTime(t, "2030-01-01T00:00:00Z"))
	assert.Equal(t, archive.LogbookOverdue, after["schedule-1"].LogbookState, "the target instant itself is due")
}

func TestScheduleFireHistory(t *testing.T) {
	ctx := context.Background()
	s, _ := schedFixture(t)
	t.Run("OneShotIsFiredOnceSettled", func(t *testing.T) {
		f := recordFire(t, s, "schedule-1", "2030-01-01T00:00:00Z", "2030-01-01T00:00:00.250Z", archive.FireOK, true)
		assert.Positive(t, f.ID)
		assert.Equal(t, "session-s", f.SessionID)
		it := schedByID(t, s, mustTime(t, "2030-01-02T00:00:00Z"))["schedule-1"]
		assert.Equal(t, archive.LogbookFired, it.LogbookState)
		assert.Nil(t, it.LogbookNextFire)
		assert.Equal(t, "overdue", it.State, "the fold still says what dsh would do on resume")
		require.NotNil(t, it.LastFire)
		assert.Equal(t, f, *it.LastFire)
		assert.EqualValues(t, 1, it.FireCount)
	})
	t.Run("EveryResumesAnchorAlignedWithoutReplay", func(t *testing.T) {
		// Logbook was closed for 5½ hours: one catch-up fire, then the first grid
		// point after it, not the five missed ones.
		recordFire(t, s, "schedule-2", "2030-01-01T00:00:00Z", "2030-01-01T05:30:00Z", archive.FireOK, true)
		it := schedByID(t, s, mustTime(t, "2030-01-01T05:31:00Z"))["schedule-2"]
		assert.Equal(t, archive.LogbookScheduled, it.LogbookState)
		require.NotNil(t, it.LogbookNextFire)
		assert.Equal(t, mustTime(t, "2030-01-01T06:00:00Z"), *it.LogbookNextFire)
		assert.Equal(t, mustTime(t, "2030-01-01T00:00:00Z"), it.ScheduledAt, "the fold's target is unchanged")
	})
	t.Run("OnTimeEveryFireMovesOneInterval", func(t *testing.T) {
		recordFire(t, s, "schedule-2", "2030-01-01T06:00:00Z", "2030-01-01T06:00:00.020Z", archive.FireFailed, true)
		it := schedByID(t, s, mustTime(t, "2030-01-01T06:01:00Z"))["schedule-2"]
		assert.Equal(t, mustTime(t, "2030-01-01T07:00:00Z"), *it.LogbookNextFire, "a failed fire is reported, not replayed")
		assert.Equal(t, archive.FireFailed, it.LastFire.Outcome)
	})
	t.Run("AskedDoesNotSettle", func(t *testing.T) {
		recordFire(t, s, "schedule-2", "2030-01-01T07:00:00Z", "2030-01-01T09:10:00Z", archive.FireAsked, false)
		it := schedByID(t, s, mustTime(t, "2030-01-01T09:10:00Z"))["schedule-2"]
		assert.Equal(t, archive.LogbookOverdue, it.LogbookState)
		assert.Equal(t, mustTime(t, "2030-01-01T07:00:00Z"), *it.LogbookNextFire)
		assert.Equal(t, archive.FireAsked, it.LastFire.Outcome)
	})
	t.Run("HistoryNewestFirst", func(t *testing.T) {
		fires, err := s.ScheduleFires(ctx, "session-s", "schedule-2", 0)
		require.NoError(t, err)
		require.Len(t, fires, 3)
		assert.Equal(t, []string{archive.FireAsked, archive.FireFailed, archive.FireOK},
			[]string{fires[0].Outcome, fires[1].Outcome, fires[2].Outcome})
		assert.False(t, fires[0].Settles)
		limited, err := s.ScheduleFires(ctx, "session-s", "schedule-2", 1)
		require.NoError(t, err)
		assert.Equal(t, fires[:1], limited)
		all, err := s.ScheduleFires(ctx, "session-s", "", 0)
		require.NoError(t, err)
		assert.Len(t, all, 4)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := s.RecordScheduleFire(ctx, archive.ScheduleFire{SessionID: "session-s", ScheduleID: "schedule-99",
			Trigger: archive.TriggerManual, Action: "notify", Outcome: archive.FireOK})
		assert.ErrorIs(t, err, archive.ErrNotFound)
		_, err = s.ScheduleFires(ctx, "session-nosuch", "", 0)
		assert.ErrorIs(t, err, archive.ErrNotFound)
		_, err = s.Schedule(ctx, "session-s", "schedule-99", time.Now())
		assert.ErrorIs(t, err, archive.ErrNotFound)
	})
}

func TestScheduleOverrides(t *testing.T) {
	ctx := context.Background()
	now := mustTime(t, "2029-12-31T00:00:00Z")
	t.Run("PauseResume", func(t *testing.T) {
		s, _ := schedFixture(t)
		require.NoError(t, s.SetScheduleOverride(ctx, "session-s", "schedule-1", archive.OverridePaused))
		it := schedByID(t, s, now)["schedule-1"]
		assert.Equal(t, archive.OverridePaused, it.Override)
		assert.Equal(t, archive.LogbookPaused, it.LogbookState)
		assert.Nil(t, it.LogbookNextFire)
		assert.Equal(t, "scheduled", it.State)
		require.NoError(t, s.SetScheduleOverride(ctx, "session-s", "schedule-1", ""))
		it = schedByID(t, s, now)["schedule-1"]
		assert.Empty(t, it.Override)
		assert.Equal(t, archive.LogbookScheduled, it.LogbookState)
	})
	t.Run("Dismiss", func(t *testing.T) {
		s, _ := schedFixture(t)
		require.NoError(t, s.SetScheduleOverride(ctx, "session-s", "schedule-2", archive.OverrideDismissed))
		it := schedByID(t, s, now)["schedule-2"]
		assert.Equal(t, archive.LogbookDismissed, it.LogbookState)
		assert.Nil(t, it.LogbookNextFire)
	})
	t.Run("SnoozeOnlyDelays", func(t *testing.T) {
		s, _ := schedFixture(t)
		require.NoError(t, s.SnoozeSchedule(ctx, "session-s", "schedule-1", mustTime(t, "2030-01-01T00:30:00Z")))
		it := schedByID(t, s, now)["schedule-1"]
		require.NotNil(t, it.SnoozedUntil)
		assert.Equal(t, mustTime(t, "2030-01-01T00:30:00Z"), *it.LogbookNextFire)
		assert.Equal(t, archive.LogbookOverdue, schedByID(t, s, mustTime(t, "2030-01-01T00:30:00Z"))["schedule-1"].LogbookState)
		// A snooze that ends before the target changes nothing.
		require.NoError(t, s.SnoozeSchedule(ctx, "session-s", "schedule-1", mustTime(t, "2029-12-31T12:00:00Z")))
		it = schedByID(t, s, now)["schedule-1"]
		assert.Equal(t, mustTime(t, "2030-01-01T00:00:00Z"), *it.LogbookNextFire)
		// Pausing keeps the snooze; resuming clears both.
		require.NoError(t, s.SetScheduleOverride(ctx, "session-s", "schedule-1", archive.OverridePaused))
		assert.NotNil(t, schedByID(t, s, now)["schedule-1"].SnoozedUntil)
		require.NoError(t, s.SetScheduleOverride(ctx, "session-s", "schedule-1", ""))
		it = schedByID(t, s, now)["schedule-1"]
		assert.Nil(t, it.SnoozedUntil)
		assert.Empty(t, it.Override)
	})
	t.Run("SnoozedEveryFiresThenResumesGrid", func(t *testing.T) {
		s, _ := schedFixture(t)
		require.NoError(t, s.SnoozeSchedule(ctx, "session-s", "schedule-2", mustTime(t, "2030-01-01T00:20:00Z")))
		recordFire(t, s, "schedule-2", "2030-01-01T00:20:00Z", "2030-01-01T00:20:00.100Z", archive.FireOK, true)
		it := schedByID(t, s, mustTime(t, "2030-01-01T00:21:00Z"))["schedule-2"]
		assert.Equal(t, mustTime(t, "2030-01-01T01:00:00Z"), *it.LogbookNextFire)
	})
	t.Run("ErrScheduleEnded", func(t *testing.T) {
		s, _ := schedFixture(t)
		for _, id := range []string{"schedule-3", "schedule-4"} {
			assert.ErrorIs(t, s.SetScheduleOverride(ctx, "session-s", id, archive.OverridePaused), archive.ErrScheduleEnded, id)
			assert.ErrorIs(t, s.SnoozeSchedule(ctx, "session-s", id, now), archive.ErrScheduleEnded, id)
		}
		// Resuming (clearing) an ended schedule is harmless.
		assert.NoError(t, s.SetScheduleOverride(ctx, "session-s", "schedule-3", ""))
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		s, _ := schedFixture(t)
		assert.ErrorIs(t, s.SetScheduleOverride(ctx, "session-s", "schedule-99", archive.OverridePaused), archive.ErrNotFound)
		assert.ErrorIs(t, s.SetScheduleOverride(ctx, "session-nosuch", "schedule-1", archive.OverridePaused), archive.ErrNotFound)
		assert.Error(t, s.SetScheduleOverride(ctx, "session-s", "schedule-1", "frozen"))
	})
}

func TestScheduleLogbookStateEdges(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := newLog("session-s", "")
	b.startTurn()
	b.user("edges")
	// An every whose only later grid points lie past year 9999.
	b.scheduleEvery("schedule-1", "9999-12-31T23:00:00.000Z", 3600)
	// An every the session itself dispatched after Logbook's fire (it was live again).
	b.scheduleEvery("schedule-2", "2030-01-01T00:00:00.000Z", 3600)
	// An every whose catch-up fire lands in a new year.
	b.scheduleEvery("schedule-3", "2030-12-31T22:30:00.000Z", 3600)
	b.assistant("", "o", "k")
	b.endTurn()
	path := sessionFile(t, t.TempDir(), "session-s", false)
	writeFile(t, path, b.plain())
	require.Equal(t, dsh.VerdictOK, importOne(t, s, path).Verdict)

	recordFire(t, s, "schedule-1", "9999-12-31T23:00:00Z", "9999-12-31T23:00:01Z", archive.FireOK, true)
	recordFire(t, s, "schedule-2", "2030-01-01T00:00:00Z", "2030-01-01T00:00:01Z", archive.FireOK, true)
	recordFire(t, s, "schedule-3", "2030-12-31T22:30:00Z", "2031-01-01T00:10:00Z", archive.FireOK, true)
	assert.Equal(t, mustTime(t, "2031-01-01T00:30:00Z"), *schedByID(t, s, mustTime(t, "2031-01-01T00:10:00Z"))["schedule-3"].LogbookNextFire,
		"across the year boundary the grid keeps its :30 phase")
	m := schedByID(t, s, mustTime(t, "2030-01-01T00:00:02Z"))
	assert.Equal(t, archive.LogbookCompleted, m["schedule-1"].LogbookState, "the 9999 bound ends an every, as in dsh")
	assert.Nil(t, m["schedule-1"].LogbookNextFire)
	assert.Equal(t, mustTime(t, "2030-01-01T01:00:00Z"), *m["schedule-2"].LogbookNextFire)

	// The session goes live again and dispatches past Logbook's cursor: its own
	// newer target wins. The override made before the re-import survives it.
	require.NoError(t, s.SnoozeSchedule(ctx, "session-s", "schedule-2", mustTime(t, "2030-01-01T00:10:00Z")))
	b.startTurn()
	b.user("back")
	b.scheduleDispatch("schedule-2", "2030-01-01T03:30:00.000Z")
	b.assistant("", "o", "k")
	b.endTurn()
	writeFile(t, path, b.plain())
	require.Equal(t, dsh.VerdictOK, importOne(t, s, path).Verdict)
	m = schedByID(t, s, mustTime(t, "2030-01-01T03:31:00Z"))
	assert.Equal(t, mustTime(t, "2030-01-01T04:00:00Z"), m["schedule-2"].ScheduledAt)
	assert.Equal(t, mustTime(t, "2030-01-01T04:00:00Z"), *m["schedule-2"].LogbookNextFire)
	assert.NotNil(t, m["schedule-2"].SnoozedUntil, "overrides live beside the fold, untouched by re-imports")
	assert.EqualValues(t, 1, m["schedule-2"].FireCount)
}

func TestScheduleOverridesForkOwnEventsOnly(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	parent := newLog("session-p", "")
	parent.startTurn()
	parent.user("remind me")
	parent.scheduleAt("schedule-1", "2030-01-01T00:00:00.000Z")
	parent.assistant("", "o", "k")
	parent.endTurn()
	seed := parent.seq
	fork := newLog("session-f", fmt.Sprintf(`,"parentSession":"session-p","seedLength":%d`, seed))
	fork.lines = append(fork.lines, parent.lines...)
	fork.seq, fork.now, fork.turn = parent.seq, parent.now, parent.turn
	fork.ev("session/end-seed", `{}`, "")
	fork.startTurn()
	fork.user("mine")
	fork.scheduleAt("schedule-1", "2031-01-01T00:00:00.000Z") // the fork may reuse an inherited id
	fork.assistant("", "o", "k")
	fork.endTurn()
	root := t.TempDir()
	for id, l := range map[string]*logB{"session-p": parent, "session-f": fork} {
		p := sessionFile(t, root, id, false)
		writeFile(t, p, l.plain())
		require.Equal(t, dsh.VerdictOK, importOne(t, s, p).Verdict)
	}
	require.NoError(t, s.SetScheduleOverride(ctx, "session-f", "schedule-1", archive.OverridePaused))
	items, err := s.Schedules(ctx, archive.ItemFilter{}, mustTime(t, "2029-01-01T00:00:00Z"))
	require.NoError(t, err)
	require.Len(t, items, 2)
	got := map[string]string{}
	for _, it := range items {
		got[it.SessionID] = it.LogbookState + " " + it.ScheduledAt.Format(time.RFC3339)
	}
	assert.Equal(t, map[string]string{
		"session-p": "scheduled 2030-01-01T00:00:00Z",
		"session-f": "paused 2031-01-01T00:00:00Z",
	}, got, "the override belongs to the fork's own schedule-1 only")
}

func TestScheduleMigrationReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "logbook.db")
	s, err := archive.Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	s, err = archive.Open(ctx, path)
	require.NoError(t, err, "0002 applies once")
	defer s.Close()
	items, err := s.Schedules(ctx, archive.ItemFilter{}, time.Now())
	require.NoError(t, err)
	assert.Empty(t, items)
}

func TestScheduleItemJSON(t *testing.T) {
	s, _ := schedFixture(t)
	recordFire(t, s, "schedule-1", "2030-01-01T00:00:00Z", "2030-01-01T00:00:01Z", archive.FireOK, true)
	it := schedByID(t, s, mustTime(t, "2030-01-02T00:00:00Z"))["schedule-1"]
	raw, err := json.Marshal(it)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	for _, k := range []string{"session_id", "id", "kind", "prompt", "status", "state", "scheduled_at", "next_fire",
		"created_seq", "created_at", "dispatch_count"} {
		assert.Contains(t, m, k, "existing member %s kept", k)
	}
	assert.Equal(t, "overdue", m["state"])
	assert.Equal(t, "fired", m["logbook_state"])
	assert.Nil(t, m["logbook_next_fire"])
	assert.EqualValues(t, 1, m["fire_count"])
	last := m["last_fire"].(map[string]any)
	assert.Equal(t, "2030-01-01T00:00:01Z", last["fired_at"])
	assert.Equal(t, "scheduled", last["trigger"])
	assert.NotContains(t, m, "override")
}
