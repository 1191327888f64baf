package dsh

// This file folds `schedule/change` events into schedule records, mirroring dsh's
// foldScheduleEvents (packages/schedule/schedule/src/domain.ts, V0: kinds after, at and
// every; operations create, delete and dispatch). dsh throws on the first fold error and
// refuses to restore the session; an archive must still show the log, so the fold here
// reports the error as a KindSchedule problem, skips that one event and carries on.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/logbook/logbook/archive/format"
)

// MinEverySeconds is the shortest interval dsh accepts for an every schedule (V0
// MIN_EVERY_INTERVAL_SECONDS): five minutes.
const MinEverySeconds = 300

// Schedule statuses, view states and end reasons (see archive/format).
const (
	ScheduleActive        = format.ScheduleActive
	ScheduleDeleted       = format.ScheduleDeleted
	ScheduleCompleted     = format.ScheduleCompleted
	ScheduleScheduled     = format.ScheduleScheduled
	ScheduleOverdue       = format.ScheduleOverdue
	ScheduleEndDeleted    = format.ScheduleEndDeleted
	ScheduleEndDispatched = format.ScheduleEndDispatched
	ScheduleEndBeyond9999 = format.ScheduleEndBeyond9999
)

// Schedule is one reminder as folded from a session's own schedule/change events
// (see archive/format).
type Schedule = format.Schedule

// instantLayout is dsh's only accepted instant form (JavaScript Date.toISOString for
// four-digit years): UTC, millisecond precision, literal Z.
const instantLayout = "2006-01-02T15:04:05.000Z"

// minInstantMs and maxInstantMs bound the four-digit years dsh can write
// (0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in Unix milliseconds).
const (
	minInstantMs int64 = -62135596800000
	maxInstantMs int64 = 253402300799999
)

// schedMaxSafeInt is JavaScript's Number.MAX_SAFE_INTEGER; dsh checks every numeric
// schedule field with Number.isSafeInteger.
const schedMaxSafeInt = 1<<53 - 1

// NextEveryAfter is the first instant strictly after after that lies on the grid
// anchor + k*every (k any integer), computed in whole milliseconds as dsh does:
// occ = anchor + floor((after-anchor)/every)*every, next = occ + every. It returns the
// zero time when every is under a millisecond, anchor is outside four-digit years, or
// the result would fall outside them (after 9999-12-31T23:59:59.999Z, where dsh ends
// the record).
func NextEveryAfter(anchor time.Time, every time.Duration, after time.Time) time.Time {
	interval := every.Milliseconds()
	t := anchor.UnixMilli()
	a := after.UnixMilli() // floors sub-millisecond instants, keeping "strictly after"
	if interval <= 0 || t < minInstantMs || t > maxInstantMs {
		return time.Time{}
	}
	// Clamp far-off instants before subtracting so the int64 arithmetic cannot
	// overflow; any such after has no representable answer anyway.
	if a > maxInstantMs || a < minInstantMs-interval {
		return time.Time{}
	}
	_, next := everyOccurrence(t, interval, a)
	if next < minInstantMs || next > maxInstantMs {
		return time.Time{}
	}
	return time.UnixMilli(next).UTC()
}

// everyOccurrence returns the latest grid point target+k*interval at or before
// accepted, and the one after it. Integer floor division keeps it exact and correct
// when accepted precedes target (Go's / truncates toward zero).
func everyOccurrence(target, interval, accepted int64) (occ, next int64) {
	d := accepted - target
	k := d / interval
	if d%interval != 0 && d < 0 {
		k--
	}
	occ = target + k*interval
	return occ, occ + interval
}

// ParseInstant parses dsh's canonical instant form YYYY-MM-DDTHH:MM:SS.mmmZ and
// nothing else: no offsets, no lowercase z, exactly three fraction digits, a real
// calendar date and a year from 0001 to 9999. dsh rejects any other spelling as a
// corrupt log, so a lenient parse would hide exactly what the archive must flag.
func ParseInstant(s string) (time.Time, error) {
	if !canonicalInstantShape(s) {
		return time.Time{}, fmt.Errorf("%q is not a canonical UTC instant (want YYYY-MM-DDTHH:MM:SS.mmmZ, e.g. 2026-08-05T12:00:00.000Z)", s)
	}
	t, err := time.Parse(instantLayout, s)
	// The round trip catches anything the layout parser normalises instead of rejecting.
	if err != nil || FormatInstant(t) != s {
		return time.Time{}, fmt.Errorf("%q is not a real UTC calendar instant", s)
	}
	return t, nil
}

