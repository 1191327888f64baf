package dsh

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/logbook/logbook/archive/format"
)

// Options tunes how strictly a file is read.
type Options struct {
	// Strict makes every record-level problem fatal (verdict corrupt). The default is
	// dsh's own recoverable policy: in a plain file, damage after the last turn/end is
	// an uncommitted tail that is dropped (verdict recovered).
	Strict bool
	// Header options (lenient headers for pre-release writers).
	Header HeaderOptions
	// MaxLineBytes bounds one logical line, without its newline; 0 means
	// DefaultMaxLineBytes. A longer line is skipped without being held in memory and
	// reported as a line-too-long problem, which is handled like any damaged record.
	MaxLineBytes int
	// MaxFrameBytes bounds one decoded zstd frame, and the window a frame may ask for;
	// 0 means DefaultMaxFrameBytes. A larger frame is refused as frame-too-large
	// without being decoded into memory.
	MaxFrameBytes uint64
	// Detached makes every Record own its memory (no buffer reuse between calls), so
	// records can be handed to another goroutine while the reader reads ahead.
	Detached bool
	// CompactRows gives packed rows a Record.Row instead of an Event per member: an
	// importer that needs no member on its own is spared most of the decoding work.
	CompactRows bool
	// Decoder, when set, decodes frames instead of a decoder of the Reader's own: a
	// zstd decoder is costly to create, and one can serve every file of an import
	// (DecodeAll is safe for concurrent use). It is given only frames that scanning
	// shows cannot decode to more than sharedFrameMax bytes, so its own limits need
	// only allow that much; larger frames go to a bounded decoder of the Reader's
	// own. The Reader never closes it.
	Decoder format.FrameDecoder
	// SizeHint is how many bytes the input holds, when known (0: unknown): a
	// smaller input is read with a smaller buffer than readBufferSize.
	SizeHint int64
}

// readBufferSize is the size of the buffer the input is read through.
const readBufferSize = 256 << 10

// readBuffer is the buffer size for an input of size bytes (0: unknown): a small
// file's buffer fits it, as clearing 256 KiB cost more than reading a small session.
func readBuffer(size int64) int {
	if size <= 0 || size >= readBufferSize {
		return readBufferSize
	}
	return max(int(size)+1, 4096)
}

// Limits on what one line and one frame may hold. dsh writes one event per line and
// one frame per 200 ms write batch; the largest line in the real corpus is 67 KB.
// The limits leave a wide margin over that while keeping an import's memory bounded
// whatever the file: a line the importer takes costs about ten times its length in
// memory on its way into the archive (decoded, blocked, compressed, bound to SQLite),
// so a 16 MiB line keeps a whole `logbook import` near 210 MB at its peak.
const (
	// DefaultMaxLineBytes is the default Options.MaxLineBytes.
	DefaultMaxLineBytes = 16 << 20
	// DefaultMaxFrameBytes is the default Options.MaxFrameBytes: room for a batch
	// of several lines of nearly the maximum length (a 200 ms batch of a few big
	// tool results is a valid log, never a bomb) and ordinary records around them.
	// `logbook import` of such a frame peaks near 220 MB (with its soft heap limit).
	DefaultMaxFrameBytes = 4*DefaultMaxLineBytes + 1<<20
)

// errLineTooLong is nextLine's report that it skipped a line over the limit; the
// Reader's tooLong says how long it was.
var errLineTooLong = errors.New("line too long")

// Cursor is a resumable position in a session file: everything before it has been
// read and committed. Offset is physical (a line start in a plain file, a frame start
// in a .zstd file), Line the last logical line consumed, NextSeq the seq the next
// event must carry.
type Cursor struct {
	Offset        int64 `json:"offset"`
	Line          int64 `json:"line"`
	LogicalOffset int64 `json:"logicalOffset"`
	Frame         int   `json:"frame"`
	NextSeq       int64 `json:"nextSeq"`
}

