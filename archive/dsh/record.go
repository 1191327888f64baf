package dsh

import (
	"fmt"
)

// recordDecoder turns storage lines into Records. It reuses its buffers between
// lines, so a Record is only valid until the next decode.
type recordDecoder struct {
	rec    Record
	events []Event
	chunks []Chunk
	texts  [][]byte
	dts    []int64
}

// problemf builds a record-level problem at a line.
func problemf(kind Kind, line, offset int64, format string, args ...any) *Problem {
	return &Problem{Kind: kind, Line: line, Offset: offset,
		Message: fmt.Sprintf("line %d: ", line) + fmt.Sprintf(format, args...)}
}

// decode validates one storage line (without '\n') and expands it into events.
// offset is the physical byte offset reported with problems.
func (d *recordDecoder) decode(line []byte, lineNo, offset int64) (*Record, *Problem) {
	if !validJSON(line) {
		return nil, problemf(KindBadJSON, lineNo, offset, "not valid JSON: %s", truncate(line, 80))
	}
	if k := jsonKind(line[skipSpace(line, 0):]); k != "an object" {
		return nil, problemf(KindBadJSON, lineNo, offset, "expected a JSON object, got %s", k)
	}
	var typ []byte
	_ = eachMember(line, func(k, v []byte) error {
		if string(k) == "type" {
			typ = v
			return errStop // writers put "type" first; stop before scanning the body
		}
		return nil
	})
	d.rec = Record{Line: lineNo, Raw: line}
	d.events = d.events[:0]
	t, _ := jsonString(typ)
	var p *Problem
	switch t {
	case RowTextChunks, RowReasoningChunks, RowToolCallChunks:
		d.rec.Packed = t
		p = d.decodePacked(line, t, lineNo, offset)
	default:
		p = d.decodeEvent(line, lineNo, offset)
	}
	if p != nil {
		return nil, p
	}
	d.rec.Events = d.events
	return &d.rec, nil
}

