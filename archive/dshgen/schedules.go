package dshgen

import "strconv"

// This file lets a test choose a schedule's instants (ScheduleCreate picks them at
// random from the session clock). Logs written without these methods are unchanged.

// ScheduleCreateAt writes schedule/change create for a new "at", "after" or "every"
// schedule whose target is scheduledAt (epoch ms), and returns its id. seconds is
// the afterSeconds of an "after" and the everySeconds of an "every" (ignored for
// "at"); an every under 300 s is written as asked, which dsh would refuse.
func (s *Session) ScheduleCreateAt(kind, prompt string, scheduledAt, seconds int64) string {
	s.scheduleN++
	id := "schedule-" + strconv.Itoa(s.scheduleN)
	f := ScheduleFact{ID: id, Kind: kind, Prompt: prompt, Active: true, DeletedSeq: -1,
		ScheduledAt: isoMillis(scheduledAt), NextAt: isoMillis(scheduledAt)}
	rec := obj{{"kind", kind}, {"id", id}, {"prompt", prompt}, {"scheduledAt", isoMillis(scheduledAt)}}
	switch kind {
	case "at":
	case "after":
		f.AfterSeconds = seconds
		rec = append(rec, kv{"afterSeconds", seconds})
	case "every":
		f.EverySeconds = seconds
		rec = append(rec, kv{"everySeconds", seconds})
	default:
		panic("dshgen: unknown schedule kind " + kind)
	}
	f.CreatedSeq = s.event("schedule/change", obj{{"version", 1}, {"operation", "create"}, {"schedule", rec}})
	s.facts.Schedules = append(s.facts.Schedules, f)
	if s.schedMs == nil {
		s.schedMs = map[string]int64{}
	}
	s.schedMs[id] = scheduledAt
	return id
}

// ScheduleDispatchAt writes schedule/change dispatch for an active schedule as the
// session would on delivering it: a one-shot is removed; an every carries acceptedAt
// (epoch ms, at or after its target) and advances to the first anchor-aligned target
// after it. The session clock moves to acceptedAt if that is later.
func (s *Session) ScheduleDispatchAt(id string, acceptedAt int64) bool {
	i := s.schedule(id)
	if i < 0 {
		return false
	}
	s.now = max(s.now, acceptedAt)
	s.dispatch(i, acceptedAt)
	return true
}
