package dsh

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
	_ "time/tzdata" // the DST test needs zones even where the system has none

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/format"
)

// schedEv builds a schedule/change event; its time is derived from seq so tests can
// check that createdAt and endedAt come from the event, not from the payload.
func schedEv(seq int64, data string) Event {
	return Event{Type: "schedule/change", Seq: seq, Time: 1_780_000_000_000 + seq, Member: -1, Data: json.RawMessage(data)}
}

func schedCreateAfter(id, at string, secs int) string {
	return fmt.Sprintf(`{"version":1,"operation":"create","schedule":{"kind":"after","id":%q,"prompt":"check logs","afterSeconds":%d,"scheduledAt":%q}}`, id, secs, at)
}

func schedCreateAt(id, at string) string {
	return fmt.Sprintf(`{"version":1,"operation":"create","schedule":{"kind":"at","id":%q,"prompt":"stand-up","scheduledAt":%q}}`, id, at)
}

func schedCreateEvery(id, at string, secs int) string {
	return fmt.Sprintf(`{"version":1,"operation":"create","schedule":{"kind":"every","id":%q,"prompt":"poll CI","everySeconds":%d,"scheduledAt":%q}}`, id, secs, at)
}

func schedDelete(id string) string {
	return fmt.Sprintf(`{"version":1,"operation":"delete","id":%q}`, id)
}

func schedDispatch(id string) string {
	return fmt.Sprintf(`{"version":1,"operation":"dispatch","id":%q}`, id)
}

func schedDispatchEvery(id, acceptedAt string) string {
	return fmt.Sprintf(`{"version":1,"operation":"dispatch","id":%q,"acceptedAt":%q}`, id, acceptedAt)
}

// schedFoldOK applies payloads at seq 0, 1, … and requires that none is a fold error.
func schedFoldOK(t *testing.T, payloads ...string) *ScheduleFold {
	t.Helper()
	f := NewScheduleFold()
	for i, p := range payloads {
		ev := schedEv(int64(i), p)
		require.Nil(t, f.Apply(&ev), "payload %d: %s", i, p)
	}
	return f
}

func schedMustInstant(t *testing.T, s string) time.Time {
	t.Helper()
	ts, err := ParseInstant(s)
	require.NoError(t, err)
	return ts
}

func schedOnly(t *testing.T, f *ScheduleFold) Schedule {
	t.Helper()
	all := f.Schedules()
	require.Len(t, all, 1)
	return all[0]
}

func TestScheduleFoldCreate(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    Schedule
	}{
		{"AfterActive", schedCreateAfter("schedule-1", "2026-08-05T12:00:00.000Z", 600), Schedule{
			ID: "schedule-1", Kind: "after", Prompt: "check logs", AfterSeconds: 600,
		}},
		{"AtActive", schedCreateAt("schedule-1", "2026-08-05T12:00:00.000Z"), Schedule{
			ID: "schedule-1", Kind: "at", Prompt: "stand-up",
		}},
		{"EveryActive", schedCreateEvery("schedule-1", "2026-08-05T12:00:00.000Z", 300), Schedule{
			ID: "schedule-1", Kind: "every", Prompt: "poll CI", EverySeconds: 300,
		}},
		{"NumbersWrittenAsFloatsAccepted", `{"version":1.0,"operation":"create","schedule":{"kind":"every","id":"schedule-1","prompt":"poll CI","everySeconds":3e2,"scheduledAt":"2026-08-05T12:00:00.000Z"}}`, Schedule{
			ID: "schedule-1", Kind: "every", Prompt: "poll CI", EverySeconds: 300,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewScheduleFold()
			ev := schedEv(7, tt.payload)
			require.Nil(t, f.Apply(&ev))
			want := tt.want
			want.ScheduledAt = schedMustInstant(t, "2026-08-05T12:00:00.000Z")
			want.Status = ScheduleActive
			want.CreatedSeq = 7
			want.CreatedAt = ev.Time
			assert.Equal(t, want, schedOnly(t, f))
		})
	}
}

func TestScheduleFoldIgnoresOtherEvents(t *testing.T) {
	f := NewScheduleFold()
	for _, ev := range []Event{
		{Type: "turn/start", Seq: 0, Data: json.RawMessage(`{"version":1,"operation":"delete","id":"x"}`)},
		{Type: "assistant/chunk", Seq: 1, Chunk: &Chunk{Kind: "text-delta"}},
		{Type: "session/end-seed", Seq: 2, Data: json.RawMessage(`{}`)},
	} {
		assert.Nil(t, f.Apply(&ev), ev.Type)
	}
	assert.Nil(t, f.Apply(nil))
	assert.Empty(t, f.Schedules())
}

