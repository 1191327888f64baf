package dshgen

import (
	"strconv"

	"github.com/logbook/logbook/archive/internal/jsonw"
)

// Block is one assistant content block to stream: reasoning, text or a tool call.
type Block struct {
	kind   string   // "reasoning", "text" or "tool-call"
	pieces []string // JSON-escaped stream deltas; their concatenation is the full text
	name   string   // tool name
	id     string   // tool call id; generated when empty
}

// Reasoning returns a reasoning block streamed as reasoning-delta chunks.
func Reasoning(text string) Block { return Block{kind: "reasoning", pieces: fixedPieces(text)} }

// Text returns a text block streamed as text-delta chunks.
func Text(text string) Block { return Block{kind: "text", pieces: fixedPieces(text)} }

// ToolCall returns a tool-call block; args is the raw arguments string (usually JSON).
func ToolCall(name, args string) Block {
	return Block{kind: "tool-call", name: name, pieces: fixedPieces(args)}
}

// WithID returns a copy of a tool-call block with a fixed call id.
func (b Block) WithID(id string) Block {
	b.id = id
	return b
}

// fixedPieces cuts s into escaped deltas of up to 3 runes.
func fixedPieces(s string) []string {
	var out []string
	for len(s) > 0 {
		p := prefixRunes(s, 3)
		out = append(out, escapeString(p))
		s = s[len(p):]
	}
	return out
}

// Call is a tool call advertised by an assistant message.
type Call struct {
	ID   string
	Name string
	args string // JSON-escaped arguments
}

// genBlock returns a random reasoning or text block of about n tokens.
func (s *Session) genBlock(kind string, n int) Block {
	return Block{kind: kind, pieces: s.txt.pieces(nil, s.txt.around(n))}
}

// genToolCall returns a random tool-call block.
func (s *Session) genToolCall(name string) Block {
	if name == "" {
		name = toolNames[s.rng.IntN(len(toolNames)-2)] // todo_write/schedule only on purpose
	}
	return Block{kind: "tool-call", name: name, id: s.txt.callID(), pieces: splitPieces(s.rng, s.toolArgs(name))}
}

// toolArgs returns a plausible raw arguments string for a tool.
func (s *Session) toolArgs(name string) string {
	file := "src/" + s.txt.sentence(1+s.rng.IntN(2)) + ".go"
	switch name {
	case "bash":
		return `{"command": "go test ./... -run ` + strconv.Itoa(s.rng.IntN(1000)) + `", "description": "` +
			escapeString(s.txt.sentence(6)) + `"}`
	case "grep":
		return `{"pattern": "` + escapeString(s.txt.sentence(2)) + `", "path": "."}`
	case "todo_write":
		return `{"todos": [{"content": "` + escapeString(s.txt.sentence(5)) + `", "status": "in_progress"}]}`
	case "schedule":
		return `{"action": "create", "prompt": "` + escapeString(s.txt.sentence(5)) + `"}`
	case "write", "edit":
		return `{"file_path": "` + escapeString(file) + `", "content": "` + escapeString(s.txt.sentence(30)) + `"}`
	default:
		return `{"file_path": "` + escapeString(file) + `", "limit": ` + strconv.Itoa(100+s.rng.IntN(900)) + `}`
	}
}

// dt returns a realistic gap between streamed deltas, occasionally negative.
func (s *Session) dt() int64 {
	if s.o.Families.Has(FamilyNegativeDT) && s.rng.IntN(150) == 0 {
		return -int64(1 + s.rng.IntN(40))
	}
	switch r := s.rng.IntN(100); {
	case r < 45:
		return 0
	case r < 65:
		return 1
	case r < 93:
		return 20 + int64(s.rng.IntN(8))
	default:
		return 30 + int64(s.rng.IntN(175))
	}
}

// chunkPrefix starts an assistant/chunk event and its data up to `"chunk":`.
func (s *Session) chunkPrefix(turn, step int64) int64 {
	seq := s.begin("assistant/chunk")
	s.lb = append(s.lb, `{"turn":`...)
	s.lb = strconv.AppendInt(s.lb, turn, 10)
	s.lb = append(s.lb, `,"step":`...)
	s.lb = strconv.AppendInt(s.lb, step, 10)
	s.lb = append(s.lb, `,"chunk":`...)
	return seq
}

// chunkDone closes an assistant/chunk event and records its seq for the message.
func (s *Session) chunkDone() {
	s.chunkSeqs = append(s.chunkSeqs, s.seq)
	s.lb = append(s.lb, '}')
	s.commit()
}

