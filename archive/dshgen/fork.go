package dshgen

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// childDefaults fills the options every child of parent shares.
func childDefaults(parent *Log, o Options, bareID bool) Options {
	o.ParentSession = parent.id
	if o.Cwd == "" {
		o.Cwd = parent.cwd
	}
	if o.Subagent {
		o.DelegationDepth = parent.depth + 1
	}
	if o.CreatedAt == 0 {
		o.CreatedAt = parent.lastTime + 60_000
	}
	if o.Turns == 0 {
		o.Turns = 2
	}
	if o.ID == "" {
		h := fnv.New64a()
		h.Write([]byte(parent.id))
		g := textGen{rng: rand.New(rand.NewPCG(o.Seed, h.Sum64()))}
		o.ID = g.uuid()
		if !bareID {
			o.ID = "session-" + o.ID
		}
	}
	return o
}

// Fork returns a seeded child of parent: header parentSession and seedLength = atSeq,
// the parent's events [0, atSeq) copied line for line (a packed row cut by atSeq is
// re-encoded with the writer rule), a session/end-seed at atSeq, then o.Turns (default
// 2) turns of its own continuing the parent's turn numbering. With o.Subagent the child
// is a fork-mode subagent (origin "subagent", delegationDepth parent+1, descriptor
// events). Zero o.ID/Cwd/CreatedAt are derived from the parent.
func Fork(parent *Log, atSeq int64, o Options) (*Log, error) {
	s, err := ForkSession(parent, atSeq, o)
	if err != nil {
		return nil, err
	}
	s.playRandomTurns(s.o.Turns)
	return s.Log(), nil
}

// ForkSession is Fork without the child's own turns: the caller scripts them on
// the returned session and calls Log.
func ForkSession(parent *Log, atSeq int64, o Options) (*Session, error) {
	if atSeq < 0 || atSeq > parent.events {
		return nil, fmt.Errorf("dshgen: fork point %d outside parent events [0, %d]", atSeq, parent.events)
	}
	o = childDefaults(parent, o, o.Subagent)
	mem := &memSink{}
	s := newSession(o, mem)
	s.mem = mem
	s.seedLength = atSeq
	s.firstReason = "resume"
	s.writeHeader(atSeq)
	if err := s.copyPrefix(parent, atSeq); err != nil {
		return nil, err
	}
	s.now = max(s.now, o.CreatedAt+100)
	s.EndSeed()
	if o.Subagent {
		s.Preamble()
	}
	return s, nil
}

// SubagentOf returns an unseeded subagent child of parent: origin "subagent",
// delegationDepth parent+1, parentSession, the parent's cwd, a bare-UUID id,
// subagent/descriptor and subagent/model-selection-policy, then o.Turns (default 2)
// turns.
func SubagentOf(parent *Log, o Options) *Log {
	s := SubagentSession(parent, o)
	s.playRandomTurns(s.o.Turns)
	return s.Log()
}

// SubagentSession is SubagentOf without the child's turns: the caller scripts
// them on the returned session and calls Log.
func SubagentSession(parent *Log, o Options) *Session {
	o.Subagent = true
	if o.CreatedAt == 0 {
		o.CreatedAt = parent.lastTime + 1000
	}
	o = childDefaults(parent, o, true)
	s := New(o)
	s.Preamble()
	return s
}

// playRandomTurns writes n unscripted turns.
func (s *Session) playRandomTurns(n int) {
	for range n {
		pt := s.randomTurn()
		s.betweenTurns(pt.before)
		s.playTurn(pt.in, pt.end)
	}
}

// copyPrefix copies parent records holding seqs [0, atSeq) and restores the state the
// child's own events build on (surface, tool nodes, turn numbering, schedule ids).
func (s *Session) copyPrefix(parent *Log, atSeq int64) error {
	pm := parent.m
	b := 0
	for i, line := range pm.lines {
		first, n := pm.lineSeq[i], int64(pm.lineN[i])
		if first >= atSeq {
			break
		}
		if first+n <= atSeq {
			s.snk.writeRecord(line, first, int(n))
		} else if err := s.splitRow(line, atSeq-first); err != nil {
			return err
		}
		for b < len(pm.batchEnds) && pm.batchEnds[b] <= i+1 {
			if pm.batchEnds[b] == i+1 {
				s.snk.endBatch()
			}
			b++
		}
	}
	s.Flush()
	s.seq = atSeq
	for _, r := range parent.surfaceLog {
		if r.seq >= atSeq {
			break
		}
		s.applySurface(r.seq, r.kind, r.op)
	}
	for _, n := range s.surface {
		if n.kind == nodeTool {
			s.rememberTool(n.seq, parent.tools[n.seq])
		}
	}
	for _, t := range parent.turnStarts {
		if t.seq < atSeq {
			s.turn = t.turn
		}
	}
	s.scheduleN = parent.schedules
	return nil
}

// packedRowJSON is the decoded form of a packed chunk row.
type packedRowJSON struct {
	Type  string `json:"type"`
	Seq0  int64  `json:"seq0"`
	Time0 int64  `json:"time0"`
	Data  struct {
		Turn  int64    `json:"turn"`
		Step  int64    `json:"step"`
		Index int64    `json:"index"`
		Dt    []int64  `json:"dt"`
		Texts []string `json:"texts"`
		ID    string   `json:"id"`
		Name  string   `json:"name"`
		Args  []string `json:"args"`
	} `json:"data"`
}

// splitRow writes the first k members of a packed row: as a shorter row when k >= 3,
// else as loose assistant/chunk events (the writer never packs runs shorter than 3).
func (s *Session) splitRow(line []byte, k int64) error {
	var row packedRowJSON
	if err := json.Unmarshal(line, &row); err != nil {
		return fmt.Errorf("dshgen: split packed row at fork point: %w", err)
	}
	kind, texts := "text", row.Data.Texts
	switch row.Type {
	case "reasoning-chunks":
		kind = "reasoning"
	case "tool-call-chunks":
		kind, texts = "tool-call", row.Data.Args
	}
	pieces := make([]string, k)
	for i := range pieces {
		pieces[i] = escapeString(texts[i])
	}
	d := row.Data
	if k >= 3 {
		l := appendRow(nil, kind, row.Seq0, row.Time0, d.Turn, d.Step, d.Index, d.Dt[:k-1], d.ID, d.Name, pieces)
		s.snk.writeRecord(l, row.Seq0, int(k))
		return nil
	}
	t := row.Time0
	for i, p := range pieces {
		if i > 0 {
			t += d.Dt[i-1]
		}
		s.snk.writeRecord(appendLooseDelta(nil, kind, row.Seq0+int64(i), t, d.Turn, d.Step, d.Index, d.ID, d.Name, p), row.Seq0+int64(i), 1)
	}
	return nil
}