func TestScheduleFoldDelete(t *testing.T) {
	f := schedFoldOK(t, schedCreateEvery("schedule-1", "2026-08-05T12:00:00.000Z", 900), schedDelete("schedule-1"))
	s := schedOnly(t, f)
	assert.Equal(t, ScheduleDeleted, s.Status)
	assert.Equal(t, ScheduleEndDeleted, s.EndReason)
	assert.Equal(t, int64(1), s.EndedSeq)
	assert.Equal(t, schedEv(1, "").Time, s.EndedAt)
	assert.Zero(t, s.DispatchCount)
	assert.Equal(t, ScheduleDeleted, s.StateAt(schedMustInstant(t, "2000-01-01T00:00:00.000Z")))
	_, ok := format.NextFire(s, time.Time{})
	assert.False(t, ok)
}

func TestScheduleFoldDispatchOneShot(t *testing.T) {
	for _, tt := range []struct{ name, create string }{
		{"AfterCompleted", schedCreateAfter("schedule-1", "2026-08-05T12:00:00.000Z", 60)},
		{"AtCompleted", schedCreateAt("schedule-1", "2026-08-05T12:00:00.000Z")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := schedFoldOK(t, tt.create, schedDispatch("schedule-1"))
			s := schedOnly(t, f)
			assert.Equal(t, ScheduleCompleted, s.Status)
			assert.Equal(t, ScheduleEndDispatched, s.EndReason)
			assert.Equal(t, int64(1), s.EndedSeq)
			assert.Equal(t, int64(1), s.DispatchCount)
			assert.Equal(t, schedMustInstant(t, "2026-08-05T12:00:00.000Z"), s.ScheduledAt, "a one-shot keeps its target")
			assert.True(t, s.LastAcceptedAt.IsZero())
		})
	}
}

func TestScheduleFoldDispatchEvery(t *testing.T) {
	const anchor = "2026-08-05T12:00:00.000Z" // every 10 minutes
	tests := []struct {
		name, acceptedAt, wantOcc, wantNext string
	}{
		{"OnTargetAdvancesOneInterval", "2026-08-05T12:00:00.000Z", "2026-08-05T12:00:00.000Z", "2026-08-05T12:10:00.000Z"},
		{"JustBeforeNextStaysInInterval", "2026-08-05T12:09:59.999Z", "2026-08-05T12:00:00.000Z", "2026-08-05T12:10:00.000Z"},
		{"OnLaterBoundaryAdvancesPastIt", "2026-08-05T12:10:00.000Z", "2026-08-05T12:10:00.000Z", "2026-08-05T12:20:00.000Z"},
		{"SeveralIntervalsLateSkipsMissed", "2026-08-05T12:47:13.250Z", "2026-08-05T12:40:00.000Z", "2026-08-05T12:50:00.000Z"},
		{"DaysLateSkipsMissed", "2026-08-08T03:05:00.000Z", "2026-08-08T03:00:00.000Z", "2026-08-08T03:10:00.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := schedFoldOK(t, schedCreateEvery("schedule-1", anchor, 600), schedDispatchEvery("schedule-1", tt.acceptedAt))
			s := schedOnly(t, f)
			assert.Equal(t, ScheduleActive, s.Status)
			assert.Equal(t, tt.wantNext, FormatInstant(s.ScheduledAt))
			assert.Equal(t, tt.wantOcc, FormatInstant(s.LastOccurrenceAt))
			assert.Equal(t, tt.acceptedAt, FormatInstant(s.LastAcceptedAt))
			assert.Equal(t, int64(1), s.DispatchCount, "missed intervals are not replayed")
			assert.Zero(t, s.EndedSeq)
		})
	}

	t.Run("RepeatedDispatchesCountAndStayAnchored", func(t *testing.T) {
		f := schedFoldOK(t,
			schedCreateEvery("schedule-1", anchor, 600),
			schedDispatchEvery("schedule-1", "2026-08-05T12:00:01.000Z"),
			schedDispatchEvery("schedule-1", "2026-08-05T12:33:00.000Z"),
			schedDispatchEvery("schedule-1", "2026-08-05T12:40:00.500Z"),
		)
		s := schedOnly(t, f)
		assert.Equal(t, int64(3), s.DispatchCount)
		assert.Equal(t, "2026-08-05T12:50:00.000Z", FormatInstant(s.ScheduledAt))
	})
}

