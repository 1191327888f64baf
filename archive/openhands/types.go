package openhands

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// Layout names one on-disk form of an OpenHands conversation.
type Layout string

// The layouts Discover recognises.
const (
	// LayoutSDK is an SDK/CLI/agent-server EventLog folder:
	// base_state.json, meta.json and events/event-NNNNN-<id>.json.
	LayoutSDK Layout = "sdk-eventlog"
	// LayoutCLITrajectory is a folder holding event-NNNNN-<id>.json files alone.
	LayoutCLITrajectory Layout = "cli-trajectory"
	// LayoutAppA is the 2025 app-server layout v1/events/<uuid>/<ts>_<Kind>_<hex>.
	LayoutAppA Layout = "app-v1-a"
	// LayoutAppB is the 2026 app-server layout v1_conversations/<hex>/<event hex>.json.
	LayoutAppB Layout = "app-v1-b"
	// LayoutJSONL is an agent-server/webhook events.jsonl file, one event a line.
	LayoutJSONL Layout = "jsonl"
	// LayoutZip is an exported conversation_<id>.zip.
	LayoutZip Layout = "export-zip"
	// LayoutV0Session is a V0 sessions/<sid>/ folder with events/<int>.json.
	LayoutV0Session Layout = "v0-session"
	// LayoutV0Trajectory is a V0 trajectory: a JSON array of events, or
	// {"trajectory": [...]}.
	LayoutV0Trajectory Layout = "v0-trajectory"
)

// SingleFile reports whether the layout keeps a whole conversation in one file.
func (l Layout) SingleFile() bool {
	return l == LayoutJSONL || l == LayoutZip || l == LayoutV0Trajectory
}

// Unit is one discovered conversation.
type Unit struct {
	// Path is the conversation folder, or the file for single-file layouts.
	Path string `json:"path"`
	// Layout is the on-disk form.
	Layout Layout `json:"layout"`
	// SessionID is the conversation UUID with dashes when one is known,
	// otherwise the folder or file name.
	SessionID string `json:"session_id"`
}

// Verdict sums up how a conversation read.
type Verdict string

// The verdicts, from best to worst.
const (
	// VerdictOK means every event was read; notes may exist.
	VerdictOK Verdict = "ok"
	// VerdictRecovered means some damage was met and worked around.
	VerdictRecovered Verdict = "recovered"
	// VerdictCorrupt means the conversation could not be read usefully.
	VerdictCorrupt Verdict = "corrupt"
	// VerdictUnsupported means the input is not a form this package knows.
	VerdictUnsupported Verdict = "unsupported"
)

// Severity ranks a Problem.
type Severity string

// The severities. Notes leave the verdict ok, warnings make it recovered,
// errors make it corrupt.
const (
	SeverityNote    Severity = "note"
	SeverityWarning Severity = "warning"
	SeverityError   Severity = "error"
)

// ProblemKind names what went wrong.
type ProblemKind string

// The problem kinds Read reports.
const (
	ProblemUnparseable     ProblemKind = "unparseable"
	ProblemMissingID       ProblemKind = "missing-id"
	ProblemMissingKind     ProblemKind = "missing-kind"
	ProblemDuplicateID     ProblemKind = "duplicate-id"
	ProblemGap             ProblemKind = "gap"
	ProblemStateUnreadable ProblemKind = "state-unreadable"
	ProblemUnknownKind     ProblemKind = "unknown-kind"
	ProblemUnknownAction   ProblemKind = "unknown-action"
	ProblemUnknownObs      ProblemKind = "unknown-observation"
	ProblemSkipped         ProblemKind = "skipped"
	ProblemTooLarge        ProblemKind = "too-large"
	ProblemNotRegular      ProblemKind = "not-regular"
	ProblemTornTail        ProblemKind = "torn-tail"
	ProblemUnreadable      ProblemKind = "unreadable"
	ProblemUnsupported     ProblemKind = "unsupported"
	ProblemRewritten       ProblemKind = "rewritten"
)

// Problem is one thing Read met that was not a clean event.
type Problem struct {
	Kind     ProblemKind `json:"kind"`
	Severity Severity    `json:"severity"`
	// File is the source file name relative to the unit path.
	File string `json:"file,omitempty"`
	// Line is the 1-based line for JSONL, 0 otherwise.
	Line int `json:"line,omitempty"`
	// Offset is the byte offset in File where the problem starts.
	Offset  int64  `json:"offset"`
	Message string `json:"message"`
	// Err is the error of this machine (a permission, an I/O error, a file that
	// vanished mid-read) behind an unreadable problem, nil when the fault is the
	// file's own. An importer reports such a conversation as failed, not damaged.
	Err error `json:"-"`
}

// Error formats the problem as "file:line@offset: kind: message".
func (p Problem) Error() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, p.Line)
	}
	return fmt.Sprintf("%s@%d: %s: %s", loc, p.Offset, p.Kind, p.Message)
}

