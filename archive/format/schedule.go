package format

import "time"

// Schedule statuses, as stored in Schedule.Status.
const (
	ScheduleActive    = "active"    // created, not yet deleted or finished; has a target
	ScheduleDeleted   = "deleted"   // removed by a delete change
	ScheduleCompleted = "completed" // a one-shot fired, or an every ran past year 9999
)

// Schedule view states returned by Schedule.StateAt for an active record.
const (
	ScheduleScheduled = "scheduled" // the target is still in the future
	ScheduleOverdue   = "overdue"   // the target has passed; dsh fires it on catch-up
)

// Schedule end reasons, as stored in Schedule.EndReason.
const (
	ScheduleEndDeleted    = "deleted"     // a delete change removed it
	ScheduleEndDispatched = "dispatched"  // a one-shot (after/at) was delivered
	ScheduleEndBeyond9999 = "beyond-9999" // an every's next target left four-digit years
)

// Schedule is one reminder as folded from a session's own schedule/change events. Ended
// records are kept (dsh forgets them) so a viewer can show the session's history.
type Schedule struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"` // "after", "at" or "every"
	Prompt string `json:"prompt"`
	// AfterSeconds is the delay an after schedule was created with; EverySeconds the
	// interval of an every schedule. Each is 0 (and omitted) for the other kinds.
	AfterSeconds int64 `json:"afterSeconds,omitempty"`
	EverySeconds int64 `json:"everySeconds,omitempty"`
	// ScheduledAt is the current target in UTC. It only moves for every schedules, each
	// dispatch advancing it; an ended record keeps its last target.
	ScheduledAt time.Time `json:"scheduledAt"`
	CreatedSeq  int64     `json:"createdSeq"`
	CreatedAt   int64     `json:"createdAt"` // the create event's time (Unix ms, as written)
	Status      string    `json:"status"`    // ScheduleActive, ScheduleDeleted or ScheduleCompleted
	// EndedSeq and EndedAt are the seq and event time of the change that ended the
	// record; EndReason says which (ScheduleEnd*). All are zero while active.
	EndedSeq  int64  `json:"endedSeq,omitempty"`
	EndedAt   int64  `json:"endedAt,omitempty"`
	EndReason string `json:"endReason,omitempty"`
	// DispatchCount counts deliveries: at most 1 for a one-shot, one per dispatch
	// (not per missed interval) for an every.
	DispatchCount int64 `json:"dispatchCount"`
	// LastAcceptedAt is the acceptedAt of the latest every dispatch, and
	// LastOccurrenceAt the anchor-aligned occurrence it delivered; zero otherwise.
	LastAcceptedAt   time.Time `json:"lastAcceptedAt,omitzero"`
	LastOccurrenceAt time.Time `json:"lastOccurrenceAt,omitzero"`
}

// StateAt is the view state at now: for an active record ScheduleScheduled when the
// target is after now, else ScheduleOverdue (dsh rebuilds past targets as overdue rather
// than dropping them); for an ended record its Status.
func (s Schedule) StateAt(now time.Time) string {
	if s.Status != ScheduleActive {
		return s.Status
	}
	if s.ScheduledAt.After(now) {
		return ScheduleScheduled
	}
	return ScheduleOverdue
}

// NextFire is when an active record fires next, and false for an ended one. A one-shot
// fires at its target even when that has passed (overdue). An every also returns its
// target when overdue, not the next future slot: dsh delivers an overdue every once on
// catch-up and only then advances to the first anchor-aligned target after that
// delivery (see dsh.NextEveryAfter), so missed intervals are never replayed. now is
// accepted so callers need not special-case overdue records; the answer does not
// depend on it.
func NextFire(s Schedule, now time.Time) (time.Time, bool) {
	_ = now // the overdue target itself is the next fire, see above
	if s.Status != ScheduleActive || s.ScheduledAt.IsZero() {
		return time.Time{}, false
	}
	return s.ScheduledAt, true
}