// Result is the verdict on what a Reader has read so far.
type Result struct {
	Verdict  Verdict
	Problem  *Problem // the problem behind a non-ok verdict
	Warnings []Problem
	Header   *Header
	Records  int64 // storage records returned by this reader
	Events   int64 // logical events returned by this reader
	LastSeq  int64 // last seq returned, or Cursor.NextSeq-1
	// Committed is where an incremental re-read resumes. For a torn zstd frame it is
	// the frame's start, so its recovered records are read again once it completes.
	Committed Cursor
	// Dropped reports that bytes from Committed.Offset on were not imported (a torn or
	// uncommitted tail, or the damaged rest of a corrupt file).
	Dropped bool
}

// Reader streams the records of one V0 session file. It never holds the whole file:
// a plain file is read line by line, a .zstd file frame by frame.
type Reader struct {
	opts       Options
	compressed bool
	br         *bufio.Reader
	frames     frameScanner
	zdec       *zstd.Decoder

	header   *Header
	rd       recordDecoder
	lineBuf  []byte
	lineSlab []byte // detached lines are copied here (see keep)
	// lineOwned reports that the line nextLine returned is in a buffer the Reader
	// lets go of (a long line, or a line of a large frame): a detached record can
	// keep it without a copy.
	lineOwned bool
	tooLong   skippedLine // the line behind the last errLineTooLong

	// zstd state: the decoded frame being consumed.
	frame      []byte
	framePos   int
	frameIdx   int
	frameStart int64
	frameTorn  bool
	frameOwned bool // r.frame is let go of at the next frame (see loadFrame)

	pos       Cursor // position after the last consumed line
	committed Cursor
	result    Result
	done      bool
}