func TestScheduleFoldErrors(t *testing.T) {
	const at = "2026-08-05T12:00:00.000Z"
	tests := []struct {
		name  string
		setup []string
		bad   string
		want  string // a fragment of the message
	}{
		{"ErrNotObject", nil, `[1]`, "must be a JSON object"},
		{"ErrNullData", nil, `null`, "must be a JSON object"},
		{"ErrNoData", nil, ``, "got nothing"},
		{"ErrVersion2", nil, `{"version":2,"operation":"delete","id":"schedule-1"}`, "version must be 1, got 2"},
		{"ErrVersionString", nil, `{"version":"1","operation":"delete","id":"schedule-1"}`, `version must be 1, got "1"`},
		{"ErrUnknownOperation", nil, `{"version":1,"operation":"pause","id":"schedule-1"}`, `got "pause"`},
		{"ErrOperationMissing", nil, `{"version":1,"id":"schedule-1"}`, "operation must be"},
		{"ErrCreateExtraKey", nil, `{"version":1,"operation":"create","schedule":{"kind":"at","id":"s","prompt":"p","scheduledAt":"` + at + `"},"note":1}`, `unexpected "note"`},
		{"ErrCreateScheduleNotObject", nil, `{"version":1,"operation":"create","schedule":"soon"}`, `schedule must be a JSON object, got "soon"`},
		{"ErrUnknownKind", nil, `{"version":1,"operation":"create","schedule":{"kind":"cron","id":"schedule-1","prompt":"p","scheduledAt":"` + at + `"}}`, `create of "schedule-1": kind must be "after", "at" or "every", got "cron"`},
		{"ErrAfterMissingSeconds", nil, `{"version":1,"operation":"create","schedule":{"kind":"after","id":"schedule-1","prompt":"p","scheduledAt":"` + at + `"}}`, `"afterSeconds" is missing`},
		{"ErrAtWithAfterSeconds", nil, `{"version":1,"operation":"create","schedule":{"kind":"at","id":"schedule-1","prompt":"p","afterSeconds":5,"scheduledAt":"` + at + `"}}`, `unexpected "afterSeconds"`},
		{"ErrAfterSecondsString", nil, `{"version":1,"operation":"create","schedule":{"kind":"after","id":"schedule-1","prompt":"p","afterSeconds":"60","scheduledAt":"` + at + `"}}`, `afterSeconds must be a positive integer, got "60"`},
		{"ErrAfterSecondsZero", nil, schedCreateAfter("schedule-1", at, 0), "afterSeconds must be a positive integer, got 0"},
		{"ErrAfterSecondsFraction", nil, `{"version":1,"operation":"create","schedule":{"kind":"after","id":"schedule-1","prompt":"p","afterSeconds":1.5,"scheduledAt":"` + at + `"}}`, "got 1.5"},
		{"ErrEveryUnder300", nil, schedCreateEvery("schedule-1", at, 299), `create of "schedule-1": everySeconds must be an integer of at least 300 (5 minutes), got 299`},
		{"ErrEveryUnsafe", nil, schedCreateEvery("schedule-1", at, 9007199254741), "everySeconds must be"},
		{"ErrIDEmpty", nil, schedCreateAt("", at), "id must be a non-empty string"},
		{"ErrIDPadded", nil, schedDelete(" schedule-1"), "id must be a non-empty string without surrounding whitespace"},
		{"ErrIDNumber", nil, `{"version":1,"operation":"dispatch","id":1}`, "dispatch: id must be"},
		{"ErrPromptPadded", nil, `{"version":1,"operation":"create","schedule":{"kind":"at","id":"schedule-1","prompt":" p\n","scheduledAt":"` + at + `"}}`, "prompt must be a non-empty string without surrounding whitespace"},
		{"ErrPromptEmpty", nil, `{"version":1,"operation":"create","schedule":{"kind":"at","id":"schedule-1","prompt":"","scheduledAt":"` + at + `"}}`, "prompt must be"},
		{"ErrInstantNoMillis", nil, schedCreateAt("schedule-1", "2026-08-05T12:00:00Z"), `create of "schedule-1": scheduledAt must be canonical: "2026-08-05T12:00:00Z" is not a canonical UTC instant`},
		{"ErrInstantOffset", nil, schedCreateAt("schedule-1", "2026-08-05T20:00:00.000+08:00"), "not a canonical UTC instant"},
		{"ErrInstantLowercaseZ", nil, schedCreateAt("schedule-1", "2026-08-05T12:00:00.000z"), "not a canonical UTC instant"},
		{"ErrInstantNotADate", nil, schedCreateAt("schedule-1", "2026-02-30T12:00:00.000Z"), "not a real UTC calendar instant"},
		{"ErrInstantNumber", nil, `{"version":1,"operation":"create","schedule":{"kind":"at","id":"schedule-1","prompt":"p","scheduledAt":1785931200000}}`, "scheduledAt must be a canonical UTC instant string"},
		{"ErrReusedIDActive", []string{schedCreateAt("schedule-1", at)}, schedCreateEvery("schedule-1", at, 600), `create reuses id "schedule-1", first created at seq 0`},
		{"ErrReusedIDAfterDelete", []string{schedCreateAt("schedule-1", at), schedDelete("schedule-1")}, schedCreateAt("schedule-1", at), `reuses id "schedule-1"`},
		{"ErrReusedIDAfterCompletion", []string{schedCreateAt("schedule-1", at), schedDispatch("schedule-1")}, schedCreateAt("schedule-1", at), `reuses id "schedule-1"`},
		{"ErrDeleteUnknown", nil, schedDelete("schedule-9"), `delete of "schedule-9", which is not active: no schedule with that id was created in this session`},
		{"ErrDeleteDeleted", []string{schedCreateAt("schedule-1", at), schedDelete("schedule-1")}, schedDelete("schedule-1"), `delete of "schedule-1", which is not active: it was deleted at seq 1`},
		{"ErrDeleteCompleted", []string{schedCreateAt("schedule-1", at), schedDispatch("schedule-1")}, schedDelete("schedule-1"), "it completed (dispatched) at seq 1"},
		{"ErrDeleteWithAcceptedAt", []string{schedCreateAt("schedule-1", at)}, `{"version":1,"operation":"delete","id":"schedule-1","acceptedAt":"` + at + `"}`, `unexpected "acceptedAt"`},
		{"ErrDispatchUnknown", nil, schedDispatch("schedule-2"), `dispatch of "schedule-2", which is not active`},
		{"ErrDispatchDeleted", []string{schedCreateEvery("schedule-1", at, 600), schedDelete("schedule-1")}, schedDispatchEvery("schedule-1", at), `dispatch of "schedule-1", which is not active: it was deleted at seq 1`},
		{"ErrDispatchCompleted", []string{schedCreateAfter("schedule-1", at, 60), schedDispatch("schedule-1")}, schedDispatch("schedule-1"), "it completed (dispatched)"},
		{"ErrOneShotWithAcceptedAt", []string{schedCreateAt("schedule-1", at)}, schedDispatchEvery("schedule-1", at), `dispatch of "schedule-1" carries acceptedAt, but "schedule-1" is a one-shot "at" schedule`},
		{"ErrEveryWithoutAcceptedAt", []string{schedCreateEvery("schedule-1", at, 600)}, schedDispatch("schedule-1"), `dispatch of every schedule "schedule-1" lacks acceptedAt`},
		{"ErrDispatchExtraKey", []string{schedCreateEvery("schedule-1", at, 600)}, `{"version":1,"operation":"dispatch","id":"schedule-1","occurrenceAt":"` + at + `"}`, `unexpected "occurrenceAt"`},
		{"ErrAcceptedAtNonCanonical", []string{schedCreateEvery("schedule-1", at, 600)}, schedDispatchEvery("schedule-1", "2026-08-05T12:00:00+00:00"), `dispatch of "schedule-1": acceptedAt must be canonical`},
		{"ErrAcceptedBeforeTarget", []string{schedCreateEvery("schedule-1", at, 600)}, schedDispatchEvery("schedule-1", "2026-08-05T11:59:59.999Z"), `dispatch of "schedule-1" was accepted at 2026-08-05T11:59:59.999Z, before its target 2026-08-05T12:00:00.000Z`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := schedFoldOK(t, tt.setup...)
			before := f.Schedules()
			seq := int64(len(tt.setup))
			ev := schedEv(seq, tt.bad)
			p := f.Apply(&ev)
			require.NotNil(t, p)
			assert.Equal(t, KindSchedule, p.Kind)
			assert.Equal(t, seq, p.Seq)
			assert.Zero(t, p.Line, "the caller fills Line")
			assert.Equal(t, int64(-1), p.Offset)
			assert.Contains(t, p.Message, tt.want)
			assert.Equal(t, before, f.Schedules(), "a fold error leaves the state unchanged")
		})
	}

	t.Run("FoldContinuesAfterError", func(t *testing.T) {
		f := NewScheduleFold()
		evs := []Event{
			schedEv(0, schedCreateAt("schedule-1", at)),
			schedEv(1, schedDelete("schedule-7")),
			schedEv(2, schedCreateAt("schedule-2", at)),
		}
		var problems []*Problem
		for i := range evs {
			if p := f.Apply(&evs[i]); p != nil {
				problems = append(problems, p)
			}
		}
		require.Len(t, problems, 1)
		assert.Equal(t, int64(1), problems[0].Seq)
		assert.Len(t, f.Schedules(), 2)
	})
}

