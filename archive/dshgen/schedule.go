package dshgen

import (
	"strconv"
	"time"
)

// isoMillis formats epoch ms as the canonical YYYY-MM-DDTHH:MM:SS.mmmZ instant.
func isoMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// schedule returns the index of an active schedule fact, or -1.
func (s *Session) schedule(id string) int {
	for i := range s.facts.Schedules {
		if s.facts.Schedules[i].ID == id && s.facts.Schedules[i].Active {
			return i
		}
	}
	return -1
}

// ScheduleCreate writes schedule/change create for a new "at", "after" or "every"
// schedule (ids schedule-1, schedule-2, … are never reused) and returns its id.
func (s *Session) ScheduleCreate(kind, prompt string) string {
	s.scheduleN++
	id := "schedule-" + strconv.Itoa(s.scheduleN)
	f := ScheduleFact{ID: id, Kind: kind, Prompt: prompt, Active: true, DeletedSeq: -1}
	rec := obj{{"kind", kind}, {"id", id}, {"prompt", prompt}}
	var at int64
	switch kind {
	case "at":
		at = s.now + int64(10+s.rng.IntN(110))*60_000
		rec = append(rec, kv{"scheduledAt", isoMillis(at)})
	case "after":
		f.AfterSeconds = int64(60 + s.rng.IntN(3540))
		at = s.now + f.AfterSeconds*1000
		rec = append(rec, kv{"scheduledAt", isoMillis(at)}, kv{"afterSeconds", f.AfterSeconds})
	case "every":
		f.EverySeconds = []int64{300, 600, 900, 3600}[s.rng.IntN(4)]
		at = s.now + f.EverySeconds*1000
		rec = append(rec, kv{"scheduledAt", isoMillis(at)}, kv{"everySeconds", f.EverySeconds})
	default:
		panic("dshgen: unknown schedule kind " + kind)
	}
	f.ScheduledAt, f.NextAt = isoMillis(at), isoMillis(at)
	f.CreatedSeq = s.event("schedule/change", obj{{"version", 1}, {"operation", "create"}, {"schedule", rec}})
	s.facts.Schedules = append(s.facts.Schedules, f)
	if s.schedMs == nil {
		s.schedMs = map[string]int64{}
	}
	s.schedMs[id] = at
	return id
}

// ScheduleDelete writes schedule/change delete for an active schedule.
func (s *Session) ScheduleDelete(id string) bool {
	i := s.schedule(id)
	if i < 0 {
		return false
	}
	seq := s.event("schedule/change", obj{{"version", 1}, {"operation", "delete"}, {"id", id}})
	f := &s.facts.Schedules[i]
	f.Active, f.DeletedSeq, f.NextAt = false, seq, ""
	return true
}

// ScheduleDispatch writes schedule/change dispatch for an active schedule, moving the
// session clock to (or past) its target. One-shots are removed; an "every" schedule
// carries acceptedAt and advances to the first anchor-aligned target after it.
func (s *Session) ScheduleDispatch(id string) bool {
	i := s.schedule(id)
	if i < 0 {
		return false
	}
	f := &s.facts.Schedules[i]
	target := s.schedMs[id]
	s.now = max(s.now, target) + int64(s.rng.IntN(5000))
	if f.Kind == "every" && s.rng.IntN(2) == 0 {
		s.now += int64(s.rng.IntN(3)) * f.EverySeconds * 1000 // missed intervals are not replayed
	}
	s.dispatch(i, s.now)
	return true
}

// dispatch writes the dispatch of schedule i accepted at acceptedAt (epoch ms): an
// "every" carries acceptedAt and advances to the first anchor-aligned target after
// it (missed intervals are not replayed); a one-shot ends.
func (s *Session) dispatch(i int, acceptedAt int64) {
	f := &s.facts.Schedules[i]
	id := f.ID
	var seq int64
	if f.Kind == "every" {
		target, interval := s.schedMs[id], f.EverySeconds*1000
		next := target + (acceptedAt-target)/interval*interval + interval
		seq = s.event("schedule/change", obj{{"version", 1}, {"operation", "dispatch"}, {"id", id},
			{"acceptedAt", isoMillis(acceptedAt)}})
		s.schedMs[id] = next
		f.NextAt = isoMillis(next)
	} else {
		seq = s.event("schedule/change", obj{{"version", 1}, {"operation", "dispatch"}, {"id", id}})
		f.Active, f.NextAt = false, ""
	}
	f.Dispatches = append(f.Dispatches, seq)
}

// activeSchedule returns the id of an active schedule of the given kind ("" = any).
func (s *Session) activeSchedule(kind string) string {
	for _, f := range s.facts.Schedules {
		if f.Active && (kind == "" || f.Kind == kind) {
			return f.ID
		}
	}
	return ""
}
