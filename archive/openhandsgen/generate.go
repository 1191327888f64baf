package openhandsgen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/logbook/logbook/archive/openhands"
)

// entry is one event as it will be written: a clean event, a damaged extra
// or a hole in the numbering.
type entry struct {
	ev   event
	data []byte
	// hole leaves this sequence number unwritten (Gap).
	hole bool
}

var models = []string{"anthropic/claude-sonnet-4-5", "openai/gpt-5", "litellm_proxy/minimax-m2.7", "test-model"}

// Generate writes one conversation under root, at the path its layout uses
// (for example root/<hex>/ for SDK folders, root/v1_conversations/<hex>/
// for app B, root/conversation_<hex>.zip for exports), and returns what it
// wrote.
func Generate(root string, opt Options) (Facts, error) {
	if opt.Turns <= 0 {
		opt.Turns = 3
	}
	for _, m := range opt.Malformations {
		if !Applicable(opt.Layout, m) {
			return Facts{}, fmt.Errorf("openhandsgen: %s does not apply to layout %s", m, opt.Layout)
		}
	}
	f := &Facts{Problems: map[openhands.ProblemKind]int{}, Verdict: openhands.VerdictOK}
	g := &gen{
		r:     rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15)),
		opt:   opt,
		f:     f,
		clock: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(opt.Seed%100000) * time.Minute),
	}
	switch opt.Layout {
	case openhands.LayoutJSONL, openhands.LayoutAppA, openhands.LayoutAppB, openhands.LayoutZip:
		g.nulls = true
	}
	f.Model = models[g.r.IntN(len(models))]
	convID := g.uuid()
	v0 := opt.Layout == openhands.LayoutV0Session || opt.Layout == openhands.LayoutV0Trajectory
	if v0 {
		g.v0()
	} else {
		g.v1()
	}
	f.Events = len(g.events)
	style := g.style()
	entries := make([]entry, len(g.events))
	for i, e := range g.events {
		entries[i] = entry{ev: e, data: encode(e.o, style)}
	}
	entries = g.malform(entries, style, v0)
	w := &writer{g: g, root: root, convID: convID, entries: entries, style: style}
	if err := w.write(); err != nil {
		return Facts{}, err
	}
	g.expect(v0)
	return *f, nil
}

// style is the layout's usual JSON style unless Options.Style says otherwise.
func (g *gen) style() Style {
	if g.opt.Style != nil {
		return *g.opt.Style
	}
	switch g.opt.Layout {
	case openhands.LayoutSDK:
		if g.opt.Legacy {
			return Python
		}
	case openhands.LayoutAppA, openhands.LayoutAppB, openhands.LayoutV0Trajectory:
		return Pretty
	case openhands.LayoutV0Session:
		return Python
	}
	return Compact
}

// malform inserts one damaged extra per malformation, each after the first
// two events and after any event it copies.
func (g *gen) malform(entries []entry, style Style, v0 bool) []entry {
	// insert puts e somewhere after entry after; with inside, never last,
	// since a hole at the end of the numbering is no gap anyone can see.
	insert := func(e entry, after int, inside bool) {
		span := len(entries) - after
		if inside {
			span--
		}
		pos := after + 1 + g.r.IntN(span)
		e.ev.ts = entries[pos-1].ev.ts
		entries = append(entries[:pos], append([]entry{e}, entries[pos:]...)...)
	}
	fresh := func(o obj) entry {
		return entry{ev: event{id: g.uuid(), kind: "x", o: o}, data: encode(o, style)}
	}
	_, ts := g.tick()
	for _, m := range g.opt.Malformations {
		switch m {
		case Gap:
			insert(entry{hole: true, ev: event{id: g.uuid()}}, 1, true)
		case Duplicate:
			q := 1 + g.r.IntN(len(entries)-1)
			for entries[q].hole || entries[q].ev.kind == "x" {
				q--
			}
			insert(entries[q], q, false)
		case Unparseable:
			e := fresh(obj{{"id", g.uuid()}, {"timestamp", ts}, {"source", "agent"}, {"kind", "MessageEvent"}})
			e.data = e.data[:len(e.data)/2]
			// Never last: the newest event file cut short is one still being
			// written (a torn tail), not damage.
			insert(e, 1, true)
		case UnknownKind:
			o := obj{{"id", g.uuid()}, {"timestamp", ts}, {"source", "environment"}, {"detail", g.text(3)}, {"kind", "FutureEvent"}}
			if v0 {
				o = obj{{"id", 100000 + g.r.IntN(1000)}, {"timestamp", ts}, {"source", "agent"}, {"message", "?"}, {"action", "future_action"}}
			}
			e := fresh(o)
			e.ev.id = fmt.Sprint(o.get("id"))
			e.ev.kind = "FutureEvent"
			insert(e, 1, false)
		case MissingID:
			o := obj{{"timestamp", ts}, {"source", "user"}, {"llm_message", obj{{"role", "user"}, {"content", textBlocks("lost")}}}, {"kind", "MessageEvent"}}
			if v0 {
				o = obj{{"timestamp", ts}, {"source", "user"}, {"message", "lost"}, {"action", "message"}}
			}
			insert(fresh(o), 1, false)
		}
	}
	return entries
}

// expect fills in the problems and verdict a reader must report.
func (g *gen) expect(v0 bool) {
	f := g.f
	warn := func(k openhands.ProblemKind) {
		f.Problems[k]++
		f.Verdict = openhands.VerdictRecovered
	}
	if g.opt.Layout == openhands.LayoutV0Session && !slices.Contains(g.opt.Malformations, NoState) {
		f.Problems[openhands.ProblemSkipped]++ // agent_state.pkl
	}
	for _, m := range g.opt.Malformations {
		switch m {
		case Gap:
			warn(openhands.ProblemGap)
		case Duplicate:
			warn(openhands.ProblemDuplicateID)
		case Unparseable:
			warn(openhands.ProblemUnparseable)
		case MissingID:
			warn(openhands.ProblemMissingID)
		case BadState:
			warn(openhands.ProblemStateUnreadable)
		case TornTail:
			warn(openhands.ProblemTornTail)
		case UnknownKind:
			f.Events++
			f.Other++
			if v0 {
				f.Problems[openhands.ProblemUnknownAction]++
			} else {
				f.Problems[openhands.ProblemUnknownKind]++
			}
		}
	}
}

func hex(id string) string { return strings.ReplaceAll(id, "-", "") }
