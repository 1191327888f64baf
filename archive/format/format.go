// Package format is the seam between the archive and the log formats it reads. It
// holds the interface a format implements (Format) and the types formats produce and
// the store consumes: the verdict on a session source and the problems found in it,
// the records read from it with their events rows and neutral view items (messages,
// tool calls and results, approvals, compactions, settings, titles, usage, schedule
// changes), the markers and schedules the UI shows. It imports nothing of this
// module, so a format package (archive/dsh, archive/openhands) and the store
// (archive) can both import it without a cycle.
//
// A format is read in one of two ways, by the interface it also implements:
//
//   - StreamReader (archive/dsh): a source is one file, which may be a gigabyte
//     long and grows while its agent runs. The store opens it and drives a Stream
//     over its bytes (archive/importjob.go): Next reads records ahead on one
//     goroutine, Prepare projects them and runs the checks that span the session on
//     a second, and the store writes them on a third, bounding what is held read
//     ahead by each record's Size. Each record says how far the file is durable
//     after it (Position); the store commits a batch there with the stream's Stamp,
//     so an interrupted import resumes after it. Before it resumes, the store checks
//     with its prefix sums that the file's bytes up to the stamp's Offset are
//     unchanged, and a Replayer catches its checks up on the archived records. A
//     file that changed before its stamp is read again from its start, unless it
//     now holds less than the archive (damaged upstream: the store keeps it aside).
//     What a read could not import (a torn tail, a corrupt rest) the store keeps as
//     bytes. The format owns framing, verdicts, torn tails and its checks; the
//     store owns change detection, durability and SQL.
//   - SourceReader (archive/openhands): a source is a folder of files (or a file)
//     the format reads whole: it compares the source with the stamp it gave when
//     the source was last archived and returns the new Records, the source's files
//     with their bytes, the session's facts and the verdict
//     (archive/importsource.go). A folder's change is the format's to tell (its
//     stat does not change when a file in it is rewritten), so the store neither
//     skips it on a stat nor checks its bytes.
//
// The two share the store's session rows (created, or reset when read again from
// the start), its projection of records into views, and commits in batches with a
// stamp for a long read. They are two paths because what decides a change
// differs: for a stream the store decides it over one file's bytes, for a whole
// source the format does over many files.
//
// Sniffer lets a format claim a file named on its own by its first line (a renamed
// dsh log that looks like another format's JSONL).
package format

import "io/fs"

// FolderSourcer is a format that tells whether a folder is its source from the
// folder's entries (os.ReadDir's), which a walk has read already: its IsSource
// would read them again, once for every folder of a long history.
type FolderSourcer interface {
	IsSourceFolder(path string, entries []fs.DirEntry) bool
}

// Format reads the session logs of one agent. The store (archive) owns this
// interface and keeps all SQL; a format package implements it and is added to the
// archive's list of formats (archive/format.go), which is the only place formats are
// named.
//
// A session source is the unit the archive imports and watches for change: one file
// (a dsh session.jsonl) or one folder of files (an OpenHands conversation, one file
// per event). A format says which entries of a walked folder are its sources; the
// walk does not enter a folder that is a source.
type Format interface {
	// Name is the format's stable slug, e.g. "dsh".
	Name() string
	// Roots are the folders the format's agent writes sessions to on this machine,
	// whether or not they exist; the archive keeps the ones that do.
	Roots() []string
	// IsSource reports whether an entry met while walking a folder (a symbolic link
	// already resolved in e's type only when the walk followed it) is a session
	// source of this format.
	IsSource(path string, e fs.DirEntry) bool
	// Record is the record of an archived line as the format's projection made it
	// at import (its events row and view items), or false when it no longer
	// decodes. The timeline reads the IDs that link an event to its rows from it.
	Record(line int64, raw []byte) (Record, bool)
	// Timeline says what each of the format's event types is to the timeline.
	Timeline() TimelineTypes
	// Marker describes an event the timeline shows as a quiet marker (a state
	// change, a turn boundary, an event of a kind it does not know) from the
	// event's type and its archived record bytes. It never fails: an unexpected
	// payload gets a generic marker labelled with the type.
	Marker(typ string, raw []byte, info MarkerInfo) *Marker
	// StateTypes are the event types that set a part of a session's working state
	// (its todo list, modes, model, title…), each replacing what the previous event
	// of its type said, in the order the session state lists them.
	StateTypes() []string
	// ScheduleFold starts folding a session's own schedule changes (the records
	// its projection gave a ScheduleChangeItem, from the session's seed length on)
	// into its schedules.
	ScheduleFold() ScheduleFold
}

// ScheduleFold folds schedule changes, fed oldest first, into schedules.
type ScheduleFold interface {
	// Apply folds the change archived as raw at line. A change the fold cannot
	// apply is skipped and returned as a problem at that line; one the format
	// cannot read at all was reported when it was imported, and is skipped.
	Apply(line int64, raw []byte) *Problem
	// Schedules are every schedule the changes so far created, in creation order,
	// ended ones included.
	Schedules() []Schedule
}
