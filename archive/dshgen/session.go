package dshgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/logbook/logbook/archive/internal/jsonw"
)

// nodeKind classifies a surface node.
type nodeKind uint8

const (
	nodeUser nodeKind = iota
	nodeAssistant
	nodeTool
)

// node is one model-visible surface entry.
type node struct {
	seq  int64
	kind nodeKind
}

// surfaceOp is the surfaceOp of a surface event: append, or replace [start, end].
type surfaceOp struct {
	replace    bool
	start, end int64
}

// surfaceRec records one surface mutation so forks can rebuild the surface.
type surfaceRec struct {
	seq  int64
	kind nodeKind
	op   surfaceOp
}

// toolNode remembers what a prune replacement must repeat from a tool/result.
type toolNode struct {
	turn, step       int64
	callID, msgID    string
	isErr            bool
	errName, errCode string
	durMs            int64
	pruned           bool
}

// Session writes one dsh session log event by event. Create it with New (in memory,
// finished with Log) or through WriteCorpus (streamed to disk). A Session is not safe
// for concurrent use.
type Session struct {
	o   Options
	rng *rand.Rand
	txt textGen
	snk sink
	mem *memSink // non-nil for in-memory sessions

	seq int64
	now int64
	lb  []byte

	turn      int64 // last turn number started
	openTurn  bool
	surface   []node
	tools     map[int64]toolNode
	batchLeft int

	provider, model string
	requested       bool
	chunkSeqs       []int64
	dts             []int64
	firstReason     string // request/header reason of the first request
	scheduleN       int
	schedMs         map[string]int64
	goalID          string
	seedLength      int64              // -1 when unseeded
	toolsEver       map[int64]toolNode // memory mode: every tool/result, for forks
	facts           Facts
	surfaceLog      []surfaceRec // memory mode only
	turnStarts      []turnRec    // memory mode only
	done            bool
}

// turnRec records where a turn started (memory mode, for forks).
type turnRec struct {
	seq, turn int64
}

// New starts an in-memory session and writes its header line. Zero Options fields take
// their defaults; o.ID defaults to "session-<uuid>" derived from o.Seed.
func New(o Options) *Session {
	mem := &memSink{}
	s := newSession(o, mem)
	s.mem = mem
	s.writeHeader(-1)
	return s
}

// newSession builds a session writing to snk without emitting anything.
func newSession(o Options, snk sink) *Session {
	o = o.withDefaults()
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9E3779B97F4A7C15))
	s := &Session{
		o:           o,
		rng:         rng,
		txt:         textGen{rng: rng, ascii: o.ASCII},
		snk:         snk,
		tools:       map[int64]toolNode{},
		lb:          make([]byte, 0, 4096),
		seedLength:  -1,
		firstReason: "initial",
	}
	if s.o.ID == "" {
		s.o.ID = "session-" + s.txt.uuid()
	}
	s.now = o.CreatedAt + 100 + int64(rng.IntN(100))
	s.provider = providers[rng.IntN(len(providers))]
	s.model = models[rng.IntN(len(models))]
	s.newBatch()
	return s
}

// ID returns the session id written in the header.
func (s *Session) ID() string { return s.o.ID }

// NextSeq returns the seq the next event will get (= logical events so far).
func (s *Session) NextSeq() int64 { return s.seq }

// Now returns the session clock (epoch ms) used for the next event.
func (s *Session) Now() int64 { return s.now }

// Wait advances the session clock by ms milliseconds.
func (s *Session) Wait(ms int64) { s.now += ms }

// Bytes returns the logical (decompressed JSONL) size written so far.
func (s *Session) Bytes() int64 { return s.snk.logicalBytes() }

// Surface returns a copy of the current surface (model-visible node seqs in order).
func (s *Session) Surface() []int64 {
	out := make([]int64, len(s.surface))
	for i, n := range s.surface {
		out[i] = n.seq
	}
	return out
}

// Flush ends the current append batch (the next record starts a new zstd frame).
func (s *Session) Flush() {
	s.snk.endBatch()
	s.newBatch()
}

// newBatch picks the size of the next append batch.
func (s *Session) newBatch() {
	if s.o.BatchLines > 0 {
		s.batchLeft = s.o.BatchLines
	} else {
		s.batchLeft = 1 + s.rng.IntN(48)
	}
}

// writeHeader writes the physical header line; seedLength < 0 omits it.
func (s *Session) writeHeader(seedLength int64) {
	h := obj{{"type", "session"}, {"version", 0}, {"id", s.o.ID}, {"createdAt", s.o.CreatedAt}}
	if s.o.Cwd != "" {
		h = append(h, kv{"cwd", s.o.Cwd})
	}
	if s.o.ParentSession != "" {
		h = append(h, kv{"parentSession", s.o.ParentSession})
	}
	if seedLength >= 0 {
		h = append(h, kv{"seedLength", seedLength})
	}
	if s.o.Subagent {
		h = append(h, kv{"origin", "subagent"})
	}
	h = append(h, kv{"delegationDepth", s.o.DelegationDepth})
	if s.o.AgentPreset != "" {
		h = append(h, kv{"agentPreset", s.o.AgentPreset})
	}
	s.snk.writeHeader(appendValue(s.lb[:0], h))
}

