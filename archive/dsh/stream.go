package dsh

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/logbook/logbook/archive/format"
)

var _ format.StreamReader = Format{}

// Layouts of a dsh source file, as a file report names them.
const (
	LayoutPlain      = "v0"      // session.jsonl
	LayoutCompressed = "v0-zstd" // session.jsonl.zstd, one zstd frame per write batch
)

// Open begins reading a dsh session file as a stream (format.StreamReader): from its
// header, or from the cursor a stamp holds, after the header the archive keeps.
func (Format) Open(src format.StreamSource) (format.Stream, error) {
	compressed := strings.HasSuffix(src.Path, ".zstd")
	opts := Options{Strict: src.Strict, Header: HeaderOptions{Lenient: src.LenientHeaders}, Detached: true,
		CompactRows: true, // the import never looks at a stream delta on its own
		SizeHint:    src.Size}
	if compressed && src.Decoder != nil {
		opts.Decoder = src.Decoder
	}
	s := &stream{path: src.Path, compressed: compressed, r: NewReader(src.Data, compressed, opts)}
	if src.Stamp == nil {
		h, err := s.r.Header()
		if err != nil {
			s.r.Close()
			return nil, err
		}
		s.start(h)
		return s, nil
	}
	var c Cursor
	if err := json.Unmarshal(src.Stamp, &c); err != nil {
		s.r.Close()
		return nil, fmt.Errorf("resume: the stored cursor does not decode: %w", err)
	}
	h, p, _ := ParseHeader(src.Header, HeaderOptions{Lenient: true})
	if p != nil {
		s.r.Close()
		return nil, fmt.Errorf("stored header no longer parses: %s", p.Message)
	}
	h.Raw = src.Header
	s.r.Resume(h, c)
	s.start(h)
	return s, nil
}

// Offset is the byte offset the cursor in a stamp is durable at
// (format.StreamReader).
func (Format) Offset(stamp []byte) (int64, bool) {
	var c Cursor
	if len(stamp) == 0 || json.Unmarshal(stamp, &c) != nil {
		return 0, false
	}
	return c.Offset, true
}

// stream is a Reader with the semantic checker its records feed (format.Stream).
type stream struct {
	path       string
	compressed bool
	r          *Reader
	h          *Header
	facts      *format.SessionFacts
	checker    *Checker
	ld         LineDecoder // for replayed lines
}

// read is a record as Next read it, with the cursor durable after it.
type read struct {
	rec *Record
	at  Cursor
}

// start takes the accepted header (nil: the file was refused).
func (s *stream) start(h *Header) {
	if h == nil {
		return
	}
	s.h, s.checker = h, NewChecker(h)
	s.facts = &format.SessionFacts{ID: h.ID, CreatedAt: h.CreatedAt, Cwd: h.Cwd, Parent: h.ParentSession, Raw: h.Raw,
		Version: h.Version, Seeded: h.IsSeeded, SeedLength: h.SeedLength, Origin: h.Origin,
		DelegationDepth: h.DelegationDepth, AgentPreset: h.AgentPreset}
}

func (s *stream) Layout() (string, bool) {
	if s.compressed {
		return LayoutCompressed, true
	}
	return LayoutPlain, false
}

func (s *stream) Session() *format.SessionFacts { return s.facts }

func (s *stream) Next() (format.StreamRecord, error) {
	rec, err := s.r.Next()
	if err != nil {
		return format.StreamRecord{}, err
	}
	at := s.r.Committed()
	return format.StreamRecord{
		Record: format.Record{Line: rec.Line, Raw: rec.Raw},
		At:     format.Position{Line: at.Line, Offset: at.Offset},
		// About as much again as the line for what Prepare decodes from it, and
		// its events.
		Size:    2*int64(len(rec.Raw)) + 256*int64(len(rec.Events)) + 256,
		Decoded: &read{rec: rec, at: at},
	}, nil
}

// Prepare projects the record and feeds the semantic checker its events, noting
// the surface nodes each one shadowed.
func (s *stream) Prepare(sr *format.StreamRecord) {
	rec := sr.Decoded.(*read).rec
	sr.Record, sr.Warning = Project(rec)
	if rec.Row != nil {
		s.checker.ObserveRow(rec.Row, rec.Line)
		return
	}
	for i := range rec.Events {
		sr.Shadows = observe(s.checker, &rec.Events[i], rec.Line, sr.Shadows)
	}
}

// observe feeds the checker one event and returns the surface nodes it shadowed.
func observe(checker *Checker, ev *Event, line int64, out []format.Shadow) []format.Shadow {
	var span []int64
	if len(ev.SurfaceOp) > 0 && ev.SurfaceOp[0] == '{' {
		var op struct{ Start, End int64 }
		if json.Unmarshal(ev.SurfaceOp, &op) == nil {
			span, _ = checker.Surface().Span(op.Start, op.End)
		}
	}
	checker.Observe(ev, line)
	shadowed := checker.Surface().Shadowed()
	for _, sq := range span {
		if shadowed[sq] == ev.Seq {
			out = append(out, format.Shadow{Seq: sq, By: ev.Seq})
		}
	}
	return out
}

// Replay feeds the checker an archived record before a resumed read
// (format.Replayer); line 1, the header, has no events.
func (s *stream) Replay(line int64, raw []byte) error {
	if line < 2 {
		return nil
	}
	rec, p := s.ld.Decode(raw, line)
	if p != nil {
		return fmt.Errorf("archived line %d no longer decodes: %s", line, p.Message)
	}
	for i := range rec.Events {
		s.checker.Observe(&rec.Events[i], line)
	}
	return nil
}

func (s *stream) Stamp(sr *format.StreamRecord) []byte {
	return cursorStamp(sr.Decoded.(*read).at)
}

func cursorStamp(c Cursor) []byte {
	b, _ := json.Marshal(c)
	return b
}

func (s *stream) Result() format.StreamResult {
	res := s.r.Result()
	return format.StreamResult{Verdict: res.Verdict, Problem: res.Problem, Warnings: res.Warnings,
		Records: res.Records, Events: res.Events, LastSeq: res.LastSeq,
		At: format.Position{Line: res.Committed.Line, Offset: res.Committed.Offset}, Stamp: cursorStamp(res.Committed),
		Dropped: res.Dropped}
}

// Finish is what the folder names say of the header, then the semantic checker's
// findings.
func (s *stream) Finish() []Problem {
	if s.h == nil {
		return nil
	}
	return append(IdentityWarnings(s.path, s.h), s.checker.Finish()...)
}

func (s *stream) Close() { s.r.Close() }

var _ format.Sniffer = Format{}

// Sniff reports whether a file's first line is a dsh V0 header (format.Sniffer).
func (Format) Sniff(firstLine []byte) bool {
	h, p, _ := ParseHeader(firstLine, HeaderOptions{Lenient: true})
	return h != nil && p == nil
}