// NewReader reads a session file from r. compressed selects the .jsonl.zstd container.
func NewReader(r io.Reader, compressed bool, opts Options) *Reader {
	if opts.MaxFrameBytes == 0 {
		opts.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	br := bufio.NewReaderSize(r, readBuffer(opts.SizeHint))
	rd := &Reader{opts: opts, compressed: compressed, br: br, frameIdx: -1}
	rd.rd.detached = opts.Detached
	rd.rd.compact = opts.CompactRows
	rd.frames.r = br
	rd.frames.max = opts.MaxFrameBytes
	rd.result.LastSeq = -1
	return rd
}

// Resume positions the reader after an earlier import: r must already be at
// c.Offset, and h is the header read then. Records continue from c.
func (r *Reader) Resume(h *Header, c Cursor) {
	r.header = h
	r.result.Header = h
	r.pos, r.committed = c, c
	r.frames.offset = c.Offset
	r.frameIdx = c.Frame - 1
	r.result.LastSeq = c.NextSeq - 1
}

// Header reads and validates the header line. A nil header with a nil error means
// the file was refused; Result says why.
func (r *Reader) Header() (*Header, error) {
	if r.header != nil || r.done {
		return r.header, nil
	}
	line, complete, err := r.nextLine()
	if errors.Is(err, errLineTooLong) {
		r.fail(VerdictCorrupt, r.tooLongProblem(Cursor{}, "the header line"))
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.done {
		return nil, nil
	}
	if line == nil || !complete {
		if line == nil && r.pos.Offset == 0 && r.frameIdx <= 0 {
			r.fail(VerdictCorrupt, &Problem{Kind: KindEmptyFile, Line: 0, Offset: 0, Message: "the file is empty: no header line"})
		} else {
			r.fail(VerdictCorrupt, &Problem{Kind: KindBadHeader, Line: 1, Offset: 0,
				Message: "header line 1 is incomplete: the file ends before its newline"})
		}
		return nil, nil
	}
	h, p, warn := ParseHeader(line, r.opts.Header)
	if p != nil {
		v := VerdictCorrupt
		if p.Kind == KindUnsupportedVersion {
			v = VerdictUnsupported
		}
		r.fail(v, p)
		return nil, nil
	}
	h.Raw = append([]byte(nil), line...)
	if warn != nil {
		r.result.Warnings = append(r.result.Warnings, *warn)
	}
	r.header = h
	r.result.Header = h
	r.commitLine()
	return h, nil
}

// Next returns the next valid record, or io.EOF when the file ends or a problem
// stops reading (Result reports which). Other errors are I/O failures.
func (r *Reader) Next() (*Record, error) {
	if r.header == nil {
		if _, err := r.Header(); err != nil {
			return nil, err
		}
		if r.header == nil {
			return nil, io.EOF
		}
	}
	if r.done {
		return nil, io.EOF
	}
	lineStart := r.pos
	line, complete, err := r.nextLine()
	if errors.Is(err, errLineTooLong) {
		r.recordProblem(r.tooLongProblem(lineStart, "it"), lineStart)
		r.release()
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	switch {
	case r.done:
		r.release()
		return nil, io.EOF
	case line == nil:
		r.finish()
		r.release()
		return nil, io.EOF
	case !complete:
		r.tornTail(lineStart, "the last line has no newline: a torn write")
		r.release()
		return nil, io.EOF
	}
	offset := r.problemOffset(lineStart)
	if r.opts.Detached {
		// A long line's record is allocated on its own and keeps the line's own
		// buffer (or a copy of it alone); short lines share slabs. Either way no
		// record keeps more than its own line alive for long (see recordDecoder.fresh).
		long := len(line) > slabLineMax
		if !r.lineOwned || !long {
			line = r.keep(line)
		}
		r.rd.fresh = long
	}
	rec, p := r.rd.decode(line, r.pos.Line, offset)
	if p == nil {
		p = r.checkSeqs(rec, offset)
	}
	if p == nil && r.opts.Strict {
		p = unknownEvent(rec, offset)
	}
	if p != nil {
		r.recordProblem(p, lineStart)
		r.release()
		return nil, io.EOF
	}
	rec.Offset = lineStart.LogicalOffset
	rec.Frame = -1
	if r.compressed {
		rec.Frame = r.frameIdx
	}
	r.result.Records++
	r.result.Events += rec.NumEvents()
	r.pos.NextSeq += rec.NumEvents()
	r.result.LastSeq = r.pos.NextSeq - 1
	r.commitLine()
	return rec, nil
}

// lineSlabSize is the size of the allocations detached lines are copied into.
const lineSlabSize = 256 << 10

// slabLineMax is the longest line copied into a line slab and given a record cut
// from the decoder's slabs. A slab lives as long as any record in it, so a slab
// of 512 records pins at most 512 such lines, and the line slabs they are in: a
// few MiB, whatever the file.
const slabLineMax = 16 << 10

// keep copies a line into the line slab, so that a detached record owns its bytes
// without an allocation per line; the GC frees a slab once no record uses it. A
// line longer than slabLineMax gets an allocation of its own.
func (r *Reader) keep(line []byte) []byte {
	if len(line) > slabLineMax {
		return append([]byte(nil), line...)
	}
	if cap(r.lineSlab)-len(r.lineSlab) < len(line) {
		// Slabs grow from small ones: a small file needs no 256 KiB. A plain file's
		// lines all fit in its size.
		first := 4 << 10
		if !r.compressed && r.opts.SizeHint > 0 {
			first = int(min(r.opts.SizeHint, lineSlabSize))
		}
		r.lineSlab = make([]byte, 0, min(lineSlabSize, max(2*cap(r.lineSlab), len(line), first)))
	}
	i := len(r.lineSlab)
	r.lineSlab = append(r.lineSlab, line...)
	return r.lineSlab[i:len(r.lineSlab):len(r.lineSlab)]
}

// Result reports the verdict so far; after Next returned io.EOF it is final.
func (r *Reader) Result() Result {
	res := r.result
	res.Committed = r.committed
	if res.Verdict == "" {
		res.Verdict = VerdictOK
	}
	return res
}

// checkSeqs enforces seq == index from 0 (after packed rows are expanded).
func (r *Reader) checkSeqs(rec *Record, offset int64) *Problem {
	want := r.pos.NextSeq
	for i := range rec.NumEvents() {
		// A compact row's members are consecutive by construction: its first seq
		// decides.
		got := rec.FirstSeq() + i
		if rec.Row == nil {
			got = rec.Events[i].Seq
		}
		if got == want {
			want++
			continue
		}
		what := "a gap"
		switch {
		case got == want-1:
			what = "a duplicate seq (two writers appended to the same session)"
		case got < want:
			what = "a backward seq (a stale writer committed after an interruption)"
		}
		return problemf(KindSeqGap, rec.Line, offset, "seq break: expected seq %d, got %d: %s", want, got, what)
	}
	return nil
}

// recordProblem applies the corruption policy to the first bad record.
func (r *Reader) recordProblem(p *Problem, at Cursor) {
	if r.compressed {
		if r.frameTorn {
			// Damage inside the torn final frame is part of the uncommitted tail.
			r.dropTail(VerdictRecovered, p)
			return
		}
		r.fail(VerdictCorrupt, p)
		return
	}
	if r.opts.Strict || r.laterTurnEnd() {
		if !r.opts.Strict {
			p.Message += "; a later turn/end shows this line was committed, so the log is corrupt"
		}
		r.fail(VerdictCorrupt, p)
		return
	}
	p.Message += "; nothing after it ends a turn, so it is an uncommitted tail and was dropped"
	r.dropTail(VerdictRecovered, p)
}

// laterTurnEnd reports whether any later line of a plain file is a turn/end event:
// dsh's test of whether damage lies inside the committed region.
func (r *Reader) laterTurnEnd() bool {
	for {
		line, _, err := r.nextLine()
		if errors.Is(err, errLineTooLong) {
			continue // skipped unread: dsh's turn/end lines are small
		}
		if err != nil || line == nil {
			return false
		}
		if !bytes.Contains(line, []byte(`"turn/end"`)) || !jsonValidObject(line) {
			continue
		}
		var typ []byte
		_ = eachMember(line, func(k, v []byte) error {
			if string(k) == "type" {
				typ = v
			}
			return nil
		})
		if t, _ := jsonString(typ); t == "turn/end" {
			return true
		}
	}
}

func (r *Reader) tornTail(at Cursor, why string) {
	r.dropTail(VerdictRecovered, &Problem{Kind: KindTornTail, Line: at.Line + 1,
		Offset: r.problemOffset(at), Message: fmt.Sprintf("line %d: %s; dropped", at.Line+1, why)})
}

func (r *Reader) dropTail(v Verdict, p *Problem) {
	r.result.Dropped = true
	r.fail(v, p)
}

func (r *Reader) fail(v Verdict, p *Problem) {
	r.result.Verdict = v
	r.result.Problem = p
	if v != VerdictRecovered {
		r.result.Dropped = true
	}
	r.done = true
}

// finish runs the end-of-file checks.
func (r *Reader) finish() {
	r.done = true
	if r.header != nil && r.header.SeedLength > r.pos.NextSeq {
		r.fail(VerdictCorrupt, &Problem{Kind: KindSeedLength, Line: 1, Offset: 0,
			Message: fmt.Sprintf("header seedLength %d exceeds the %d events in the log", r.header.SeedLength, r.pos.NextSeq)})
	}
}

// problemOffset is the physical offset reported for a problem at a position: the
// line's own offset in a plain file, the frame's start in a .zstd file.
func (r *Reader) problemOffset(at Cursor) int64 {
	if r.compressed {
		return r.frameStart
	}
	return at.Offset
}

// commitLine advances the committed cursor when the consumed line is durable: always
// in a plain file; in a .zstd file only at the end of a complete frame.
func (r *Reader) commitLine() {
	if !r.compressed {
		r.committed = r.pos
		return
	}
	if r.framePos >= len(r.frame) && !r.frameTorn {
		r.committed = r.pos
	}
}

// bigLine is the length past which a line's buffer is handed to the record that
// holds the line (detached) or let go of at the next line, rather than kept for reuse.
const bigLine = 1 << 20

// nextLine returns the next logical line without its '\n'. complete is false for a
// final line with no newline. A nil line means a clean end of input. A line longer
// than MaxLineBytes is skipped without being held, and errLineTooLong returned.
func (r *Reader) nextLine() ([]byte, bool, error) {
	r.lineOwned = false
	if r.compressed {
		return r.nextFrameLine()
	}
	if cap(r.lineBuf) > bigLine {
		r.lineBuf = nil // the last line was long; do not pin its buffer
	}
	r.lineBuf = r.lineBuf[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		n := len(r.lineBuf) + len(frag)
		if err == nil {
			n-- // the newline
		}
		if n > r.opts.MaxLineBytes {
			return nil, false, r.skipLine(int64(len(r.lineBuf)+len(frag)), err)
		}
		if err == nil && len(r.lineBuf) == 0 {
			r.advance(int64(len(frag)))
			return frag[:len(frag)-1], true, nil
		}
		if len(r.lineBuf)+len(frag) > cap(r.lineBuf) {
			// Double by hand: append's slower growth for large slices copies more,
			// and the limit caps the buffer at the longest allowed line.
			grown := make([]byte, len(r.lineBuf), min(max(2*cap(r.lineBuf), len(r.lineBuf)+len(frag)), r.opts.MaxLineBytes+1))
			copy(grown, r.lineBuf)
			r.lineBuf = grown
		}
		r.lineBuf = append(r.lineBuf, frag...)
		switch {
		case err == nil:
			r.advance(int64(len(r.lineBuf)))
			line := r.lineBuf[:len(r.lineBuf)-1]
			if r.opts.Detached && len(line) > bigLine {
				r.lineOwned, r.lineBuf = true, nil // the record keeps the buffer
			}
			return line, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(r.lineBuf) == 0 {
				return nil, false, nil
			}
			return r.lineBuf, false, nil
		default:
			return nil, false, fmt.Errorf("read: %w", err)
		}
	}
}

// skippedLine describes a line skipped for its length.
type skippedLine struct {
	length  int64 // bytes, without the newline
	newline bool  // false when the input ended inside the line
}

// skipLine reads past the rest of a line that is over the limit, holding none of it.
// read bytes of it are consumed already, the last ReadSlice having returned err.
func (r *Reader) skipLine(read int64, err error) error {
	r.lineBuf = r.lineBuf[:0]
	for err != nil {
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err != io.EOF {
				return fmt.Errorf("read: %w", err)
			}
			break
		}
		var frag []byte
		frag, err = r.br.ReadSlice('\n')
		read += int64(len(frag))
	}
	r.tooLong = skippedLine{length: read, newline: err == nil}
	if err == nil {
		r.tooLong.length--
	}
	r.advance(read)
	return errLineTooLong
}

// tooLongProblem reports the line skipped by the last errLineTooLong, which began at
// position at; what names it in the message ("the header line", "it").
func (r *Reader) tooLongProblem(at Cursor, what string) *Problem {
	sk := r.tooLong
	where := fmt.Sprintf("byte %d", at.Offset)
	if r.compressed {
		where = fmt.Sprintf("byte %d of the decompressed log (frame %d at byte %d)", at.LogicalOffset, r.frameIdx, r.frameStart)
	}
	msg := fmt.Sprintf("line %d at %s is %d bytes long, over the limit of %d bytes; %s was skipped without being read into memory",
		at.Line+1, where, sk.length, r.opts.MaxLineBytes, what)
	if !sk.newline {
		msg += " (the file ends inside it, with no newline)"
	}
	return &Problem{Kind: KindLineTooLong, Line: at.Line + 1, Offset: r.problemOffset(at), Message: msg}
}

func (r *Reader) advance(n int64) {
	r.pos.Offset += n
	r.pos.LogicalOffset += n
	r.pos.Line++
}

// release lets go of the Reader's buffers once it has nothing more to return, so a
// finished reader whose records are still queued holds no more than they do.
func (r *Reader) release() {
	r.frame, r.frameOwned, r.framePos = nil, false, 0
	r.lineBuf, r.lineSlab = nil, nil
	r.frames.buf = nil
}

// Close releases the decoder.
func (r *Reader) Close() {
	if r.zdec != nil && r.zdec != r.opts.Decoder {
		r.zdec.Close()
		r.zdec = nil
	}
}

func jsonValidObject(b []byte) bool {
	i := skipSpace(b, 0)
	return i < len(b) && b[i] == '{' && validJSON(b)
}

// Committed returns the resumable position after the last durable record read.
func (r *Reader) Committed() Cursor { return r.committed }

// unknownEvent reports, in strict mode, an event type outside the V0 inventory that is
// neither ignorable nor a recognised legacy type: dsh refuses such logs. The
// recoverable mode archives them and warns instead.
func unknownEvent(rec *Record, offset int64) *Problem {
	if rec.Packed != "" {
		return nil
	}
	ev := &rec.Events[0]
	if ev.Ignorable || KnownEventType(ev.Type) || LegacyEventType(ev.Type) {
		return nil
	}
	return problemf(KindUnknownEvent, rec.Line, offset,
		"unknown event type %q (seq %d) is not ignorable; dsh refuses it, so strict mode does too", ev.Type, ev.Seq)
}
