package dsh

import (
	"encoding/json"
	"fmt"
)

// recordDecoder turns storage lines into Records. By default it reuses its buffers
// between lines, so a Record is only valid until the next decode; a detached decoder
// hands out fresh memory for every Record instead (see cut).
type recordDecoder struct {
	detached bool
	compact  bool // packed rows get a PackedRow instead of their events

	rec     Record
	events  []Event
	chunks  []Chunk
	members []member
	texts   [][]byte
	dts     []int64

	// Slabs of a detached decoder: records, events and chunks are cut from larger
	// allocations, which the GC frees once no record uses them. A detached record
	// would otherwise cost three or four allocations, a large share of its decoding.
	recSlab   []Record
	eventSlab []Event
	chunkSlab []Chunk
	rowSlab   []PackedRow
	// fresh makes the next record's items allocations of their own, not cuts of a
	// slab: set for a long line. A slab is kept alive by any record cut from it,
	// and each of its records keeps its line alive, so 512 long lines sharing one
	// slab would be held until the last of them is let go.
	fresh bool
}

// member is one top-level member of a JSON object: its key (unescaped) and its raw
// value.
type member struct{ key, val []byte }

// slabSize is how many items one slab allocation holds at most; the first slab
// of a reader holds slabFirst, and each next one twice as many as the last, so a
// small file's few records do not cost four slabs of 512.
const (
	slabSize  = 512
	slabFirst = 16
)

// cut returns n fresh items of *slab, starting a new slab when it is used up; with
// own set, n items of their own instead.
func cut[T any](slab *[]T, n int, own bool) []T {
	if own {
		return make([]T, n)
	}
	if cap(*slab)-len(*slab) < n {
		*slab = make([]T, 0, max(min(slabSize, 2*cap(*slab)), slabFirst, n))
	}
	i := len(*slab)
	*slab = (*slab)[:i+n]
	return (*slab)[i : i+n : i+n]
}

// newRecord returns the Record to fill for the current line.
func (d *recordDecoder) newRecord() *Record {
	if d.detached {
		return &cut(&d.recSlab, 1, d.fresh)[0]
	}
	return &d.rec
}

// newEvents returns room for n events (and n chunks when packed is set).
func (d *recordDecoder) newEvents(n int, packed bool) ([]Event, []Chunk) {
	var chunks []Chunk
	if d.detached {
		if packed {
			chunks = cut(&d.chunkSlab, n, d.fresh)
		}
		return cut(&d.eventSlab, n, d.fresh), chunks
	}
	if cap(d.events) < n {
		d.events = make([]Event, n)
	}
	if packed {
		if cap(d.chunks) < n {
			d.chunks = make([]Chunk, n)
		}
		chunks = d.chunks[:n]
	}
	return d.events[:n], chunks
}

// problemf builds a record-level problem at a line.
func problemf(kind Kind, line, offset int64, format string, args ...any) *Problem {
	return &Problem{Kind: kind, Line: line, Offset: offset,
		Message: fmt.Sprintf("line %d: ", line) + fmt.Sprintf(format, args...)}
}

// decode validates one storage line (without '\n') and expands it into events.
// offset is the physical byte offset reported with problems.
func (d *recordDecoder) decode(line []byte, lineNo, offset int64) (*Record, *Problem) {
	if rec := d.decodePackedFast(line, lineNo); rec != nil {
		return rec, nil
	}
	return d.decodeGeneral(line, lineNo, offset)
}

// decodeGeneral is decode for any line: it validates the whole line and reports
// exactly what is wrong with a bad one.
func (d *recordDecoder) decodeGeneral(line []byte, lineNo, offset int64) (*Record, *Problem) {
	members, valid, object := scanObject(line, d.members[:0])
	d.members = members
	if !valid {
		return nil, problemf(KindBadJSON, lineNo, offset, "not valid JSON: %s", truncate(line, 80))
	}
	if !object {
		return nil, problemf(KindBadJSON, lineNo, offset, "expected a JSON object, got %s", jsonKind(line[skipSpace(line, 0):]))
	}
	var typ []byte
	for _, m := range members {
		if string(m.key) == "type" {
			typ = m.val
			break
		}
	}
	switch t, _ := jsonString(typ); t {
	case RowTextChunks, RowReasoningChunks, RowToolCallChunks:
		return d.decodePacked(line, members, t, lineNo, offset)
	}
	return d.decodeEvent(line, members, lineNo, offset)
}

// scanObject validates b as exactly one JSON value (as validJSON does) and, when it
// is an object, appends its top-level members to dst in order. Validating and
// splitting in one pass reads each byte of a line once instead of twice.
func scanObject(b []byte, dst []member) (members []member, valid, object bool) {
	v := validator{b: b}
	v.space()
	if v.i >= len(b) || b[v.i] != '{' {
		return dst, validJSON(b), false
	}
	v.i++
	v.space()
	if v.i < len(b) && b[v.i] == '}' {
		v.i++
		v.space()
		return dst, v.i == len(b), true
	}
	for {
		if v.i >= len(b) || b[v.i] != '"' {
			return dst, false, true
		}
		ks := v.i
		if !v.str() {
			return dst, false, true
		}
		key := b[ks+1 : v.i-1]
		if indexByte(key, '\\') >= 0 {
			// As eachMember does: escaped keys are rare, and encoding/json decodes them
			// exactly as every other key scan in this package sees them.
			var s string
			if json.Unmarshal(b[ks:v.i], &s) != nil {
				return dst, false, true
			}
			key = []byte(s)
		}
		v.space()
		if v.i >= len(b) || b[v.i] != ':' {
			return dst, false, true
		}
		v.i++
		v.space()
		vs := v.i
		if !v.value(1) {
			return dst, false, true
		}
		dst = append(dst, member{key: key, val: b[vs:v.i]})
		v.space()
		if v.i >= len(b) {
			return dst, false, true
		}
		switch b[v.i] {
		case '}':
			v.i++
			v.space()
			return dst, v.i == len(b), true
		case ',':
			v.i++
			v.space()
		default:
			return dst, false, true
		}
	}
}

