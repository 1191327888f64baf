package format

import "io"

// StreamReader is implemented by a format whose sources are single files the store
// reads as a stream of records (dsh's session.jsonl and session.jsonl.zstd): files
// that may be a gigabyte long and grow while their agent runs. The store opens the
// file (never blocking on a pipe), hands the format its bytes, and drives the stream:
// it reads records ahead on one goroutine and prepares them on a second while it
// writes the ones before (archive/readahead.go), commits a batch at each durable
// Position so that an interrupted import resumes after it, checks with its prefix
// sums that the bytes before a stamp are unchanged before it resumes there, keeps
// the bytes a read could not import, and decides what a changed file that holds
// less than the archive (damaged upstream) may replace. The format owns everything
// about the bytes: framing, torn tails, verdicts, and the checks that span a session.
type StreamReader interface {
	// Open begins reading a source: from its start when src.Stamp is nil, else
	// from where the read that returned that stamp stopped (src.Data then starts at
	// Offset(src.Stamp)). The error is a fault of the machine or the run, never
	// damage in the source, which is the stream's verdict and problems.
	Open(src StreamSource) (Stream, error)
	// Offset is how many bytes from the file's start a stamp this format gave
	// covers: the store checks they are unchanged before it resumes after them.
	// ok is false for a stamp the format cannot resume from (then the file is read
	// again from its start).
	Offset(stamp []byte) (offset int64, ok bool)
}

// StreamSource is what a format is given to read a source file.
type StreamSource struct {
	// Path names the file (its name may tell the format its layout).
	Path string
	// Data is the file's bytes, from its start or, on a resume, from the stamp's
	// Offset on.
	Data io.Reader
	// Stamp is where to resume (nil: from the start), and Header, on a resume, the
	// session's own description as the first read gave it (SessionFacts.Raw).
	Stamp, Header []byte
	// Strict makes every record-level problem fatal; LenientHeaders accepts the
	// headers of pre-release writers.
	Strict, LenientHeaders bool
	// Size is how many bytes Data holds, when known (0: unknown): a format may size
	// its buffers to it, as a small file read with buffers made for large ones
	// spends more on clearing them than on its records.
	Size int64
	// Decoder, when set, is the store's zstd decoder, which a format whose files
	// hold zstd frames may use for frames it has checked are small (creating one
	// per file costs more than a small session's import). It never closes it.
	Decoder FrameDecoder
}

// FrameDecoder decodes whole zstd frames (a *zstd.Decoder); it is safe for
// concurrent use.
type FrameDecoder interface {
	DecodeAll(input, dst []byte) ([]byte, error)
}

// Stream is one read of a source file. Next and Prepare may run on two goroutines,
// Next's ahead of Prepare's; Prepare sees the records in the order Next gave them.
// Result, Finish and Stamp are called once Next has returned io.EOF (Stamp also
// before, of a record Next gave).
type Stream interface {
	// Layout is the source's on-disk form, reported as the file report's format
	// ("v0"), and whether its bytes are compressed.
	Layout() (name string, compressed bool)
	// Session is what the source says about the session, or nil when the source
	// was refused (a missing, malformed or unsupported header): Next then returns
	// io.EOF at once and Result says why.
	Session() *SessionFacts
	// Next reads the next record: Record.Line and Record.Raw are set, and At.
	// It returns io.EOF at the end of what can be read (Result says whether that
	// was the end of the file); another error is a fault of the machine.
	Next() (StreamRecord, error)
	// Prepare derives what the archive keeps of a record Next gave: the rest of
	// its Record, its Warning and its Shadows. It also runs the checks that span
	// the session, so every record read from the session's first new one on is
	// prepared, in order.
	Prepare(rec *StreamRecord)
	// Stamp is the stamp of rec.At: what to give Open to resume after it.
	Stamp(rec *StreamRecord) []byte
	// Result is the verdict on what was read.
	Result() StreamResult
	// Finish is what the checks that span the session found (from its first
	// record, on a resume too), once every record is prepared.
	Finish() []Problem
	// Close releases the stream; it does not close Data.
	Close()
}

// Replayer is a Stream whose checks span the session: on a resume, before it reads
// on, the store gives it the session's archived records in order (line 1 on), and
// the stream catches its checks up on them without re-reading the file.
type Replayer interface {
	Replay(line int64, raw []byte) error
}

// StreamRecord is one record of a stream, as Next read it and Prepare derived it.
type StreamRecord struct {
	// Record is the record: Next sets Line and Raw, Prepare the rest.
	Record Record
	// At is how far the source is durable once this record is archived (the store
	// commits a batch only where At.Line is the record's own line).
	At Position
	// Size estimates the memory the record and what Prepare derives from it hold:
	// the store bounds the records it holds read ahead by it.
	Size int64
	// Warning is a problem Prepare found in the record that does not stop the
	// read (KindUndecodableEvent): it is kept with the file's warnings, over later
	// resumed reads too.
	Warning *Problem
	// Shadows are the events this record's event replaced in the part of the
	// conversation the model sees.
	Shadows []Shadow
	// Decoded is the format's own reading of the record, from Next to Prepare.
	Decoded any
}

// Position is how far a read of a source file is durable: the last record line a
// resumed read does not give again, and the bytes of the file before it.
type Position struct {
	Line, Offset int64
}

// Shadow says that the event Seq was replaced, in what the model sees, by the
// event By.
type Shadow struct{ Seq, By int64 }

// StreamResult is the verdict on a stream's read.
type StreamResult struct {
	Verdict  Verdict
	Problem  *Problem // what made the verdict worse than ok
	Warnings []Problem
	// Records and Events count what this read gave; LastSeq is the session's last
	// event seq so far (-1 when none).
	Records, Events, LastSeq int64
	// At is where a later read resumes, and Stamp its stamp.
	At    Position
	Stamp []byte
	// Dropped reports that the bytes from At.Offset on were not imported (a torn
	// or uncommitted tail, or the damaged rest of a corrupt file): the store keeps
	// them.
	Dropped bool
}

// Kinds the store acts on, which every format reports with these names.
const (
	// KindBadHeader refuses a source whose header is missing or malformed; an
	// import with LenientHeaders reads such a source again.
	KindBadHeader Kind = "bad-header"
	// KindTornTail is a source that ends in a torn record: the one its agent is
	// writing (verdict recovered).
	KindTornTail Kind = "torn-tail"
	// KindUndecodableEvent is the warning for an event whose data the projection
	// could not read in full: the event is archived byte for byte and exported as
	// written, but a view may miss what the unreadable part held.
	KindUndecodableEvent Kind = "undecodable-event"
	// KindIOError is a failure to read a source or to write the archive.
	KindIOError Kind = "io-error"
)

// Sniffer is a format that can tell its source files by their first line, so that
// a file named on its own (a renamed log) is read as this format even when another
// format claims the file by its name.
type Sniffer interface {
	Sniff(firstLine []byte) bool
}