// decodePacked validates and expands a packed chunk row (§1.2, frozen codec rules).
// A malformed row is an error, never an ordinary event.
func (d *recordDecoder) decodePacked(line []byte, tag string, lineNo, offset int64) *Problem {
	bad := func(format string, args ...any) *Problem {
		return problemf(KindMalformedPackedRow, lineNo, offset, tag+" row: "+format, args...)
	}
	var seq0, time0 int64
	var data []byte
	seen := map[string]bool{}
	var msg string
	_ = eachMember(line, func(k, v []byte) error {
		key := string(k)
		if seen[key] && msg == "" {
			msg = fmt.Sprintf("duplicate key %q", key)
		}
		seen[key] = true
		switch key {
		case "type":
		case "seq0":
			n, ok := nonNegInt(v)
			if !ok && msg == "" {
				msg = fmt.Sprintf("seq0 must be a non-negative safe integer, got %s", truncate(v, 30))
			}
			seq0 = n
		case "time0":
			n, _, ok := safeInt(v)
			if !ok && msg == "" {
				msg = fmt.Sprintf("time0 must be a safe integer, got %s", truncate(v, 30))
			}
			time0 = n
		case "data":
			data = v
		default:
			if msg == "" {
				msg = fmt.Sprintf("unexpected key %q (a packed row has exactly type, seq0, time0, data)", key)
			}
		}
		return nil
	})
	if msg != "" {
		return bad("%s", msg)
	}
	for _, k := range []string{"seq0", "time0", "data"} {
		if !seen[k] {
			return bad("missing key %q", k)
		}
	}
	if jsonKind(data) != "an object" {
		return bad("data must be an object, got %s", jsonKind(data))
	}
	tool := tag == RowToolCallChunks
	payloadKey := "texts"
	if tool {
		payloadKey = "args"
	}
	var turn, step, index int64
	var id, name string
	hasName := false
	var dt, payload []byte
	dseen := map[string]bool{}
	_ = eachMember(data, func(k, v []byte) error {
		key := string(k)
		if dseen[key] && msg == "" {
			msg = fmt.Sprintf("duplicate data key %q", key)
		}
		dseen[key] = true
		count := func(dst *int64) {
			n, ok := nonNegInt(v)
			if !ok && msg == "" {
				msg = fmt.Sprintf("data.%s must be a non-negative safe integer, got %s", key, truncate(v, 30))
			}
			*dst = n
		}
		switch {
		case key == "turn":
			count(&turn)
		case key == "step":
			count(&step)
		case key == "index":
			count(&index)
		case key == "dt":
			dt = v
		case key == payloadKey:
			payload = v
		case tool && key == "id":
			s, ok := jsonString(v)
			if (!ok || s == "") && msg == "" {
				msg = fmt.Sprintf("data.id must be a non-empty string, got %s", truncate(v, 30))
			}
			id = s
		case tool && key == "name":
			s, ok := jsonString(v)
			if !ok && msg == "" {
				msg = fmt.Sprintf("data.name must be a string, got %s", jsonKind(v))
			}
			name, hasName = s, true
		default:
			if msg == "" {
				msg = fmt.Sprintf("unexpected data key %q", key)
			}
		}
		return nil
	})
	if msg != "" {
		return bad("%s", msg)
	}
	required := []string{"turn", "step", "index", "dt", payloadKey}
	if tool {
		required = append(required, "id")
	}
	for _, k := range required {
		if !dseen[k] {
			return bad("missing data key %q", k)
		}
	}
	if jsonKind(payload) != "an array" {
		return bad("data.%s must be an array of strings, got %s", payloadKey, jsonKind(payload))
	}
	d.texts = d.texts[:0]
	_ = eachElement(payload, func(v []byte) error {
		if jsonKind(v) != "a string" && msg == "" {
			msg = fmt.Sprintf("data.%s[%d] must be a string, got %s", payloadKey, len(d.texts), jsonKind(v))
		}
		d.texts = append(d.texts, v)
		return nil
	})
	if msg != "" {
		return bad("%s", msg)
	}
	n := len(d.texts)
	if n == 0 {
		return bad("data.%s is empty (a packed row has at least one member)", payloadKey)
	}
	if jsonKind(dt) != "an array" {
		return bad("data.dt must be an array of integers, got %s", jsonKind(dt))
	}
	d.dts = d.dts[:0]
	_ = eachElement(dt, func(v []byte) error {
		g, _, ok := safeInt(v)
		if !ok && msg == "" {
			msg = fmt.Sprintf("data.dt[%d] = %s is not a safe integer", len(d.dts), truncate(v, 30))
		}
		d.dts = append(d.dts, g)
		return nil
	})
	if msg != "" {
		return bad("%s", msg)
	}
	if len(d.dts) != n-1 {
		return bad("data.dt has %d gaps for %d members (want %d)", len(d.dts), n, n-1)
	}
	if seq0+int64(n)-1 > maxSafeInt {
		return bad("last member seq %d+%d is not a safe integer", seq0, n-1)
	}
	kind := "text-delta"
	switch tag {
	case RowReasoningChunks:
		kind = "reasoning-delta"
	case RowToolCallChunks:
		kind = "tool-call-delta"
	}
	if cap(d.chunks) < n {
		d.chunks = make([]Chunk, n)
	}
	d.chunks = d.chunks[:n]
	t := time0
	for k := 0; k < n; k++ {
		if k > 0 {
			t += d.dts[k-1]
			if t > maxSafeInt || t < -maxSafeInt {
				return bad("member %d time is not a safe integer", k)
			}
		}
		d.chunks[k] = Chunk{Kind: kind, Turn: turn, Step: step, Index: index, TextJSON: d.texts[k], ID: id, Name: name, HasName: hasName}
		d.events = append(d.events, Event{Seq: seq0 + int64(k), Time: t, Type: "assistant/chunk", Member: k, Chunk: &d.chunks[k]})
	}
	return nil
}