// stream writes the chunk events of one model attempt: block-start and deltas per
// block, then every block-end, usage and finish. Chunk seqs are appended to s.chunkSeqs.
// finish is the raw FinishReason JSON. If partial, deltas stop early and no block-end
// is written (a failed attempt). beforeUsage, if set, runs after the block-ends.
func (s *Session) stream(turn, step int64, blocks []Block, finish string, partial bool, beforeUsage func()) {
	for i := range blocks {
		b := &blocks[i]
		if b.kind == "tool-call" && b.id == "" {
			b.id = s.txt.callID()
		}
		s.chunkPrefix(turn, step)
		s.lb = append(s.lb, `{"type":"block-start","index":`...)
		s.lb = strconv.AppendInt(s.lb, int64(i), 10)
		s.lb = append(s.lb, `,"blockType":"`...)
		s.lb = append(s.lb, b.kind...)
		s.lb = append(s.lb, `"}`...)
		s.chunkDone()
		pieces := b.pieces
		if partial {
			pieces = pieces[:len(pieces)/2]
		}
		s.deltaRun(turn, step, i, b, pieces)
	}
	if !partial {
		for i := range blocks {
			s.chunkPrefix(turn, step)
			s.lb = append(s.lb, `{"type":"block-end","index":`...)
			s.lb = strconv.AppendInt(s.lb, int64(i), 10)
			s.lb = append(s.lb, `,"block":`...)
			s.lb = s.appendBlock(s.lb, &blocks[i])
			s.lb = append(s.lb, '}')
			s.chunkDone()
		}
		if beforeUsage != nil {
			beforeUsage()
		}
		s.chunkPrefix(turn, step)
		s.lb = append(s.lb, `{"type":"usage","usage":`...)
		s.lb = s.appendUsage(s.lb)
		s.lb = append(s.lb, '}')
		s.chunkDone()
	}
	s.chunkPrefix(turn, step)
	s.lb = append(s.lb, `{"type":"finish","reason":`...)
	s.lb = append(s.lb, finish...)
	s.lb = append(s.lb, '}')
	s.chunkDone()
}

// appendUsage appends a TokenUsage object.
func (s *Session) appendUsage(b []byte) []byte {
	b = append(b, `{"inputTokens":`...)
	b = strconv.AppendInt(b, int64(100+s.rng.IntN(20000)), 10)
	b = append(b, `,"outputTokens":`...)
	b = strconv.AppendInt(b, int64(10+s.rng.IntN(2000)), 10)
	b = append(b, `,"cacheReadTokens":`...)
	b = strconv.AppendInt(b, int64(s.rng.IntN(50000)), 10)
	b = append(b, `,"reasoningTokens":`...)
	b = strconv.AppendInt(b, int64(s.rng.IntN(500)), 10)
	return append(b, '}')
}

// appendBlock appends the full content block for b.
func (s *Session) appendBlock(b []byte, blk *Block) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, blk.kind...)
	if blk.kind == "tool-call" {
		b = append(b, `","id":`...)
		b = jsonw.AppendString(b, blk.id)
		b = append(b, `,"name":`...)
		b = jsonw.AppendString(b, blk.name)
		b = append(b, `,"arguments":"`...)
	} else {
		b = append(b, `","text":"`...)
	}
	for _, p := range blk.pieces {
		b = append(b, p...)
	}
	return append(b, '"', '}')
}

// deltaRun writes the deltas of one block, cut into segments at flush boundaries the
// way dsh's 200 ms write-behind batches cut them: a segment of >= 3 members becomes one
// packed row, shorter segments stay loose assistant/chunk events, and consecutive
// segments are always separated by a batch flush (the writer packs per batch).
func (s *Session) deltaRun(turn, step int64, index int, b *Block, pieces []string) {
	for len(pieces) > 0 {
		n := len(pieces)
		if !s.o.NoPack {
			if s.o.Families.Has(FamilySplitRuns) {
				if s.rng.IntN(6) == 0 {
					n = 1 + s.rng.IntN(2) // a short loose segment before a flush
				} else if m := 8 + s.rng.IntN(57); m < n {
					n = m
				}
			}
			n = min(n, len(pieces))
		}
		seg := pieces[:n]
		pieces = pieces[n:]
		if !s.o.NoPack && len(seg) >= 3 {
			s.packedRow(turn, step, index, b, seg)
		} else {
			for _, p := range seg {
				s.looseDelta(turn, step, index, b, p)
				if d := s.dt(); d > 0 && len(seg) > 1 {
					s.now += d
				}
			}
		}
		if len(pieces) > 0 && !s.o.NoPack {
			s.Flush()
		}
	}
}