// FormatInstant renders t in dsh's canonical form YYYY-MM-DDTHH:MM:SS.mmmZ (UTC,
// sub-millisecond digits truncated). The form is only canonical for years 0001-9999.
func FormatInstant(t time.Time) string {
	return t.UTC().Format(instantLayout)
}

// canonicalInstantShape checks the fixed character layout of a canonical instant (ASCII
// digits only, year not 0000); ranges are left to time.Parse.
func canonicalInstantShape(s string) bool {
	if len(s) != len(instantLayout) || s[:4] == "0000" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 4, 7:
			if s[i] != '-' {
				return false
			}
		case 10:
			if s[i] != 'T' {
				return false
			}
		case 13, 16:
			if s[i] != ':' {
				return false
			}
		case 19:
			if s[i] != '.' {
				return false
			}
		case 23:
			if s[i] != 'Z' {
				return false
			}
		default:
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
	}
	return true
}

// ScheduleFold replays a session's schedule/change events into schedule records. The
// zero value is not ready; use NewScheduleFold.
//
// The caller must feed only the session's own events: those at index seedLength and
// later (for an unseeded session, all of them). A fork's first seedLength events are a
// copy of its parent's log, and dsh never adopts the parent's reminders, so an
// inherited create or dispatch must not reach Apply; passing it would also make the
// child's own (legal) reuse of an inherited id look like a corrupt log.
type ScheduleFold struct {
	schedules []Schedule     // every record ever created, in creation order
	byID      map[string]int // index into schedules; ids are never reused
}

// NewScheduleFold returns an empty fold.
func NewScheduleFold() *ScheduleFold {
	return &ScheduleFold{byID: make(map[string]int)}
}

// Schedules returns a copy of every record the fold has created, in creation order,
// including deleted and completed ones.
func (f *ScheduleFold) Schedules() []Schedule {
	out := make([]Schedule, len(f.schedules))
	copy(out, f.schedules)
	return out
}

// Apply folds one event. Call it in seq order, only for events at or after the
// session's seedLength (see ScheduleFold); events of any other type than
// schedule/change are ignored. A fold error (malformed data, a reused id, a change to
// an id that is not active, a dispatch of the wrong shape, an acceptedAt before the
// target) leaves the state untouched and is returned as a KindSchedule problem with Seq
// set; Line is 0 and Offset -1 for the caller to fill in.
func (f *ScheduleFold) Apply(ev *Event) *Problem {
	if ev == nil || ev.Type != "schedule/change" {
		return nil
	}
	fail := func(format string, args ...any) *Problem {
		return &Problem{
			Kind:    KindSchedule,
			Offset:  -1,
			Seq:     ev.Seq,
			Message: "schedule/change: " + fmt.Sprintf(format, args...),
		}
	}
	ch, err := decodeScheduleChange(ev.Data)
	if err != nil {
		return fail("%s", err)
	}
	switch ch.operation {
	case "create":
		id := ch.schedule.ID
		if i, ok := f.byID[id]; ok {
			return fail("create reuses id %q, first created at seq %d; dsh never reuses schedule ids, even after delete or completion",
				id, f.schedules[i].CreatedSeq)
		}
		s := ch.schedule
		s.Status = ScheduleActive
		s.CreatedSeq = ev.Seq
		s.CreatedAt = ev.Time
		f.byID[id] = len(f.schedules)
		f.schedules = append(f.schedules, s)
		return nil

	case "delete":
		s, why := f.active(ch.id)
		if s == nil {
			return fail("delete of %q, which is not active: %s", ch.id, why)
		}
		endSchedule(s, ev, ScheduleDeleted, ScheduleEndDeleted)
		return nil

	default: // "dispatch"
		s, why := f.active(ch.id)
		if s == nil {
			return fail("dispatch of %q, which is not active: %s", ch.id, why)
		}
		if s.Kind != "every" {
			if ch.hasAcceptedAt {
				return fail("dispatch of %q carries acceptedAt, but %q is a one-shot %q schedule; only every dispatches record acceptedAt",
					ch.id, ch.id, s.Kind)
			}
			s.DispatchCount++
			endSchedule(s, ev, ScheduleCompleted, ScheduleEndDispatched)
			return nil
		}
		if !ch.hasAcceptedAt {
			return fail("dispatch of every schedule %q lacks acceptedAt, which every dispatches must carry", ch.id)
		}
		accepted, target := ch.acceptedAt.UnixMilli(), s.ScheduledAt.UnixMilli()
		if accepted < target {
			return fail("dispatch of %q was accepted at %s, before its target %s; an every dispatch cannot precede scheduledAt",
				ch.id, FormatInstant(ch.acceptedAt), FormatInstant(s.ScheduledAt))
		}
		occ, next := everyOccurrence(target, s.EverySeconds*1000, accepted)
		s.DispatchCount++
		s.LastAcceptedAt = ch.acceptedAt
		s.LastOccurrenceAt = time.UnixMilli(occ).UTC()
		if next > maxInstantMs {
			endSchedule(s, ev, ScheduleCompleted, ScheduleEndBeyond9999)
			return nil
		}
		s.ScheduledAt = time.UnixMilli(next).UTC()
		return nil
	}
}

