// Package dsh decodes DeepSeek Harness (dsh) Session V0 logs: the physical container
// (plain .jsonl or multi-frame .jsonl.zstd), the header, storage records (plain events
// and packed chunk rows) and range-encoded sourceEventSeqs, with a verdict per file.
//
// The package is pure: it reads bytes and returns typed records and problems. Storage
// lives in the parent archive package.
package dsh

import (
	"encoding/json"

	"github.com/logbook/logbook/archive/format"
)

// Verdict is the outcome of reading one session file (see archive/format).
type Verdict = format.Verdict

// Verdicts, from best to worst.
const (
	VerdictOK          = format.VerdictOK
	VerdictRecovered   = format.VerdictRecovered
	VerdictCorrupt     = format.VerdictCorrupt
	VerdictUnsupported = format.VerdictUnsupported
)

// Kind is a stable slug naming a class of problem (see archive/format). Kinds are a
// public interface (the CLI's --json output and tests rely on them); never rename one.
type Kind = format.Kind

// Problem kinds. Fatal or tail-dropping problems first, then semantic warnings.
const (
	KindEmptyFile          Kind = "empty-file"
	KindBadHeader               = format.KindBadHeader
	KindUnsupportedVersion Kind = "unsupported-version"
	KindTornTail                = format.KindTornTail
	KindBadFrame           Kind = "bad-frame"
	KindBadChecksum        Kind = "bad-checksum"
	KindBadJSON            Kind = "bad-json"
	KindBadEvent           Kind = "bad-event"
	KindMalformedPackedRow Kind = "malformed-packed-row"
	KindBadSourceSeqs      Kind = "bad-source-seqs"
	KindBadSurfaceOp       Kind = "bad-surface-op"
	KindSeqGap             Kind = "seq-gap"
	KindSeedLength         Kind = "bad-seed-length"
	KindIOError                 = format.KindIOError
	// KindLineTooLong is a line longer than the reader's limit (Options.MaxLineBytes):
	// it is skipped without being held in memory, and treated as a damaged record.
	KindLineTooLong Kind = "line-too-long"
	// KindFrameTooLarge is a zstd frame that decodes (or declares it decodes, or
	// needs a window) past the reader's limit (Options.MaxFrameBytes): a
	// decompression bomb, or a frame no dsh writer produces. It is refused without
	// being decoded into memory.
	KindFrameTooLarge Kind = "frame-too-large"

	// Warnings: reported, never fatal.
	KindIdentityMismatch Kind = "identity-mismatch"
	KindUnknownEvent     Kind = "unknown-event"
	KindLegacyEvent      Kind = "legacy-event"
	KindLenientHeader    Kind = "lenient-header"
	KindSurface          Kind = "surface"
	KindTurnNesting      Kind = "turn-nesting"
	KindUnpairedTool     Kind = "unpaired-tool"
	KindUnpairedApproval Kind = "unpaired-approval"
	KindUnpairedCommand  Kind = "unpaired-command"
	KindUnpairedRetry    Kind = "unpaired-retry"
	KindCompaction       Kind = "compaction"
	KindSchedule         Kind = "schedule"
	KindTitle            Kind = "title"
	KindInterruptedTail  Kind = "interrupted-tail"
)

// Problem is one finding about a file (see archive/format). Line is the 1-based line
// of the logical (decompressed) JSONL, the header being line 1; 0 when not tied to a
// line. Offset is the byte offset in the physical file (for .zstd, the start of the
// frame) or -1.
type Problem = format.Problem

// Header is the decoded physical header line.
type Header struct {
	Raw             []byte `json:"-"` // the exact header line, without its newline
	Version         int64  `json:"version"`
	ID              string `json:"id"`
	CreatedAt       int64  `json:"createdAt"`
	Cwd             string `json:"cwd,omitempty"`
	HasCwd          bool   `json:"-"`
	ParentSession   string `json:"parentSession,omitempty"`
	SeedLength      int64  `json:"seedLength,omitempty"`
	IsSeeded        bool   `json:"isSeeded"`
	Origin          string `json:"origin,omitempty"`
	DelegationDepth int64  `json:"delegationDepth"`
	AgentPreset     string `json:"agentPreset,omitempty"`
}

// Packed row tags.
const (
	RowTextChunks      = "text-chunks"
	RowReasoningChunks = "reasoning-chunks"
	RowToolCallChunks  = "tool-call-chunks"
)

// Record is one storage line after the header: a plain event or a packed chunk row.
type Record struct {
	Line   int64  // 1-based logical line number (header = 1)
	Offset int64  // byte offset of the line in the logical (decompressed) stream
	Frame  int    // zstd frame index holding the line; -1 for plain files
	Raw    []byte // the exact line without '\n'; valid until the next call to Next
	Packed string // the row tag for a packed row, else ""
	// Events holds the record's logical events: the event of a plain record, one per
	// member of a packed row. A packed row read with Options.CompactRows has none:
	// Row describes its members instead.
	Events []Event
	Row    *PackedRow
}

// PackedRow summarises the members of a packed row without an Event for each: what
// an importer needs of the dozens of stream deltas a row holds.
type PackedRow struct {
	Seq0    int64 // seq of the first member
	Count   int64 // members
	Time0   int64 // time of the first member
	MaxTime int64 // latest member time (gaps may be negative)
	Chunk   Chunk // the fields every member shares (TextJSON is nil)
}

// NumEvents returns the number of logical events the record holds.
func (r *Record) NumEvents() int64 {
	if r.Row != nil {
		return r.Row.Count
	}
	return int64(len(r.Events))
}

// FirstSeq returns the seq of the record's first event.
func (r *Record) FirstSeq() int64 {
	if r.Row != nil {
		return r.Row.Seq0
	}
	return r.Events[0].Seq
}

// LastSeq returns the seq of the record's last event.
func (r *Record) LastSeq() int64 {
	if r.Row != nil {
		return r.Row.Seq0 + r.Row.Count - 1
	}
	return r.Events[len(r.Events)-1].Seq
}

// Event is one logical event. For packed-row members Data is nil and Chunk is set.
type Event struct {
	Seq    int64
	Time   int64
	Type   string
	Member int // index within a packed row; -1 for a plain event

	Data            json.RawMessage // plain events: the raw data value
	HasSourceSeqs   bool
	SourceEventSeqs []int64         // expanded
	SourceSeqsRaw   json.RawMessage // as written (may be range-encoded)
	SurfaceOp       json.RawMessage // raw surfaceOp or nil
	Ignorable       bool

	Chunk *Chunk // packed members only
}

// Chunk is an expanded packed-row member (an assistant/chunk delta).
type Chunk struct {
	Kind  string // text-delta, reasoning-delta, tool-call-delta
	Turn  int64
	Step  int64
	Index int64
	// TextJSON is the member's text (the text/reasoning delta, or argumentsDelta for
	// tool calls) as the JSON string literal it was written as. It is decoded only on
	// demand (Text): a log holds millions of deltas that nothing but a replay reads.
	TextJSON []byte
	ID       string // tool call id
	Name     string
	HasName  bool
}

// Text decodes the member's text.
func (c *Chunk) Text() string {
	t, _ := jsonString(c.TextJSON)
	return t
}