// looseDelta writes one delta as an assistant/chunk event.
func (s *Session) looseDelta(turn, step int64, index int, b *Block, p string) {
	s.tick()
	s.lb = appendLooseDelta(s.lb[:0], b.kind, s.seq, s.now, turn, step, int64(index), b.id, b.name, p)
	s.chunkSeqs = append(s.chunkSeqs, s.seq)
	s.record(s.lb, s.seq, 1)
	s.seq++
}

// packedRow writes seg as one text-chunks / reasoning-chunks / tool-call-chunks row.
func (s *Session) packedRow(turn, step int64, index int, b *Block, seg []string) {
	s.tick()
	seq0, time0 := s.seq, s.now
	dts := s.dts[:0]
	t, maxT := time0, time0
	for k := 1; k < len(seg); k++ {
		d := s.dt()
		dts = append(dts, d)
		t += d
		maxT = max(maxT, t)
	}
	s.dts = dts
	s.lb = appendRow(s.lb[:0], b.kind, seq0, time0, turn, step, int64(index), dts, b.id, b.name, seg)
	for k := range seg {
		s.chunkSeqs = append(s.chunkSeqs, seq0+int64(k))
	}
	s.seq += int64(len(seg))
	s.now = maxT
	s.record(s.lb, seq0, len(seg))
}

// rowTag returns the packed-row tag for a block kind.
func rowTag(kind string) string {
	switch kind {
	case "reasoning":
		return "reasoning-chunks"
	case "tool-call":
		return "tool-call-chunks"
	}
	return "text-chunks"
}

// appendRow appends a packed chunk row; pieces are JSON-escaped member texts. Tool-call
// rows (kind "tool-call") carry id and name.
func appendRow(l []byte, kind string, seq0, time0, turn, step, index int64, dts []int64, id, name string, pieces []string) []byte {
	l = append(l, `{"type":"`...)
	l = append(l, rowTag(kind)...)
	l = append(l, `","seq0":`...)
	l = strconv.AppendInt(l, seq0, 10)
	l = append(l, `,"time0":`...)
	l = strconv.AppendInt(l, time0, 10)
	l = append(l, `,"data":{"turn":`...)
	l = strconv.AppendInt(l, turn, 10)
	l = append(l, `,"step":`...)
	l = strconv.AppendInt(l, step, 10)
	l = append(l, `,"index":`...)
	l = strconv.AppendInt(l, index, 10)
	l = append(l, `,"dt":`...)
	l = appendValue(l, dts)
	if kind == "tool-call" {
		l = append(l, `,"id":`...)
		l = jsonw.AppendString(l, id)
		l = append(l, `,"name":`...)
		l = jsonw.AppendString(l, name)
		l = append(l, `,"args":[`...)
	} else {
		l = append(l, `,"texts":[`...)
	}
	for k, p := range pieces {
		if k > 0 {
			l = append(l, ',')
		}
		l = append(l, '"')
		l = append(l, p...)
		l = append(l, '"')
	}
	return append(l, ']', '}', '}')
}

// appendLooseDelta appends one assistant/chunk delta event with explicit coordinates.
func appendLooseDelta(l []byte, kind string, seq, time, turn, step, index int64, id, name, piece string) []byte {
	l = append(l, `{"type":"assistant/chunk","seq":`...)
	l = strconv.AppendInt(l, seq, 10)
	l = append(l, `,"time":`...)
	l = strconv.AppendInt(l, time, 10)
	l = append(l, `,"data":{"turn":`...)
	l = strconv.AppendInt(l, turn, 10)
	l = append(l, `,"step":`...)
	l = strconv.AppendInt(l, step, 10)
	l = append(l, `,"chunk":`...)
	if kind == "tool-call" {
		l = append(l, `{"type":"tool-call-delta","index":`...)
		l = strconv.AppendInt(l, index, 10)
		l = append(l, `,"id":`...)
		l = jsonw.AppendString(l, id)
		l = append(l, `,"name":`...)
		l = jsonw.AppendString(l, name)
		l = append(l, `,"argumentsDelta":"`...)
	} else {
		l = append(l, `{"type":"`...)
		l = append(l, kind...)
		l = append(l, `-delta","index":`...)
		l = strconv.AppendInt(l, index, 10)
		l = append(l, `,"text":"`...)
	}
	l = append(l, piece...)
	return append(l, `"}}}`...)
}