// active returns the active record with id, or nil and why it is not active.
func (f *ScheduleFold) active(id string) (*Schedule, string) {
	i, ok := f.byID[id]
	if !ok {
		return nil, "no schedule with that id was created in this session"
	}
	s := &f.schedules[i]
	switch s.Status {
	case ScheduleActive:
		return s, ""
	case ScheduleDeleted:
		return nil, fmt.Sprintf("it was deleted at seq %d", s.EndedSeq)
	default:
		return nil, fmt.Sprintf("it completed (%s) at seq %d", s.EndReason, s.EndedSeq)
	}
}

// endSchedule closes a record, remembering which event ended it. (A plain function
// keeps Schedule's methods all on value receivers.)
func endSchedule(s *Schedule, ev *Event, status, reason string) {
	s.Status = status
	s.EndReason = reason
	s.EndedSeq = ev.Seq
	s.EndedAt = ev.Time
}

// scheduleChange is one decoded, shape-checked schedule/change payload.
type scheduleChange struct {
	operation     string   // "create", "delete" or "dispatch"
	schedule      Schedule // create: the record as written
	id            string   // delete and dispatch
	acceptedAt    time.Time
	hasAcceptedAt bool
}

// decodeScheduleChange validates a payload as strictly as dsh's decodeScheduleChange:
// exact key sets, version 1, safe integers, trimmed strings and canonical instants.
func decodeScheduleChange(data json.RawMessage) (scheduleChange, error) {
	var ch scheduleChange
	obj, err := schedObject(data)
	if err != nil {
		return ch, fmt.Errorf("data must be a JSON object with version, operation and its fields, got %s", err)
	}
	if v, ok := schedSafeInt(obj["version"]); !ok || v != 1 {
		return ch, fmt.Errorf("version must be 1, got %s", schedShow(obj["version"]))
	}
	op, ok := schedString(obj["operation"])
	switch {
	case !ok:
		return ch, fmt.Errorf(`operation must be "create", "delete" or "dispatch", got %s`, schedShow(obj["operation"]))
	case op == "create":
		if err := schedExactKeys(obj, "a create change", "version", "operation", "schedule"); err != nil {
			return ch, err
		}
		s, err := decodeScheduleRecord(obj["schedule"])
		if err != nil {
			return ch, err
		}
		ch.operation, ch.schedule = op, s
		return ch, nil
	case op == "delete", op == "dispatch":
		want := []string{"version", "operation", "id"}
		_, ch.hasAcceptedAt = obj["acceptedAt"]
		if op == "dispatch" && ch.hasAcceptedAt {
			want = append(want, "acceptedAt")
		}
		if err := schedExactKeys(obj, "a "+op+" change", want...); err != nil {
			return ch, err
		}
		id, err := schedID(obj["id"])
		if err != nil {
			return ch, fmt.Errorf("%s: %w", op, err)
		}
		ch.operation, ch.id = op, id
		if ch.hasAcceptedAt {
			if ch.acceptedAt, err = schedInstant(obj["acceptedAt"]); err != nil {
				return ch, fmt.Errorf("dispatch of %q: acceptedAt %w", id, err)
			}
		}
		return ch, nil
	default:
		return ch, fmt.Errorf(`operation must be "create", "delete" or "dispatch", got %q`, op)
	}
}