func TestScheduleFoldBeyond9999(t *testing.T) {
	t.Run("NextPastMaxCompletes", func(t *testing.T) {
		f := schedFoldOK(t,
			schedCreateEvery("schedule-1", "9999-12-31T23:30:00.000Z", 3600),
			schedDispatchEvery("schedule-1", "9999-12-31T23:40:00.000Z"),
		)
		s := schedOnly(t, f)
		assert.Equal(t, ScheduleCompleted, s.Status)
		assert.Equal(t, ScheduleEndBeyond9999, s.EndReason)
		assert.Equal(t, int64(1), s.EndedSeq)
		assert.Equal(t, int64(1), s.DispatchCount)
		assert.Equal(t, "9999-12-31T23:30:00.000Z", FormatInstant(s.LastOccurrenceAt))
		assert.Equal(t, "9999-12-31T23:30:00.000Z", FormatInstant(s.ScheduledAt), "an ended record keeps its last target")
		_, ok := format.NextFire(s, schedMustInstant(t, "9999-12-31T23:41:00.000Z"))
		assert.False(t, ok)

		ev := schedEv(2, schedDispatchEvery("schedule-1", "9999-12-31T23:50:00.000Z"))
		p := f.Apply(&ev)
		require.NotNil(t, p)
		assert.Contains(t, p.Message, "it completed (beyond-9999) at seq 1")
	})
	t.Run("NextExactlyAtMaxStaysActive", func(t *testing.T) {
		f := schedFoldOK(t,
			schedCreateEvery("schedule-1", "9999-12-31T22:59:59.999Z", 3600),
			schedDispatchEvery("schedule-1", "9999-12-31T23:00:00.000Z"),
		)
		s := schedOnly(t, f)
		assert.Equal(t, ScheduleActive, s.Status)
		assert.Equal(t, "9999-12-31T23:59:59.999Z", FormatInstant(s.ScheduledAt))
	})
}