// record hands one finished line to the sink and closes the batch when it is full.
func (s *Session) record(line []byte, firstSeq int64, n int) {
	if s.done {
		panic("dshgen: write to a finished session")
	}
	s.snk.writeRecord(line, firstSeq, n)
	s.batchLeft--
	if s.batchLeft <= 0 {
		s.Flush()
	}
}

// tick advances the clock by a small random amount between events.
func (s *Session) tick() {
	if s.rng.IntN(3) == 0 {
		s.now += int64(s.rng.IntN(3))
	}
}

// begin starts an event line in s.lb up to and including `"data":` and returns its seq.
func (s *Session) begin(typ string) int64 {
	s.tick()
	b := append(s.lb[:0], `{"type":`...)
	b = jsonw.AppendString(b, typ)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, s.seq, 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, s.now, 10)
	b = append(b, `,"data":`...)
	s.lb = b
	return s.seq
}

// commit closes a log-only event begun with begin.
func (s *Session) commit() {
	s.lb = append(s.lb, '}')
	s.record(s.lb, s.seq, 1)
	s.seq++
}

// commitSurface closes a surface event with its sourceEventSeqs (omitted when src is
// nil) and surfaceOp, and applies the op to the surface.
func (s *Session) commitSurface(src []int64, kind nodeKind, op surfaceOp) {
	if src != nil {
		s.lb = append(s.lb, `,"sourceEventSeqs":`...)
		s.lb = appendSeqs(s.lb, src, s.o.SeqEncoding)
	}
	if op.replace {
		s.lb = append(s.lb, `,"surfaceOp":{"op":"replace","start":`...)
		s.lb = strconv.AppendInt(s.lb, op.start, 10)
		s.lb = append(s.lb, `,"end":`...)
		s.lb = strconv.AppendInt(s.lb, op.end, 10)
		s.lb = append(s.lb, '}')
	} else {
		s.lb = append(s.lb, `,"surfaceOp":"append"`...)
	}
	seq := s.seq
	s.commit()
	s.applySurface(seq, kind, op)
	if s.mem != nil {
		s.surfaceLog = append(s.surfaceLog, surfaceRec{seq: seq, kind: kind, op: op})
	}
}

// applySurface mutates the surface list for one surface event.
func (s *Session) applySurface(seq int64, kind nodeKind, op surfaceOp) {
	if !op.replace {
		s.surface = append(s.surface, node{seq: seq, kind: kind})
		return
	}
	i, j := s.surfaceIndex(op.start), s.surfaceIndex(op.end)
	if i < 0 || j < 0 || i > j {
		panic(fmt.Sprintf("dshgen: replace %d..%d is not a surface span", op.start, op.end))
	}
	for _, n := range s.surface[i : j+1] {
		delete(s.tools, n.seq)
	}
	s.surface[i] = node{seq: seq, kind: kind}
	s.surface = append(s.surface[:i+1], s.surface[j+1:]...)
}

// surfaceIndex returns the position of seq on the surface, or -1.
func (s *Session) surfaceIndex(seq int64) int {
	for i := len(s.surface) - 1; i >= 0; i-- {
		if s.surface[i].seq == seq {
			return i
		}
	}
	return -1
}

// event writes a log-only event whose data is the ordered object data.
func (s *Session) event(typ string, data any) int64 {
	seq := s.begin(typ)
	s.lb = appendValue(s.lb, data)
	s.commit()
	return seq
}

// Event writes a log-only event with pre-encoded JSON data and returns its seq.
// It is the escape hatch for event types the builder has no method for.
func (s *Session) Event(typ string, data []byte) int64 {
	return s.event(typ, rawJSON(data))
}

// IgnorableEvent writes an event carrying "ignorable":true (e.g. an unknown type).
func (s *Session) IgnorableEvent(typ string, data []byte) int64 {
	seq := s.begin(typ)
	s.lb = append(s.lb, data...)
	s.lb = append(s.lb, `,"ignorable":true`...)
	s.commit()
	return seq
}

// EndSeed writes a session/end-seed marker ({} data).
func (s *Session) EndSeed() int64 {
	seq := s.event("session/end-seed", rawJSON("{}"))
	s.facts.EndSeeds = append(s.facts.EndSeeds, seq)
	return seq
}

// Log flushes the last batch and returns the finished in-memory log. Further writes
// to the session panic.
func (s *Session) Log() *Log {
	if s.mem == nil {
		panic("dshgen: Log called on a streaming session")
	}
	s.finish()
	return newLog(s)
}

// finish closes the last batch once.
func (s *Session) finish() {
	if s.done {
		return
	}
	s.snk.endBatch()
	s.done = true
}

// rememberTool records a tool/result surface node for later prunes (and forks).
func (s *Session) rememberTool(seq int64, tn toolNode) {
	s.tools[seq] = tn
	if s.mem != nil {
		if s.toolsEver == nil {
			s.toolsEver = map[int64]toolNode{}
		}
		s.toolsEver[seq] = tn
	}
}
