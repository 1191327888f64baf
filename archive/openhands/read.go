package openhands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// Reader reads conversations. Its fields hold the limits; NewReader sets the
// defaults. A Reader holds no state between calls and is safe for
// concurrent use.
type Reader struct {
	// MaxFileSize caps one file, JSONL line or zip entry, in bytes.
	MaxFileSize int64
}

// NewReader returns a Reader with the default limits.
func NewReader() *Reader {
	return &Reader{MaxFileSize: DefaultMaxFileSize}
}

// Read reads u with the default limits.
func Read(ctx context.Context, u Unit) (*Conversation, error) {
	return NewReader().Read(ctx, u)
}

// Read reads one conversation. Damage inside the conversation becomes
// Problems and a Verdict; the error is reserved for a cancelled context.
func (r *Reader) Read(ctx context.Context, u Unit) (*Conversation, error) {
	b := &builder{conv: &Conversation{Unit: u}, max: r.max(), seen: map[string]int{}}
	var err error
	switch u.Layout {
	case LayoutSDK, LayoutCLITrajectory, LayoutV0Session:
		err = b.readFolder(ctx, u)
	case LayoutAppA, LayoutAppB:
		err = b.readApp(ctx, u)
	case LayoutJSONL:
		err = b.readJSONL(ctx, u, Cursor{})
	case LayoutV0Trajectory:
		err = b.readArray(u)
	case LayoutZip:
		err = b.readZip(u)
	default:
		b.problem(Problem{Kind: ProblemUnsupported, Severity: SeverityError, Message: fmt.Sprintf("unknown layout %q", u.Layout)})
		b.conv.Verdict = VerdictUnsupported
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", u.Path, err)
	}
	b.finish()
	return b.conv, nil
}

// builder collects one conversation's files, records and problems.
type builder struct {
	conv *Conversation
	max  int64
	// seen maps an event id to its position in conv.Records (-1: read
	// before, by an earlier read), to drop duplicates.
	seen map[string]int
	// pending holds records of layouts that are sorted after reading.
	pending []Record
	// known names files a previous read already holds; ReadSince sets it so
	// only new files are read.
	known map[string]bool
	// base is the index of the first record this builder adds.
	base int
	// seqFrom is the sequence number the files read should start at (ReadAdded:
	// the one after the files read before, which it does not list).
	seqFrom int64
}

func (b *builder) problem(p Problem) { b.conv.Problems = append(b.conv.Problems, p) }

func (b *builder) keep(f SourceFile) { b.conv.Files = append(b.conv.Files, f) }

// decode turns raw bytes into a candidate record, reporting why it cannot be
// one. It does not check for duplicates; add does.
func (b *builder) decode(file string, line int, offset, seq int64, raw []byte) (Record, bool) {
	r, p := decodeRecord(file, line, offset, seq, raw)
	if p != nil {
		b.problem(*p)
		return Record{}, false
	}
	return r, true
}

// decodeRecord is decode without side effects, so it can run on workers.
func decodeRecord(file string, line int, offset, seq int64, raw []byte) (Record, *Problem) {
	ev, body, err := decodeEvent(raw)
	p := &Problem{File: file, Line: line, Offset: offset, Severity: SeverityWarning}
	if err != nil {
		p.Kind, p.Message = ProblemUnparseable, err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			p.Offset = offset + se.Offset
		}
		return Record{}, p
	}
	if ev.Dialect == DialectV1 && ev.Kind == "" {
		p.Kind, p.Message = ProblemMissingKind, "event has no kind (nor a V0 action/observation)"
		return Record{}, p
	}
	if ev.ID == "" {
		p.Kind, p.Message = ProblemMissingID, fmt.Sprintf("%s event has no id", ev.Kind)
		return Record{}, p
	}
	return Record{File: file, Line: line, Offset: offset, Seq: seq, Raw: raw, Event: ev, body: body}, nil
}

// add appends a record in final order, keeping the first of duplicate ids.
func (b *builder) add(r Record) {
	if first, dup := b.seen[r.Event.ID]; dup {
		from := "an earlier read"
		if first >= 0 {
			from = b.conv.Records[first].File
		}
		b.problem(Problem{Kind: ProblemDuplicateID, Severity: SeverityWarning, File: r.File, Line: r.Line, Offset: r.Offset,
			Message: fmt.Sprintf("id %s already read from %s; the first is kept", r.Event.ID, from)})
		return
	}
	if !r.Event.Known {
		kind, name := ProblemUnknownKind, r.Event.Kind
		switch {
		case r.Event.Dialect == DialectV1 && knownKinds[r.Event.Kind] && !knownAction(r.Event.Action):
			kind, name = ProblemUnknownAction, r.Event.Action
		case r.Event.Dialect == DialectV1 && knownKinds[r.Event.Kind]:
			kind, name = ProblemUnknownObs, r.Event.Observation
		case r.Event.Dialect == DialectV0 && r.Event.Kind == "action":
			kind, name = ProblemUnknownAction, r.Event.Action
		case r.Event.Dialect == DialectV0:
			kind, name = ProblemUnknownObs, r.Event.Observation
		}
		b.problem(Problem{Kind: kind, Severity: SeverityNote, File: r.File, Line: r.Line, Offset: r.Offset,
			Message: fmt.Sprintf("%q is not a known name; the event is kept as is", name)})
	}
	r.Index = b.base + len(b.conv.Records)
	b.seen[r.Event.ID] = len(b.conv.Records)
	b.conv.Records = append(b.conv.Records, r)
}

// flushByTime adds pending records ordered by (timestamp, file name), for
// layouts with no sequence number.
func (b *builder) flushByTime() {
	sort.SliceStable(b.pending, func(i, j int) bool {
		a, c := b.pending[i], b.pending[j]
		if a.Event.Timestamp != c.Event.Timestamp {
			return a.Event.Timestamp < c.Event.Timestamp
		}
		return a.File < c.File
	})
	for _, r := range b.pending {
		b.add(r)
	}
	b.pending = nil
}

// checkGaps warns when file sequence numbers do not run 0, 1, 2, ...
// The events are all imported anyway.
func (b *builder) checkGaps(seqs []int64, names []string) {
	want := b.seqFrom
	for i, s := range seqs {
		// A gap before a file read earlier was reported then.
		if s > want && !b.known[names[i]] {
			b.problem(Problem{Kind: ProblemGap, Severity: SeverityWarning, File: names[i],
				Message: fmt.Sprintf("sequence jumps from %d to %d; %d event(s) missing", want-1, s, s-want)})
		}
		if s >= want {
			want = s + 1
		}
	}
}

// finish sets metadata and the verdict.
func (b *builder) finish() {
	c := b.conv
	c.Meta = buildMetadata(c)
	if c.Verdict == VerdictUnsupported {
		return
	}
	worst := SeverityNote
	onlyTorn := true // every warning is a torn tail: a line still being written
	for _, p := range c.Problems {
		switch p.Severity {
		case SeverityError:
			worst = SeverityError
		case SeverityWarning:
			if worst != SeverityError {
				worst = SeverityWarning
			}
			onlyTorn = onlyTorn && p.Kind == ProblemTornTail
		}
	}
	switch {
	case worst == SeverityError:
		c.Verdict = VerdictCorrupt
	case worst == SeverityWarning && len(c.Records) == 0 && !onlyTorn && b.base == 0:
		// Nothing readable at all. (A read that continues an earlier one, or
		// finds only an unfinished last line, is not that.)
		c.Verdict = VerdictCorrupt
	case worst == SeverityWarning:
		c.Verdict = VerdictRecovered
	default:
		c.Verdict = VerdictOK
	}
}