func TestScheduleFoldYearBoundary(t *testing.T) {
	tests := []struct{ name, acceptedAt, wantNext string }{
		{"DispatchBeforeMidnightTargetsNewYear", "2026-12-31T23:45:00.000Z", "2027-01-01T00:30:00.000Z"},
		{"DispatchAfterMidnightStaysAnchored", "2027-01-01T01:10:00.000Z", "2027-01-01T01:30:00.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := schedFoldOK(t,
				schedCreateEvery("schedule-1", "2026-12-31T23:30:00.000Z", 3600),
				schedDispatchEvery("schedule-1", tt.acceptedAt),
			)
			assert.Equal(t, tt.wantNext, FormatInstant(schedOnly(t, f).ScheduledAt))
		})
	}
}

// TestScheduleFoldFork simulates a seeded child: its first seedLength events are the
// parent's log, which the caller must not feed to the fold (dsh folds
// events[seedLength:] so a fork never adopts its parent's reminders).
func TestScheduleFoldFork(t *testing.T) {
	const at = "2026-08-05T12:00:00.000Z"
	log := []Event{
		{Type: "session/end-seed", Seq: 0, Data: json.RawMessage(`{}`)},
		schedEv(1, schedCreateAt("schedule-1", at)),
		schedEv(2, schedCreateEvery("schedule-2", at, 600)),
		{Type: "turn/end", Seq: 3, Data: json.RawMessage(`{}`)},
		// The child's own events start here.
		{Type: "session/end-seed", Seq: 4, Data: json.RawMessage(`{}`)},
		schedEv(5, schedCreateAt("schedule-1", "2026-08-06T09:00:00.000Z")), // legal: the parent's ids are not the child's
		schedEv(6, schedDispatchEvery("schedule-2", "2026-08-05T12:05:00.000Z")),
	}
	const seedLength = 4

	foldFrom := func(events []Event) (*ScheduleFold, []*Problem) {
		f := NewScheduleFold()
		var problems []*Problem
		for i := range events {
			if p := f.Apply(&events[i]); p != nil {
				problems = append(problems, p)
			}
		}
		return f, problems
	}

	t.Run("OwnEventsOnlyIgnoreParentReminders", func(t *testing.T) {
		f, problems := foldFrom(log[seedLength:])
		s := schedOnly(t, f)
		assert.Equal(t, "schedule-1", s.ID)
		assert.Equal(t, int64(5), s.CreatedSeq)
		assert.Equal(t, "2026-08-06T09:00:00.000Z", FormatInstant(s.ScheduledAt))
		require.Len(t, problems, 1, "the child cannot dispatch a reminder it never created")
		assert.Equal(t, int64(6), problems[0].Seq)
		assert.Contains(t, problems[0].Message, `"schedule-2", which is not active: no schedule with that id was created in this session`)
	})
	t.Run("WholeLogWronglyReportsReuse", func(t *testing.T) {
		_, problems := foldFrom(log)
		require.Len(t, problems, 1)
		assert.Contains(t, problems[0].Message, `reuses id "schedule-1"`)
	})
}