// decodeScheduleRecord decodes the schedule object of a create change.
func decodeScheduleRecord(raw json.RawMessage) (Schedule, error) {
	var s Schedule
	obj, err := schedObject(raw)
	if err != nil {
		return s, fmt.Errorf("create: schedule must be a JSON object, got %s", err)
	}
	// Name the schedule in every later message when its id is usable.
	label := "create: schedule"
	id, idErr := schedID(obj["id"])
	if idErr == nil {
		label = fmt.Sprintf("create of %q", id)
	}
	kind, _ := schedString(obj["kind"])
	keys := []string{"id", "kind", "prompt", "scheduledAt"}
	switch kind {
	case "after":
		keys = append(keys, "afterSeconds")
	case "every":
		keys = append(keys, "everySeconds")
	case "at":
	default:
		return s, fmt.Errorf(`%s: kind must be "after", "at" or "every", got %s`, label, schedShow(obj["kind"]))
	}
	if err := schedExactKeys(obj, fmt.Sprintf("%s: an %s schedule", label, kind), keys...); err != nil {
		return s, err
	}
	if idErr != nil {
		return s, fmt.Errorf("%s: %w", label, idErr)
	}
	prompt, ok := schedString(obj["prompt"])
	if !ok || prompt == "" || schedTrim(prompt) != prompt {
		return s, fmt.Errorf("%s: prompt must be a non-empty string without surrounding whitespace, got %s", label, schedShow(obj["prompt"]))
	}
	s.ID, s.Kind, s.Prompt = id, kind, prompt
	switch kind {
	case "after":
		n, ok := schedSafeInt(obj["afterSeconds"])
		if !ok || n <= 0 {
			return s, fmt.Errorf("%s: afterSeconds must be a positive integer, got %s", label, schedShow(obj["afterSeconds"]))
		}
		s.AfterSeconds = n
	case "every":
		// dsh also needs everySeconds*1000 to stay a safe integer (it works in ms).
		n, ok := schedSafeInt(obj["everySeconds"])
		if !ok || n < MinEverySeconds || n > schedMaxSafeInt/1000 {
			return s, fmt.Errorf("%s: everySeconds must be an integer of at least %d (5 minutes), got %s",
				label, MinEverySeconds, schedShow(obj["everySeconds"]))
		}
		s.EverySeconds = n
	}
	if s.ScheduledAt, err = schedInstant(obj["scheduledAt"]); err != nil {
		return s, fmt.Errorf("%s: scheduledAt %w", label, err)
	}
	return s, nil
}

// schedObject decodes a JSON object into its members; duplicate keys keep the last
// value, as JSON.parse does. The error names what was found instead.
func schedObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("nothing")
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("%s", schedShow(raw))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("invalid JSON (%v)", err)
	}
	return obj, nil
}

// schedExactKeys reports a missing or unexpected member: dsh requires exactly the
// documented keys, so an extra one is as corrupt as a missing one.
func schedExactKeys(obj map[string]json.RawMessage, what string, want ...string) error {
	for _, k := range want {
		if _, ok := obj[k]; !ok {
			return fmt.Errorf("%s must have exactly the keys %s; %q is missing", what, strings.Join(want, ", "), k)
		}
	}
	if len(obj) == len(want) {
		return nil
	}
	var extra []string
	for k := range obj {
		if !schedContains(want, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra) // map order is random; keep the message deterministic
	return fmt.Errorf("%s must have exactly the keys %s; unexpected %q", what, strings.Join(want, ", "), extra[0])
}

func schedContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// schedID decodes a schedule id: a non-empty string without surrounding whitespace.
func schedID(raw json.RawMessage) (string, error) {
	id, ok := schedString(raw)
	if !ok || id == "" || schedTrim(id) != id {
		return "", fmt.Errorf("id must be a non-empty string without surrounding whitespace, got %s", schedShow(raw))
	}
	return id, nil
}

// schedInstant decodes a canonical instant string; the error reads after a field name.
func schedInstant(raw json.RawMessage) (time.Time, error) {
	s, ok := schedString(raw)
	if !ok {
		return time.Time{}, fmt.Errorf("must be a canonical UTC instant string (YYYY-MM-DDTHH:MM:SS.mmmZ), got %s", schedShow(raw))
	}
	t, err := ParseInstant(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be canonical: %w", err)
	}
	return t, nil
}

// schedString decodes a JSON string; false for any other JSON value (including null,
// which json.Unmarshal would otherwise accept silently).
func schedString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// schedSafeInt decodes a JSON number that is an integer within ±(2^53-1), matching
// Number.isSafeInteger after JSON.parse (so 300.0 and 3e2 count as 300).
func schedSafeInt(raw json.RawMessage) (int64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	// An out-of-range literal parses to ±Inf or 0 with ErrRange, as JSON.parse rounds
	// it; the checks below then treat it as JavaScript would.
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	if math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > schedMaxSafeInt {
		return 0, false
	}
	return int64(f), true
}

// schedTrim trims what JavaScript's String.prototype.trim trims: Unicode white space
// and line terminators plus U+FEFF, but not U+0085, which Go counts as space.
func schedTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return r == '\uFEFF' || (r != '\u0085' && unicode.IsSpace(r))
	})
}

// schedShow renders a raw JSON value for a message, shortened so a huge prompt cannot
// swamp it.
func schedShow(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	const max = 60 // runes, so a cut never splits a UTF-8 sequence
	if r := []rune(string(raw)); len(r) > max {
		return string(r[:max]) + "…"
	}
	return string(raw)
}
