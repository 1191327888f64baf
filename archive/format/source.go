package format

import "context"

// SourceReader is implemented by a format whose sources the store reads through
// the seam: given the stamp it returned when the source was last archived, the
// format reads what changed since and says how it changed. The store keeps the
// stamp opaque (files.cursor) and never looks inside it.
type SourceReader interface {
	// ReadSource reads the source at path. stamp is nil for a source never
	// archived, or when the store wants it read in full; then Read.Reset is true.
	// The error is a fault of the machine or the run (a cancelled context), never
	// damage in the source, which is the Read's verdict and problems.
	ReadSource(ctx context.Context, path string, stamp []byte) (*Read, error)
}

// Read is what a format read of a source since its stamp.
type Read struct {
	// Layout is the on-disk form of the source, reported as the file report's
	// format ("sdk-eventlog").
	Layout string
	// Unchanged is true when nothing changed since the stamp: nothing was read,
	// and only Stamp is set (to the stamp given).
	Unchanged bool
	// Reset is true when Records are the whole session from its first record:
	// a first read, or a source whose earlier part was rewritten (Rewritten names
	// what changed), whose archived records the store keeps as superseded.
	// Otherwise Records continue the archived ones.
	Reset     bool
	Rewritten []string
	// Session holds the facts the sessions row keeps.
	Session SessionFacts
	// Records are the new records (all of them on Reset), each Raw one line.
	Records []Record
	// Files are the source's files read this time with their exact bytes: new
	// ones, and ones whose bytes changed. The store keeps every version.
	Files []File
	// Verdict, Problem and Warnings are the verdict on the whole source as read
	// (not only on what changed): Problem is what made it worse than ok.
	Verdict  Verdict
	Problem  *Problem
	Warnings []Problem
	// Events is the number of logical events the source holds in all.
	Events int64
	// Bytes is how many bytes of the source this read read, FilesRead how many
	// of its files.
	Bytes     int64
	FilesRead int
	// Title, when set, is a title the source now gives the session that no
	// record of Records carries (a side file changed with no new event, as an
	// OpenHands ConversationInfo pushed after the events): the store sets it as a
	// TitleItem would.
	Title *TitleItem
	// Model, when set, is a model the source now names that no record of Records
	// carries (an OpenHands base_state.json or meta.json written after the last
	// event): the store adds it as a ModelItem would.
	Model *ModelItem
	// Stamp is what to give the next ReadSource of this source.
	Stamp []byte
	// StampAt, when set, is the stamp of the source as far as its first n Records:
	// the store saves it with a batch it commits partway through a long read, so
	// an interrupted import resumes after that batch. Nil when the format cannot
	// resume partway (then a read is committed whole).
	StampAt func(n int) []byte
}

// SessionFacts are what a session source says about the session as a whole.
type SessionFacts struct {
	ID        string
	CreatedAt int64  // Unix ms, 0 when unknown
	Cwd       string // the working folder, when the source names it
	Parent    string // the session it was forked from or delegated by
	// Raw is the source's own description of the session (its header line, or a
	// JSON summary of its side files), kept as the session's header.
	Raw []byte
	// Version is the version of the format the source says it is written in.
	Version int64
	// Seeded is true for a session that began with another's events (a fork):
	// its first SeedLength events are the seed, and its own schedule changes
	// start after them.
	Seeded     bool
	SeedLength int64
	// Origin, DelegationDepth and AgentPreset are what the source says of how the
	// session was started: by whom, how deep in a delegation, with which preset.
	Origin          string
	DelegationDepth int64
	AgentPreset     string
}

// File is one file of a session source, with its exact bytes.
type File struct {
	Name    string // path inside the source, with forward slashes
	Role    string // the format's word for what it holds (event, state, meta…)
	Size    int64
	ModTime int64  // Unix ns
	Hash    string // lowercase hex SHA-256 of Data
	Data    []byte
	// Append is true when Data continues the archived version of the file (a
	// JSONL file read on from its cursor): the file is now those bytes followed
	// by Data, and Size and Hash are of Data alone.
	Append bool
}

// AddedReader is a SourceReader that can be told which files of a source were
// added or replaced since its stamp, by a writer that changes the source in no
// other way (the archive's pushed conversations): it reads those files alone,
// so the read costs what they hold, not what the source does. It reads as
// ReadSource does when the stamp does not serve.
type AddedReader interface {
	ReadAdded(ctx context.Context, path string, stamp []byte, added []string) (*Read, error)
}