// decodeEvent validates a plain event envelope (§1.4, checklist step 10-11).
func (d *recordDecoder) decodeEvent(line []byte, lineNo, offset int64) *Problem {
	var ev Event
	ev.Member = -1
	seen := map[string]bool{}
	var msg string
	var seqRaw, timeRaw, typeRaw, ignRaw []byte
	_ = eachMember(line, func(k, v []byte) error {
		key := string(k)
		if seen[key] && msg == "" {
			msg = fmt.Sprintf("duplicate key %q", key)
		}
		seen[key] = true
		switch key {
		case "type":
			typeRaw = v
		case "seq":
			seqRaw = v
		case "time":
			timeRaw = v
		case "data":
			ev.Data = v
		case "ignorable":
			ignRaw = v
		case "sourceEventSeqs":
			ev.HasSourceSeqs = true
			ev.SourceSeqsRaw = v
		case "surfaceOp":
			ev.SurfaceOp = v
		default:
			if msg == "" {
				msg = fmt.Sprintf("unexpected envelope key %q", key)
			}
		}
		return nil
	})
	bad := func(format string, args ...any) *Problem {
		return problemf(KindBadEvent, lineNo, offset, format, args...)
	}
	if msg != "" {
		return bad("%s", msg)
	}
	t, ok := jsonString(typeRaw)
	if !ok || t == "" {
		return bad(`"type" must be a non-empty string, got %s`, jsonKind(typeRaw))
	}
	ev.Type = t
	if seqRaw == nil {
		return bad(`%s event has no "seq"`, t)
	}
	if ev.Seq, ok = nonNegInt(seqRaw); !ok {
		return bad(`%s event "seq" must be a non-negative safe integer, got %s`, t, truncate(seqRaw, 30))
	}
	if timeRaw == nil {
		return bad(`%s event (seq %d) has no "time"`, t, ev.Seq)
	}
	if ev.Time, _, ok = safeInt(timeRaw); !ok {
		return bad(`%s event (seq %d) "time" must be a safe integer (epoch ms), got %s`, t, ev.Seq, truncate(timeRaw, 30))
	}
	if ev.Data == nil {
		return bad(`%s event (seq %d) has no "data"`, t, ev.Seq)
	}
	if ignRaw != nil {
		if string(ignRaw) != "true" {
			return bad(`%s event (seq %d) "ignorable" must be exactly true when present, got %s`, t, ev.Seq, truncate(ignRaw, 30))
		}
		ev.Ignorable = true
	}
	surface := IsSurfaceType(t)
	if !surface && ev.HasSourceSeqs {
		return problemf(KindBadSourceSeqs, lineNo, offset,
			"%s event (seq %d) is log-only and may not carry sourceEventSeqs (only user/message, assistant/message and tool/result do)", t, ev.Seq)
	}
	if !surface && ev.SurfaceOp != nil {
		return problemf(KindBadSurfaceOp, lineNo, offset,
			"%s event (seq %d) is log-only and may not carry a surfaceOp (only user/message, assistant/message and tool/result do)", t, ev.Seq)
	}
	if ev.SurfaceOp != nil {
		if err := checkSurfaceOp(ev.SurfaceOp); err != "" {
			return problemf(KindBadSurfaceOp, lineNo, offset, "%s event (seq %d): %s", t, ev.Seq, err)
		}
	}
	if ev.HasSourceSeqs {
		seqs, err := DecodeSeqRanges(ev.SourceSeqsRaw, ev.Seq)
		if err != nil {
			return problemf(KindBadSourceSeqs, lineNo, offset, "%s event (seq %d): %v", t, ev.Seq, err)
		}
		if p := checkSourceSeqs(seqs, &ev); p != "" {
			return problemf(KindBadSourceSeqs, lineNo, offset, "%s event (seq %d): %s", t, ev.Seq, p)
		}
		ev.SourceEventSeqs = seqs
	}
	d.events = append(d.events, ev)
	return nil
}

// checkSurfaceOp validates the shape of a surfaceOp: "append" or exactly
// {"op":"replace","start":S,"end":E}.
func checkSurfaceOp(v []byte) string {
	if s, ok := jsonString(v); ok {
		if s == "append" {
			return ""
		}
		return fmt.Sprintf(`surfaceOp %q is neither "append" nor a replace object`, s)
	}
	if jsonKind(v) != "an object" {
		return fmt.Sprintf("surfaceOp must be \"append\" or an object, got %s", jsonKind(v))
	}
	var op string
	keys := 0
	var msg string
	_ = eachMember(v, func(k, val []byte) error {
		keys++
		switch string(k) {
		case "op":
			op, _ = jsonString(val)
		case "start", "end":
			if _, ok := nonNegInt(val); !ok && msg == "" {
				msg = fmt.Sprintf("surfaceOp.%s must be a seq, got %s", k, truncate(val, 30))
			}
		default:
			if msg == "" {
				msg = fmt.Sprintf("surfaceOp has unexpected key %q", k)
			}
		}
		return nil
	})
	if msg != "" {
		return msg
	}
	if op != "replace" || keys != 3 {
		return `surfaceOp object must be exactly {"op":"replace","start":S,"end":E}`
	}
	return ""
}

// checkSourceSeqs applies the semantic rules every sourceEventSeqs list obeys:
// unique members, each earlier than the event, and non-empty except on
// assistant/message (an empty provider stream).
func checkSourceSeqs(seqs []int64, ev *Event) string {
	if len(seqs) == 0 && ev.Type != "assistant/message" {
		return "sourceEventSeqs is empty (only assistant/message may cite nothing)"
	}
	var seen map[int64]bool
	if len(seqs) > 16 {
		seen = make(map[int64]bool, len(seqs))
	}
	for i, s := range seqs {
		if s >= ev.Seq {
			return fmt.Sprintf("sourceEventSeqs member %d is not earlier than the event itself", s)
		}
		if seen != nil {
			if seen[s] {
				return fmt.Sprintf("sourceEventSeqs cites seq %d twice", s)
			}
			seen[s] = true
			continue
		}
		for _, o := range seqs[:i] {
			if o == s {
				return fmt.Sprintf("sourceEventSeqs cites seq %d twice", s)
			}
		}
	}
	return ""
}

// LineDecoder decodes single stored storage lines, for re-reading archived records
// without their file. The zero value is ready; it reuses buffers between calls, so a
// Record is valid until the next Decode.
type LineDecoder struct{ rd recordDecoder }

// Decode validates one storage line and expands it into events.
func (d *LineDecoder) Decode(line []byte, lineNo int64) (*Record, *Problem) {
	rec, p := d.rd.decode(line, lineNo, -1)
	if rec != nil {
		rec.Frame = -1
	}
	return rec, p
}
