package archive

import (
	"bytes"
	"io"
	"io/fs"
	"os"

	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/format"
	"github.com/logbook/logbook/archive/openhands"
)

// formats are the log formats the archive reads, in the order a walked entry is
// offered to them. This is the one place formats are named: a second format plugs in
// by implementing format.Format, and format.StreamReader (a file read as a stream
// of records, like dsh's) or format.SourceReader (a source read whole, like an
// OpenHands conversation), and being added here.
func formats() []format.Format {
	return []format.Format{dsh.Format{}, openhands.Format{}}
}

// defaultFormat is the format of a session file no format claims (a user may point
// at a renamed log), and of a session stored by a later version under a format
// this one does not know: the first listed.
func defaultFormat() format.Format { return formats()[0] }

// formatNamed is the format of that name; an unknown name is the default format's.
func formatNamed(name string) format.Format {
	for _, f := range formats() {
		if f.Name() == name {
			return f
		}
	}
	return defaultFormat()
}

// formatOf is the format of an archived session, as sessions.format records it.
func formatOf(ts timelineSession) format.Format { return formatNamed(ts.format) }

// sourceFormat is the name of the format whose source the entry met in a walk
// is, or "" when it is none's. The first format to claim it takes it.
func sourceFormat(path string, e fs.DirEntry) string {
	for _, f := range formats() {
		if f.IsSource(path, e) {
			return f.Name()
		}
	}
	return ""
}

// formatOfPath is the name of the format of a path named on its own: a folder is
// a source when a format claims it; a file is the default format's unless another
// format claims it, and a file claimed by a format that cannot tell its files by
// their first line is still a format's that can (format.Sniffer: a renamed dsh log
// may look like another format's JSONL, but its header says).
func formatOfPath(path string) string {
	def := defaultFormat().Name()
	fi, err := os.Stat(path)
	if err != nil {
		return def
	}
	name := sourceFormat(path, fs.FileInfoToDirEntry(fi))
	if name == "" {
		return def
	}
	if fi.IsDir() {
		return name
	}
	if _, ok := formatNamed(name).(format.Sniffer); ok {
		return name
	}
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		head := make([]byte, 64<<10)
		n, _ := io.ReadFull(f, head)
		line, _, _ := bytes.Cut(head[:n], []byte("\n"))
		for _, fm := range formats() {
			if sn, ok := fm.(format.Sniffer); ok && fm.Name() != name && sn.Sniff(line) {
				return fm.Name()
			}
		}
	}
	return name
}

// legacyFileFormat is files.format as rows stored before each format named its
// layout have it: all of them are dsh's V0 files.
const legacyFileFormat = "dsh-v0"

// legacyFormat is files.format ("<format>/<layout>") for a legacy row's file,
// plain or compressed as files.compressed says.
func legacyFormat(compressed bool) string {
	if compressed {
		return "dsh/" + dsh.LayoutCompressed
	}
	return "dsh/" + dsh.LayoutPlain
}

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
// not read in full (see format.KindUndecodableEvent).
const KindUndecodableEvent = format.KindUndecodableEvent

// Schedule statuses, as stored in Schedule.Status.
const (
	ScheduleActive    = format.ScheduleActive
	ScheduleDeleted   = format.ScheduleDeleted
	ScheduleCompleted = format.ScheduleCompleted
)