func TestScheduleStateAt(t *testing.T) {
	s := Schedule{Status: ScheduleActive, ScheduledAt: schedMustInstant(t, "2026-08-05T12:00:00.000Z")}
	tests := []struct{ name, now, want string }{
		{"ScheduledBeforeTarget", "2026-08-05T11:59:59.999Z", ScheduleScheduled},
		{"OverdueAtTarget", "2026-08-05T12:00:00.000Z", ScheduleOverdue},
		{"OverdueAfterTarget", "2027-01-01T00:00:00.000Z", ScheduleOverdue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, s.StateAt(schedMustInstant(t, tt.now)))
		})
	}
	t.Run("CompletedReportsStatus", func(t *testing.T) {
		done := s
		done.Status = ScheduleCompleted
		assert.Equal(t, ScheduleCompleted, done.StateAt(schedMustInstant(t, "2000-01-01T00:00:00.000Z")))
	})
}

func TestScheduleNextFire(t *testing.T) {
	target := schedMustInstant(t, "2026-08-05T12:00:00.000Z")
	tests := []struct {
		name   string
		s      Schedule
		now    string
		want   time.Time
		wantOK bool
	}{
		{"OneShotFuture", Schedule{Kind: "at", Status: ScheduleActive, ScheduledAt: target}, "2026-08-05T11:00:00.000Z", target, true},
		{"OneShotOverdueFiresAtTarget", Schedule{Kind: "after", Status: ScheduleActive, ScheduledAt: target}, "2026-08-06T00:00:00.000Z", target, true},
		{"EveryFuture", Schedule{Kind: "every", EverySeconds: 600, Status: ScheduleActive, ScheduledAt: target}, "2026-08-05T11:00:00.000Z", target, true},
		{"EveryOverdueFiresOnceAtTarget", Schedule{Kind: "every", EverySeconds: 600, Status: ScheduleActive, ScheduledAt: target}, "2026-08-05T13:05:00.000Z", target, true},
		{"DeletedNever", Schedule{Kind: "at", Status: ScheduleDeleted, ScheduledAt: target}, "2026-08-05T11:00:00.000Z", time.Time{}, false},
		{"CompletedNever", Schedule{Kind: "every", Status: ScheduleCompleted, ScheduledAt: target}, "2026-08-05T11:00:00.000Z", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := format.NextFire(tt.s, schedMustInstant(t, tt.now))
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestScheduleNextEveryAfter(t *testing.T) {
	anchor := "2026-01-01T00:00:00.000Z"
	tests := []struct {
		name, anchor string
		every        time.Duration
		after, want  string
	}{
		{"OnAnchorIsNextSlot", anchor, 10 * time.Minute, "2026-01-01T00:00:00.000Z", "2026-01-01T00:10:00.000Z"},
		{"MidIntervalIsNextSlot", anchor, 10 * time.Minute, "2026-01-01T00:14:59.999Z", "2026-01-01T00:20:00.000Z"},
		{"ManyIntervalsLater", anchor, time.Hour, "2026-03-01T05:30:00.000Z", "2026-03-01T06:00:00.000Z"},
		{"JustBeforeAnchorIsAnchor", anchor, 10 * time.Minute, "2025-12-31T23:55:00.000Z", "2026-01-01T00:00:00.000Z"},
		{"OneIntervalBeforeAnchorIsAnchor", anchor, 10 * time.Minute, "2025-12-31T23:50:00.000Z", "2026-01-01T00:00:00.000Z"},
		// Truncating division would answer the anchor here; floor division must not.
		{"NegativeDiffFloors", anchor, 10 * time.Minute, "2025-12-31T23:49:59.999Z", "2025-12-31T23:50:00.000Z"},
		{"LastRepresentable", "9999-12-31T22:59:59.999Z", time.Hour, "9999-12-31T23:00:00.000Z", "9999-12-31T23:59:59.999Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NextEveryAfter(schedMustInstant(t, tt.anchor), tt.every, schedMustInstant(t, tt.after))
			assert.Equal(t, tt.want, FormatInstant(got))
		})
	}
	t.Run("SubMillisecondAfterStaysStrict", func(t *testing.T) {
		after := schedMustInstant(t, "2026-01-01T00:10:00.000Z").Add(500 * time.Microsecond)
		got := NextEveryAfter(schedMustInstant(t, anchor), 10*time.Minute, after)
		assert.Equal(t, "2026-01-01T00:20:00.000Z", FormatInstant(got))
	})
	zeroCases := []struct {
		name          string
		anchor, after time.Time
		every         time.Duration
	}{
		{"ZeroBeyond9999", schedMustInstant(t, "9999-12-31T23:30:00.000Z"), schedMustInstant(t, "9999-12-31T23:40:00.000Z"), time.Hour},
		{"ZeroNonPositiveInterval", schedMustInstant(t, anchor), schedMustInstant(t, anchor), 0},
		{"ZeroSubMillisecondInterval", schedMustInstant(t, anchor), schedMustInstant(t, anchor), time.Microsecond},
		{"ZeroAnchorOutOfRange", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), schedMustInstant(t, anchor), time.Hour},
		{"ZeroAfterFarFuture", schedMustInstant(t, anchor), time.Date(200000, 1, 1, 0, 0, 0, 0, time.UTC), time.Hour},
		{"ZeroBeforeYearOne", schedMustInstant(t, "0001-01-01T00:30:00.000Z"), time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), time.Hour},
	}
	for _, tt := range zeroCases {
		t.Run(tt.name, func(t *testing.T) {
			assert.True(t, NextEveryAfter(tt.anchor, tt.every, tt.after).IsZero())
		})
	}
	t.Run("MatchesFold", func(t *testing.T) {
		f := schedFoldOK(t, schedCreateEvery("schedule-1", anchor, 900), schedDispatchEvery("schedule-1", "2026-01-01T07:07:07.007Z"))
		want := NextEveryAfter(schedMustInstant(t, anchor), 900*time.Second, schedMustInstant(t, "2026-01-01T07:07:07.007Z"))
		assert.Equal(t, want, schedOnly(t, f).ScheduledAt)
	})
}

