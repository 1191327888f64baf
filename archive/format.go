package archive

import (
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/format"
)

// formats are the log formats the archive reads, in the order a walked entry is
// offered to them. This is the one place formats are named: a second format plugs in
// by implementing format.Format and being added here.
func formats() []format.Format {
	return []format.Format{dsh.Format{}}
}

// formatOf is the format of an archived session. Every session is dsh's until a
// second format's sessions are imported; the sessions table then records which.
func formatOf(timelineSession) format.Format { return dsh.Format{} }

// The types a log format produces and the UI sees, named here so that callers of
// the archive need not know where the seam between the store and its formats lies
// (archive/format). They are aliases: a value of one is a value of the other.
type (
	// Verdict is the outcome of reading one session source.
	Verdict = format.Verdict
	// Kind is a stable slug naming a class of problem.
	Kind = format.Kind
	// Problem is one finding about a session source, with its location.
	Problem = format.Problem
	// Schedule is one of a session's own scheduled prompts, as its log has it.
	Schedule = format.Schedule
	// Marker describes a quiet state change in a conversation.
	Marker = format.Marker
	// MarkerField is one labelled value of a marker, shown in its details.
	MarkerField = format.MarkerField
	// TodoItem is one entry of a todo list.
	TodoItem = format.TodoItem
)

// Verdicts, from best to worst (VerdictFailed, a fault of the run, is the store's).
const (
	VerdictOK          = format.VerdictOK
	VerdictRecovered   = format.VerdictRecovered
	VerdictCorrupt     = format.VerdictCorrupt
	VerdictUnsupported = format.VerdictUnsupported
)

// KindUndecodableEvent is the warning for an event whose data the projection could
// not read in full (see dsh.KindUndecodableEvent).
const KindUndecodableEvent = dsh.KindUndecodableEvent

// Schedule statuses, as stored in Schedule.Status.
const (
	ScheduleActive    = format.ScheduleActive
	ScheduleDeleted   = format.ScheduleDeleted
	ScheduleCompleted = format.ScheduleCompleted
)