// decodePacked validates and expands a packed chunk row (§1.2, frozen codec rules).
// A malformed row is an error, never an ordinary event.
func (d *recordDecoder) decodePacked(line []byte, members []member, tag string, lineNo, offset int64) (*Record, *Problem) {
	bad := func(format string, args ...any) (*Record, *Problem) {
		return nil, problemf(KindMalformedPackedRow, lineNo, offset, tag+" row: "+format, args...)
	}
	var seq0, time0 int64
	var data []byte
	seen := map[string]bool{}
	var msg string
	for _, m := range members {
		k, v := m.key, m.val
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
	}
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
	t := time0
	for k := 1; k < n; k++ {
		t += d.dts[k-1]
		if t > maxSafeInt || t < -maxSafeInt {
			return bad("member %d time is not a safe integer", k)
		}
	}
	return d.packedRecord(line, lineNo, tag, seq0, time0, Chunk{Kind: kind, Turn: turn, Step: step, Index: index, ID: id, Name: name, HasName: hasName}), nil
}

// packedRecord builds the Record of a validated packed row whose gaps and member
// texts are in d.dts and d.texts: member k has seq seq0+k, the time after the first
// k gaps, and the chunk fields of proto with its own text.
func (d *recordDecoder) packedRecord(line []byte, lineNo int64, tag string, seq0, time0 int64, proto Chunk) *Record {
	rec := d.newRecord()
	*rec = Record{Line: lineNo, Raw: line, Packed: tag}
	if d.compact {
		row := &cut(&d.rowSlab, 1, d.fresh)[0]
		*row = PackedRow{Seq0: seq0, Count: int64(len(d.texts)), Time0: time0, MaxTime: time0, Chunk: proto}
		t := time0
		for _, gap := range d.dts {
			t += gap
			row.MaxTime = max(row.MaxTime, t)
		}
		rec.Row = row
		return rec
	}
	events, chunks := d.newEvents(len(d.texts), true)
	t := time0
	for k, text := range d.texts {
		if k > 0 {
			t += d.dts[k-1]
		}
		chunks[k] = proto
		chunks[k].TextJSON = text
		events[k] = Event{Seq: seq0 + int64(k), Time: t, Type: "assistant/chunk", Member: k, Chunk: &chunks[k]}
	}
	rec.Events = events
	return rec
}

// decodeEvent validates a plain event envelope (§1.4, checklist step 10-11).
func (d *recordDecoder) decodeEvent(line []byte, members []member, lineNo, offset int64) (*Record, *Problem) {
	var ev Event
	ev.Member = -1
	var msg string
	var seqRaw, timeRaw, typeRaw, ignRaw []byte
	for i, m := range members {
		k, v := m.key, m.val
		key := string(k)
		if msg == "" && seenBefore(members[:i], k) {
			msg = fmt.Sprintf("duplicate key %q", key)
		}
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
	}
	bad := func(format string, args ...any) (*Record, *Problem) {
		return nil, problemf(KindBadEvent, lineNo, offset, format, args...)
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
		return nil, problemf(KindBadSourceSeqs, lineNo, offset,
			"%s event (seq %d) is log-only and may not carry sourceEventSeqs (only user/message, assistant/message and tool/result do)", t, ev.Seq)
	}
	if !surface && ev.SurfaceOp != nil {
		return nil, problemf(KindBadSurfaceOp, lineNo, offset,
			"%s event (seq %d) is log-only and may not carry a surfaceOp (only user/message, assistant/message and tool/result do)", t, ev.Seq)
	}
	if ev.SurfaceOp != nil {
		if err := checkSurfaceOp(ev.SurfaceOp); err != "" {
			return nil, problemf(KindBadSurfaceOp, lineNo, offset, "%s event (seq %d): %s", t, ev.Seq, err)
		}
	}
	if ev.HasSourceSeqs {
		seqs, err := DecodeSeqRanges(ev.SourceSeqsRaw, ev.Seq)
		if err != nil {
			return nil, problemf(KindBadSourceSeqs, lineNo, offset, "%s event (seq %d): %v", t, ev.Seq, err)
		}
		if p := checkSourceSeqs(seqs, &ev); p != "" {
			return nil, problemf(KindBadSourceSeqs, lineNo, offset, "%s event (seq %d): %s", t, ev.Seq, p)
		}
		ev.SourceEventSeqs = seqs
	}
	rec := d.newRecord()
	*rec = Record{Line: lineNo, Raw: line}
	events, _ := d.newEvents(1, false)
	events[0] = ev
	rec.Events = events
	return rec, nil
}

// seenBefore reports whether key is among the keys of earlier members: envelopes
// have a handful of keys, so a scan beats a map.
func seenBefore(earlier []member, key []byte) bool {
	for _, m := range earlier {
		if string(m.key) == string(key) {
			return true
		}
	}
	return false
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
	if increasingBelow(seqs, ev.Seq) {
		return "" // what writers write: unique and earlier, proven in one pass
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

// increasingBelow reports whether seqs is strictly increasing and ends below limit.
func increasingBelow(seqs []int64, limit int64) bool {
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			return false
		}
	}
	return len(seqs) == 0 || seqs[len(seqs)-1] < limit
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