func TestScheduleParseInstant(t *testing.T) {
	valid := []string{
		"2026-08-05T12:00:00.000Z",
		"0001-01-01T00:00:00.000Z",
		"9999-12-31T23:59:59.999Z",
		"2024-02-29T23:59:59.999Z",
	}
	for _, s := range valid {
		t.Run("OK/"+s, func(t *testing.T) {
			ts, err := ParseInstant(s)
			require.NoError(t, err)
			assert.Equal(t, time.UTC, ts.Location())
			assert.Equal(t, s, FormatInstant(ts))
		})
	}
	invalid := []struct{ name, s string }{
		{"ErrNoMillis", "2026-08-05T12:00:00Z"},
		{"ErrOffset", "2026-08-05T20:00:00.000+08:00"},
		{"ErrLowercaseZ", "2026-08-05T12:00:00.000z"},
		{"ErrLowercaseT", "2026-08-05t12:00:00.000Z"},
		{"ErrTwoDigitMillis", "2026-08-05T12:00:00.00Z"},
		{"ErrMicros", "2026-08-05T12:00:00.000000Z"},
		{"ErrSpaceSeparator", "2026-08-05 12:00:00.000Z"},
		{"ErrYearZero", "0000-01-01T00:00:00.000Z"},
		{"ErrFiveDigitYear", "+10000-01-01T00:00:00.000Z"},
		{"ErrMonth13", "2026-13-01T00:00:00.000Z"},
		{"ErrFeb29NonLeap", "2025-02-29T00:00:00.000Z"},
		{"ErrHour24", "2026-08-05T24:00:00.000Z"},
		{"ErrLeapSecond", "2026-06-30T23:59:60.000Z"},
		{"ErrNonASCIIDigit", "２026-08-05T12:00:00.000Z"},
		{"ErrEmpty", ""},
	}
	for _, tt := range invalid {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseInstant(tt.s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", tt.s))
		})
	}
}

func TestScheduleFormatInstant(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		want string
	}{
		{"OKConvertsToUTC", time.Date(2026, 8, 5, 20, 0, 0, 0, time.FixedZone("CST", 8*3600)), "2026-08-05T12:00:00.000Z"},
		{"OKTruncatesSubMillisecond", time.Date(2026, 8, 5, 12, 0, 0, 999_999, time.UTC), "2026-08-05T12:00:00.000Z"},
		{"OKPadsMillis", time.Date(2026, 8, 5, 12, 0, 0, 7_000_000, time.UTC), "2026-08-05T12:00:00.007Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FormatInstant(tt.t))
		})
	}
}