// FileRole says what a source file holds.
type FileRole string

// The file roles.
const (
	RoleEvent     FileRole = "event"     // one event per file
	RoleState     FileRole = "state"     // base_state.json
	RoleMeta      FileRole = "meta"      // meta.json (agent-server, export zip)
	RoleMetadata  FileRole = "metadata"  // V0 metadata.json
	RoleLock      FileRole = "lock"      // events/.eventlog.lock
	RoleContainer FileRole = "container" // the single file of a single-file layout
	// RoleTorn is the newest event file caught while it was being written: its
	// JSON stops short. Its bytes are kept as read; it is read again as a new
	// event file once it changes, and is no rewrite of an archived event.
	RoleTorn FileRole = "torn"
)

// SourceFile is one file of a conversation with its exact bytes.
type SourceFile struct {
	// Name is the path relative to the unit path, with forward slashes; for
	// single-file layouts it is the file's base name.
	Name    string    `json:"name"`
	Role    FileRole  `json:"role"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	// Hash is the lowercase hex SHA-256 of Data.
	Hash string `json:"hash"`
	// Data is the file's exact bytes.
	Data []byte `json:"-"`
}

// Record is one decoded event in conversation order.
type Record struct {
	// Index is the position in Conversation.Records.
	Index int `json:"index"`
	// File is the source file (or zip entry) the event came from.
	File string `json:"file"`
	// Line is the 1-based line in a JSONL file, 0 otherwise.
	Line int `json:"line,omitempty"`
	// Offset is the byte offset of Raw in File; Raw spans [Offset,
	// Offset+len(Raw)). For a zip entry, Raw is the whole decompressed entry
	// and Offset is where the entry's (compressed) data starts in the zip.
	Offset int64 `json:"offset"`
	// Seq is the sequence number from the file name (SDK idx, V0 int name,
	// zip entry number), or -1 when the layout has none.
	Seq int64 `json:"seq"`
	// Raw is the event's exact JSON bytes.
	Raw   []byte `json:"-"`
	Event Event  `json:"event"`
	// body is Raw decoded for Project, when the read decoded it already
	// (decodeRecord): nil when it did not, undecodable when it could not.
	body *full
}

// Dialect tells V1 events (with "kind") from V0 events (with "action" or
// "observation").
type Dialect string

// The dialects.
const (
	DialectV1 Dialect = "v1"
	DialectV0 Dialect = "v0"
)

// Event holds the few fields of an event every layout needs. The full event
// stays in Record.Raw; Project decodes the rest.
type Event struct {
	Dialect Dialect `json:"dialect"`
	// ID is the event id; V0 integer ids are written in decimal.
	ID string `json:"id"`
	// Kind is the V1 class name ("ActionEvent"); for V0 it is "action" or
	// "observation".
	Kind      string `json:"kind"`
	Timestamp string `json:"timestamp,omitempty"`
	Source    string `json:"source,omitempty"`
	ParentID  string `json:"parent_id,omitempty"`
	// Action is action.kind (V1) or the action type (V0).
	Action string `json:"action,omitempty"`
	// Observation is observation.kind (V1) or the observation type (V0).
	Observation string `json:"observation,omitempty"`
	// Cause is the V0 action id an observation answers.
	Cause string `json:"cause,omitempty"`
	// Known is false when Kind, Action or Observation is not a known name.
	Known bool `json:"known"`
}

// Conversation is one conversation read losslessly.
type Conversation struct {
	Unit Unit `json:"unit"`
	// Files holds every source file kept, with exact bytes, in layout order.
	Files []SourceFile `json:"files"`
	// Records holds the decoded events in conversation order.
	Records  []Record  `json:"records"`
	Meta     Metadata  `json:"meta"`
	Verdict  Verdict   `json:"verdict"`
	Problems []Problem `json:"problems"`
	// Skipped lists files seen but deliberately not kept (pickles).
	Skipped []string `json:"skipped,omitempty"`
	// Cursor is where a JSONL read stopped; nil for other layouts.
	Cursor *Cursor `json:"cursor,omitempty"`

	// zipMeta is meta.json from inside an export zip, which is not a file
	// of its own.
	zipMeta []byte
}

// File returns the source file with the given name, or nil.
func (c *Conversation) File(name string) *SourceFile {
	for i := range c.Files {
		if c.Files[i].Name == name {
			return &c.Files[i]
		}
	}
	return nil
}

// Fault returns the first error of this machine met while reading the
// conversation (see Problem.Err), naming the file, or nil.
func (c *Conversation) Fault() error {
	for _, p := range c.Problems {
		var pe *fs.PathError
		switch {
		case p.Err == nil:
		case errors.As(p.Err, &pe):
			return p.Err // it names the file already
		default:
			return fmt.Errorf("read %s: %w", filepath.Join(c.Unit.Path, p.File), p.Err)
		}
	}
	return nil
}