func TestScheduleFoldDeterministic(t *testing.T) {
	const at = "2026-08-05T12:00:00.000Z"
	payloads := []string{
		schedCreateEvery("schedule-1", at, 600),
		schedCreateAt("schedule-2", at),
		schedCreateAfter("schedule-3", at, 30),
		schedDispatchEvery("schedule-1", "2026-08-05T12:31:00.000Z"),
		schedDelete("schedule-2"),
		`{"version":1,"operation":"create","schedule":{"kind":"at","id":"schedule-4","prompt":"p","scheduledAt":"` + at + `","x":1,"y":2,"z":3}}`,
		schedDispatch("schedule-3"),
		schedCreateAt("schedule-2", at),
	}
	run := func() ([]byte, []*Problem) {
		f := NewScheduleFold()
		var problems []*Problem
		for i, p := range payloads {
			ev := schedEv(int64(i), p)
			if pr := f.Apply(&ev); pr != nil {
				problems = append(problems, pr)
			}
		}
		b, err := json.Marshal(f.Schedules())
		require.NoError(t, err)
		return b, problems
	}
	firstJSON, firstProblems := run()
	require.Len(t, firstProblems, 2)
	assert.Contains(t, firstProblems[0].Message, `unexpected "x"`, "the first extra key in sorted order, whatever the map order")
	for range 20 {
		gotJSON, gotProblems := run()
		assert.JSONEq(t, string(firstJSON), string(gotJSON))
		assert.Equal(t, firstProblems, gotProblems)
	}

	t.Run("SchedulesReturnsACopy", func(t *testing.T) {
		f := schedFoldOK(t, schedCreateAt("schedule-1", at))
		got := f.Schedules()
		got[0].Status = ScheduleDeleted
		assert.Equal(t, ScheduleActive, schedOnly(t, f).Status)
	})
}

func TestScheduleJSON(t *testing.T) {
	f := schedFoldOK(t,
		schedCreateEvery("schedule-1", "2026-08-05T12:00:00.000Z", 600),
		schedDispatchEvery("schedule-1", "2026-08-05T12:05:00.000Z"),
		schedCreateAt("schedule-2", "2026-08-05T12:00:00.000Z"),
	)
	b, err := json.Marshal(f.Schedules())
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"id":"schedule-1","kind":"every","prompt":"poll CI","everySeconds":600,
		 "scheduledAt":"2026-08-05T12:10:00Z","createdSeq":0,"createdAt":1780000000000,
		 "status":"active","dispatchCount":1,
		 "lastAcceptedAt":"2026-08-05T12:05:00Z","lastOccurrenceAt":"2026-08-05T12:00:00Z"},
		{"id":"schedule-2","kind":"at","prompt":"stand-up",
		 "scheduledAt":"2026-08-05T12:00:00Z","createdSeq":2,"createdAt":1780000000002,
		 "status":"active","dispatchCount":0}
	]`, string(b))
}

// TestScheduleNextEveryAfterDST walks an every across the local DST changes of two
// zones: the grid is in absolute milliseconds, so an hour of wall clock that happens
// twice gets each of its fires once, and the hour that never happens skips none.
func TestScheduleNextEveryAfterDST(t *testing.T) {
	tests := []struct {
		name, zone, anchor, from, to string
		every                        time.Duration
		wantLocal                    []string
	}{
		{"NewYorkFallBackRepeatsWallHourNotFires", "America/New_York",
			"2026-11-01T04:30:00.000Z", "2026-11-01T04:00:00.000Z", "2026-11-01T07:00:00.000Z", 30 * time.Minute,
			[]string{"00:30 EDT", "01:00 EDT", "01:30 EDT", "01:00 EST", "01:30 EST", "02:00 EST"}},
		{"BerlinSpringForwardSkipsNoFire", "Europe/Berlin",
			"2027-03-28T00:00:00.000Z", "2027-03-27T23:59:00.000Z", "2027-03-28T02:00:00.000Z", 30 * time.Minute,
			[]string{"01:00 CET", "01:30 CET", "03:00 CEST", "03:30 CEST", "04:00 CEST"}},
		{"BerlinFallBackDaily", "Europe/Berlin",
			"2027-10-30T07:00:00.000Z", "2027-10-30T06:00:00.000Z", "2027-11-01T07:00:00.000Z", 24 * time.Hour,
			// A daily every keeps 24 h of absolute time, so its wall time moves by the
			// hour the zone gave back (dsh's cadence is absolute, not local).
			[]string{"09:00 CEST", "08:00 CET", "08:00 CET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := time.LoadLocation(tt.zone)
			require.NoError(t, err)
			anchor := schedMustInstant(t, tt.anchor)
			end := schedMustInstant(t, tt.to)
			var got []string
			seen := map[int64]bool{}
			// Ask in local time, as cron does (WithLocation): the answer must not care.
			for at := schedMustInstant(t, tt.from).In(loc); ; {
				next := NextEveryAfter(anchor, tt.every, at)
				if next.IsZero() || next.After(end) {
					break
				}
				require.False(t, seen[next.UnixMilli()], "fired twice at %s", next)
				seen[next.UnixMilli()] = true
				if len(got) > 0 {
					assert.Equal(t, tt.every, next.Sub(at), "exactly one interval of absolute time between fires")
				}
				got = append(got, next.In(loc).Format("15:04 MST"))
				at = next.In(loc)
			}
			assert.Equal(t, tt.wantLocal, got)
		})
	}
}
