package dsh

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// MaxWarningsPerKind caps how many warnings of one Kind a Checker keeps; further ones
// are only counted and summarised by one extra problem, so a pathological log cannot
// exhaust memory through its warnings.
const MaxWarningsPerKind = 200

// maxTallies caps the distinct unknown types / legacy shapes tracked per kind.
const maxTallies = 200

// Checker validates the cross-event semantics of one session log (§3 and §6 steps
// 14–17 of the V0 format notes): surface replay, turn/step nesting, tool-call,
// approval, command and retry pairing, compaction brackets, title citations,
// sourceEventSeqs rules, unknown and legacy event types, and the interrupted tail.
// It reports and never rewrites: every finding is a warning.
//
// Feed every logical event once, in seq order, to Observe (packed-row members
// included), then call Finish once. Memory stays bounded apart from the surface and
// the maps of still-open pairs (closed pairs are dropped as soon as they close).
//
// Unknown event types are reported once per type at Finish (KindUnknownEvent) with a
// count, whether or not they are ignorable: dsh itself skips ignorable unknowns, but
// the frozen V0→V1 edge refuses every type outside the closed inventory, so an archive
// should still know they are there; the message says which. Legacy early-V0 types and
// shapes are likewise reported once per shape (KindLegacyEvent).
type Checker struct {
	strictFirstTurn bool  // unseeded header: numbering must start at turn 1
	seeded          bool  // the log starts with an inherited prefix
	seedLength      int64 // its length: the child's own events start here

	surface Surface

	// Turn/step state. turn is the open turn (or the last one opened); step the open
	// step of that turn (or the last one closed). nestGen changes on every transition
	// so that a run of events misplaced in the same way is reported once.
	turn, step         int64
	turnOpen, stepOpen bool
	turnSeq, stepSeq   int64
	sawTurn            bool
	lastTurnEndSeq     int64
	nestGen            int64
	badGen             int64
	badTurn, badStep   int64

	tools      map[string]*toolCall  // tool calls of the current step by callId
	approvals  map[string]openPair   // asked, not yet decided, by id
	commands   map[string]openPair   // run, not yet done, by commandId
	retries    map[retryKey]openPair // scheduled, not yet started
	compaction *openCompaction       // open compaction bracket
	expect     *expectation          // what the next logical event must be
	humanSeqs  map[int64]struct{}    // seqs of human user/messages (title targets)
	tallies    map[tallyKey]*tally   // unknown types and legacy shapes
	tallyOrder []*tally              // tallies in first-seen order
	talliesPer map[Kind]int          // distinct tallies per kind
	counts     map[Kind]int          // warnings per kind, including dropped ones
	out        []Problem             // kept warnings
	scratch    map[int64]struct{}    // reused set for duplicate detection
	lastSeq    int64                 // last observed event
	lastLine   int64                 // its line
	lastType   string                // its type
	observed   bool                  // at least one event seen
	finished   []Problem             // Finish result, so a second call is harmless
	done       bool                  // Finish has run
}

// toolCall is the lifecycle of one advertised tool call within its step.
type toolCall struct {
	name, args string
	advertSeq  int64 // assistant/message that advertised it (-1 if only seen as tool/call)
	started    bool
	callSeq    int64
}

// openPair is the opening half of a pair awaiting its close.
type openPair struct {
	seq, line, turn, step int64
	name                  string
}

// retryKey pairs llm/retry with llm/retry-started.
type retryKey struct {
	id    string
	retry int64
}

// openCompaction is an open compaction/start … compaction/end bracket.
type openCompaction struct {
	id, sourceCommandID string
	turn                *int64 // nil = manual compaction between turns
	seq                 int64
	summarySeq          int64 // 0 until compaction/summary
	crossSeq            int64 // first turn/start or turn/end seen inside the bracket
	crossType           string
}

// expectation is a requirement on the very next logical event.
type expectation struct {
	what         string // "checkpoint" (after compaction/summary) or "prune" (after compaction/prune)
	seq, line    int64  // the event that set it
	compactionID string
	start, end   int64
	met          bool
}

// tallyKey names one unknown type or legacy shape.
type tallyKey struct {
	kind  Kind
	label string
}

// tally counts occurrences of one unknown type or legacy shape.
type tally struct {
	key                   tallyKey
	note                  string
	firstSeq, firstLine   int64
	count, ignorableCount int64
}

// NewChecker returns a Checker for a log with header h (nil is allowed). An unseeded
// header makes the first turn/start required to be turn 1; a seeded or unknown header
// accepts any first turn number, since a fork continues its parent's numbering.
func NewChecker(h *Header) *Checker {
	return &Checker{
		strictFirstTurn: h != nil && !h.IsSeeded,
		seeded:          h != nil && h.IsSeeded,
		seedLength:      seedLengthOf(h),
		lastTurnEndSeq:  -1,
		tools:           make(map[string]*toolCall),
		approvals:       make(map[string]openPair),
		commands:        make(map[string]openPair),
		retries:         make(map[retryKey]openPair),
		humanSeqs:       make(map[int64]struct{}),
		tallies:         make(map[tallyKey]*tally),
		talliesPer:      make(map[Kind]int),
		counts:          make(map[Kind]int),
	}
}

// seedLengthOf reads the inherited prefix length of an optional header.
func seedLengthOf(h *Header) int64 {
	if h == nil {
		return 0
	}
	return h.SeedLength
}

// Surface returns the surface replayed so far (read-only use).
func (c *Checker) Surface() *Surface { return &c.surface }

// warn records one warning unless its kind is over the cap. Formatting happens only
// for kept warnings, so a flood of one mistake costs a counter increment each.
func (c *Checker) warn(kind Kind, line, seq int64, format string, args ...any) {
	c.counts[kind]++
	if c.counts[kind] > MaxWarningsPerKind {
		return
	}
	c.out = append(c.out, Problem{Kind: kind, Line: line, Offset: -1, Seq: seq, Message: fmt.Sprintf(format, args...)})
}

// addProblem records a ready-made problem under the same cap.
func (c *Checker) addProblem(p *Problem, line int64) {
	c.counts[p.Kind]++
	if c.counts[p.Kind] > MaxWarningsPerKind {
		return
	}
	p.Line = line
	p.Offset = -1
	c.out = append(c.out, *p)
}

// note counts one occurrence of an unknown type or legacy shape.
func (c *Checker) note(kind Kind, label, note string, ev *Event, line int64) {
	k := tallyKey{kind, label}
	t := c.tallies[k]
	if t == nil {
		if c.talliesPer[kind] >= maxTallies {
			c.counts[kind]++ // reported through the overflow summary
			return
		}
		c.talliesPer[kind]++
		t = &tally{key: k, note: note, firstSeq: ev.Seq, firstLine: line}
		c.tallies[k] = t
		c.tallyOrder = append(c.tallyOrder, t)
	}
	t.count++
	if ev.Ignorable {
		t.ignorableCount++
	}
}

// decode unmarshals event data into v. Type mismatches inside data leave the other
// fields filled (the shape belongs to the decoder's checks); only unusable data
// reports false.
func decode(data json.RawMessage, v any) bool {
	if len(data) == 0 {
		return false
	}
	err := json.Unmarshal(data, v)
	var typeErr *json.UnmarshalTypeError
	return err == nil || errors.As(err, &typeErr)
}

// Observe checks one logical event. line is the 1-based logical line it came from
// (for packed-row members, the row's line). Events must arrive in seq order.
func (c *Checker) Observe(ev *Event, line int64) {
	exp := c.expect
	c.expect = nil
	c.observe(ev, line, exp)
	if exp != nil && !exp.met {
		c.warn(KindCompaction, line, ev.Seq, "%s (seq %d) must be followed immediately by its %s, but the next event is %s (seq %d)",
			exp.source(), exp.seq, exp.wanted(), ev.Type, ev.Seq)
	}
	c.lastSeq, c.lastLine, c.lastType, c.observed = ev.Seq, line, ev.Type, true
}

// observe dispatches one event; exp is the expectation the previous event set.
func (c *Checker) observe(ev *Event, line int64, exp *expectation) {
	// Fast path: packed-row members are the bulk of every log and only need nesting.
	if ev.Chunk != nil {
		c.requireStep(ev, line, ev.Chunk.Turn, ev.Chunk.Step)
		return
	}

	t := ev.Type
	if !KnownEventType(t) {
		if LegacyEventType(t) {
			c.note(KindLegacyEvent, "event type "+t, legacyTypeNote(t), ev, line)
			if strings.HasPrefix(t, "compact/") {
				// The V0→V1 edge renames these to compaction/*; check them as such.
				t = "compaction/" + strings.TrimPrefix(t, "compact/")
			} else if t == "steering/message" {
				c.observeSteering(ev)
				return
			} else {
				return
			}
		} else {
			c.note(KindUnknownEvent, t, "", ev, line)
			return
		}
	}

	if IsSurfaceType(t) {
		c.checkSourceSeqs(ev, line)
		if p := c.surface.Apply(ev); p != nil {
			c.addProblem(p, line)
		}
	} else if ev.HasSourceSeqs || ev.SurfaceOp != nil {
		c.warn(KindSurface, line, ev.Seq, "%s (seq %d) is log-only but carries sourceEventSeqs or surfaceOp; ignored", t, ev.Seq)
	}

	switch t {
	case "assistant/chunk":
		if turn, step, ok := leadingTurnStep(ev.Data); ok {
			c.requireStep(ev, line, turn, step)
			break
		}
		var d struct{ Turn, Step int64 }
		if decode(ev.Data, &d) {
			c.requireStep(ev, line, d.Turn, d.Step)
		}
	case "turn/start":
		c.observeTurnStart(ev, line)
	case "turn/end":
		c.observeTurnEnd(ev, line)
	case "step/start":
		c.observeStepStart(ev, line)
	case "step/end":
		c.observeStepEnd(ev, line)
	case "assistant/message":
		c.observeAssistantMessage(ev, line)
	case "tool/call":
		c.observeToolCall(ev, line)
	case "tool/result":
		c.observeToolResult(ev, line, exp)
	case "user/message":
		c.observeUserMessage(ev, line, exp)
	case "approval/asked", "approval/decided":
		c.observeApproval(ev, line)
	case "command/run", "command/done":
		c.observeCommand(ev, line)
	case "llm/retry", "llm/retry-started":
		c.observeRetry(ev, line)
	case "compaction/start":
		c.observeCompactionStart(ev, line)
	case "compaction/summary":
		c.observeCompactionSummary(ev, line)
	case "compaction/end":
		c.observeCompactionEnd(ev, line)
	case "compaction/prune":
		c.observeCompactionPrune(ev, line)
	case "session/title", "session/title-llm-request":
		c.observeTitle(ev, line)
	case "session/end-seed":
		c.observeEndSeed(ev, line)
	case "request/header":
		c.observeRequestHeader(ev, line)
	case "request/context":
		if !c.turnOpen {
			c.warn(KindTurnNesting, line, ev.Seq, "request/context (seq %d) is outside any open turn", ev.Seq)
		}
	}
}

// leadingTurnStep reads turn and step from data written in dsh's key order
// ({"turn":N,"step":M,…}) without scanning the rest: unpacked chunks include
// block-end chunks that repeat a whole content block. Anything else reports false
// and is decoded normally.
func leadingTurnStep(data []byte) (turn, step int64, ok bool) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"turn":`))
	if !ok {
		return 0, 0, false
	}
	if turn, rest, ok = leadingUint(rest); !ok {
		return 0, 0, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"step":`)); !ok {
		return 0, 0, false
	}
	if step, rest, ok = leadingUint(rest); !ok || len(rest) == 0 || (rest[0] != ',' && rest[0] != '}') {
		return 0, 0, false
	}
	return turn, step, true
}

// leadingUint parses a short run of decimal digits (no sign, no fraction).
func leadingUint(b []byte) (int64, []byte, bool) {
	var n int64
	k := 0
	for k < len(b) && k < 15 && b[k] >= '0' && b[k] <= '9' {
		n = n*10 + int64(b[k]-'0')
		k++
	}
	if k == 0 || k == 15 || (k < len(b) && (b[k] == '.' || b[k] == 'e' || b[k] == 'E')) || (k > 1 && b[0] == '0') {
		return 0, nil, false
	}
	return n, b[k:], true
}

// legacyTypeNote explains what the V0→V1 migration does with a legacy type.
func legacyTypeNote(t string) string {
	switch t {
	case "steering/message":
		return "early-V0 steering prompt; the V0→V1 migration turns it into user/message"
	case "request/header-delta", "mode/set":
		return "early-V0 event the V0→V1 migration refuses; kept verbatim"
	}
	return "early-V0 name; the V0→V1 migration renames it to compaction/*"
}

// checkSourceSeqs re-applies the §1.3 rules on an expanded sourceEventSeqs list:
// members unique and earlier than the event, non-empty except on assistant/message.
// The decoder enforces these too; checking again keeps the Checker usable on events
// built elsewhere, and costs one pass (a set only for unsorted lists).
func (c *Checker) checkSourceSeqs(ev *Event, line int64) {
	if !ev.HasSourceSeqs {
		return
	}
	seqs := ev.SourceEventSeqs
	if len(seqs) == 0 {
		if ev.Type != "assistant/message" {
			c.warn(KindSurface, line, ev.Seq, "%s (seq %d) has an empty sourceEventSeqs; only assistant/message may cite nothing", ev.Type, ev.Seq)
		}
		return
	}
	sorted := true
	for k, s := range seqs {
		if s >= ev.Seq || s < 0 {
			c.warn(KindSurface, line, ev.Seq, "%s (seq %d) cites seq %d in sourceEventSeqs, which is not an earlier event", ev.Type, ev.Seq, s)
			return
		}
		if k > 0 && s <= seqs[k-1] {
			sorted = false
		}
	}
	if sorted {
		return // strictly increasing: unique
	}
	if c.scratch == nil {
		c.scratch = make(map[int64]struct{})
	}
	clear(c.scratch)
	for _, s := range seqs {
		if _, dup := c.scratch[s]; dup {
			c.warn(KindSurface, line, ev.Seq, "%s (seq %d) cites seq %d twice in sourceEventSeqs", ev.Type, ev.Seq, s)
			return
		}
		c.scratch[s] = struct{}{}
	}
}

// requireStep checks that an in-step event names the open turn and step. Events
// claiming the same turn/step against the same state (no transition in between) are
// reported once: a missing step/start must not turn every chunk into a warning.
func (c *Checker) requireStep(ev *Event, line int64, turn, step int64) {
	if c.turnOpen && c.stepOpen && turn == c.turn && step == c.step {
		return
	}
	if c.badGen == c.nestGen+1 && c.badTurn == turn && c.badStep == step {
		return
	}
	c.badGen, c.badTurn, c.badStep = c.nestGen+1, turn, step
	c.warn(KindTurnNesting, line, ev.Seq, "%s (seq %d) belongs to turn %d step %d, but %s%s",
		ev.Type, ev.Seq, turn, step, c.stateText(), repeatNote(ev))
}

// repeatNote tells the reader that following chunk members share the finding.
func repeatNote(ev *Event) string {
	if ev.Type == "assistant/chunk" {
		return " (further events misplaced the same way are not listed)"
	}
	return ""
}

// stateText describes the open turn/step for messages.
func (c *Checker) stateText() string {
	switch {
	case !c.turnOpen:
		return "no turn is open"
	case !c.stepOpen:
		return fmt.Sprintf("turn %d has no open step", c.turn)
	default:
		return fmt.Sprintf("the open step is turn %d step %d", c.turn, c.step)
	}
}

// transition marks a turn/step state change for the repeat suppression.
func (c *Checker) transition() { c.nestGen++ }

// observeTurnStart opens a turn; numbering must continue the previous turn.
func (c *Checker) observeTurnStart(ev *Event, line int64) {
	var d struct {
		Turn    int64
		Trigger json.RawMessage
	}
	if !decode(ev.Data, &d) {
		return
	}
	if d.Trigger != nil {
		c.note(KindLegacyEvent, "turn/start.trigger", "early-V0 turn/start trigger; the V0→V1 migration drops it", ev, line)
	}
	c.noteCrossing(ev)
	if c.turnOpen {
		c.warn(KindTurnNesting, line, ev.Seq, "turn/start %d (seq %d) while turn %d (turn/start seq %d) was never ended",
			d.Turn, ev.Seq, c.turn, c.turnSeq)
		c.closeTurn(ev, line, "turn/start")
	}
	switch {
	case !c.sawTurn:
		if c.strictFirstTurn && d.Turn != 1 {
			c.warn(KindTurnNesting, line, ev.Seq, "the first turn/start (seq %d) opens turn %d; an unseeded log starts at turn 1", ev.Seq, d.Turn)
		}
	case d.Turn != c.turn+1:
		c.warn(KindTurnNesting, line, ev.Seq, "turn/start %d (seq %d) follows turn %d; turns must be numbered consecutively (expected %d)",
			d.Turn, ev.Seq, c.turn, c.turn+1)
	}
	c.sawTurn = true
	c.turn, c.turnOpen, c.turnSeq = d.Turn, true, ev.Seq
	c.step, c.stepOpen = 0, false
	clear(c.tools)
	c.transition()
}

// observeTurnEnd closes the open turn, checking what it leaves behind.
func (c *Checker) observeTurnEnd(ev *Event, line int64) {
	var d struct {
		Turn   int64
		Reason struct {
			Kind   string
			Reason json.RawMessage
			Error  json.RawMessage
		}
	}
	if !decode(ev.Data, &d) {
		return
	}
	switch k := d.Reason.Kind; {
	case k == "disposed", k == "aborted" && d.Reason.Reason == nil, k == "error" && d.Reason.Error == nil:
		c.note(KindLegacyEvent, fmt.Sprintf("turn/end reason %q (legacy form)", k),
			"early-V0 turn/end reason; the V0→V1 migration maps it to aborted{legacy|disposed} or error{error}", ev, line)
	}
	c.noteCrossing(ev)
	c.lastTurnEndSeq = ev.Seq
	if !c.turnOpen {
		c.warn(KindTurnNesting, line, ev.Seq, "turn/end %d (seq %d) but no turn is open", d.Turn, ev.Seq)
		return
	}
	if d.Turn != c.turn {
		c.warn(KindTurnNesting, line, ev.Seq, "turn/end %d (seq %d) does not match the open turn %d (turn/start seq %d)", d.Turn, ev.Seq, c.turn, c.turnSeq)
	}
	c.closeTurn(ev, line, "turn/end")
}

// closeTurn ends the open turn at ev, reporting what it leaves unresolved.
func (c *Checker) closeTurn(ev *Event, line int64, by string) {
	if c.stepOpen {
		c.warn(KindTurnNesting, line, ev.Seq, "%s (seq %d) ends turn %d while step %d (step/start seq %d) is still open",
			by, ev.Seq, c.turn, c.step, c.stepSeq)
		c.stepOpen = false
	}
	c.resolveTools(ev, line, by)
	for _, id := range sortedKeys(c.approvals) {
		a := c.approvals[id]
		if a.turn == c.turn {
			c.warn(KindUnpairedApproval, line, ev.Seq, "approval %s for tool %q (approval/asked seq %d) was never decided before %s (seq %d) ended turn %d",
				id, a.name, a.seq, by, ev.Seq, c.turn)
			delete(c.approvals, id)
		}
	}
	// A retry scheduled but never started is a cancellation during back-off, which is
	// legitimate; the schedules simply expire with the turn.
	clear(c.retries)
	c.turnOpen = false
	c.transition()
}

// observeStepStart opens the next step of the open turn.
func (c *Checker) observeStepStart(ev *Event, line int64) {
	var d struct{ Turn, Step int64 }
	if !decode(ev.Data, &d) {
		return
	}
	if !c.turnOpen || d.Turn != c.turn {
		c.warn(KindTurnNesting, line, ev.Seq, "step/start turn %d step %d (seq %d), but %s", d.Turn, d.Step, ev.Seq, c.stateText())
		// Resynchronise on the log's own claim so one slip is one warning.
		c.turn, c.turnOpen, c.turnSeq, c.step, c.stepOpen = d.Turn, true, ev.Seq, d.Step-1, false
		c.sawTurn = true
	}
	if c.stepOpen {
		c.warn(KindTurnNesting, line, ev.Seq, "step/start %d (seq %d) while step %d (step/start seq %d) of turn %d was never ended",
			d.Step, ev.Seq, c.step, c.stepSeq, c.turn)
		c.resolveTools(ev, line, "step/start")
	} else if d.Step != c.step+1 {
		c.warn(KindTurnNesting, line, ev.Seq, "step/start %d (seq %d) in turn %d; steps are numbered from 1 per turn (expected %d)",
			d.Step, ev.Seq, c.turn, c.step+1)
	}
	clear(c.tools)
	c.step, c.stepOpen, c.stepSeq = d.Step, true, ev.Seq
	c.transition()
}

// observeStepEnd closes the open step; every tool call of the step must be resolved.
func (c *Checker) observeStepEnd(ev *Event, line int64) {
	var d struct{ Turn, Step int64 }
	if !decode(ev.Data, &d) {
		return
	}
	if !c.turnOpen || !c.stepOpen || d.Turn != c.turn || d.Step != c.step {
		c.warn(KindTurnNesting, line, ev.Seq, "step/end turn %d step %d (seq %d), but %s", d.Turn, d.Step, ev.Seq, c.stateText())
	}
	c.resolveTools(ev, line, "step/end")
	c.stepOpen = false
	c.transition()
}

// resolveTools reports tool calls of the closing step that never got a result (dsh
// resolves every advertised call before step/end/turn/end) and forgets them.
func (c *Checker) resolveTools(ev *Event, line int64, by string) {
	if len(c.tools) == 0 {
		return
	}
	for _, id := range sortedToolIDs(c.tools) {
		tc := c.tools[id]
		if tc.started {
			c.warn(KindUnpairedTool, line, ev.Seq, "tool/call %s %q (seq %d) has no tool/result before %s (seq %d)",
				id, tc.name, tc.callSeq, by, ev.Seq)
		} else {
			c.warn(KindUnpairedTool, line, ev.Seq, "tool call %s %q advertised by assistant/message (seq %d) was neither started nor resolved before %s (seq %d)",
				id, tc.name, tc.advertSeq, by, ev.Seq)
		}
	}
	clear(c.tools)
}

// contentBlock is the part of a content block the Checker reads.
type contentBlock struct {
	Type       string
	ID         string
	Name       string
	Arguments  string
	ToolCallID string `json:"toolCallId"`
}

// observeAssistantMessage records the tool calls a step advertises.
func (c *Checker) observeAssistantMessage(ev *Event, line int64) {
	var d struct {
		Turn, Step int64
		Message    *struct{ Content []contentBlock }
		Content    []contentBlock // legacy: content directly in data
	}
	if !decode(ev.Data, &d) {
		return
	}
	content := d.Content
	if d.Message != nil {
		content = d.Message.Content
	} else {
		c.note(KindLegacyEvent, "assistant/message without message wrapper", "early-V0 assistant/message shape; the V0→V1 migration wraps it", ev, line)
	}
	c.requireStep(ev, line, d.Turn, d.Step)
	for i := range content {
		b := &content[i]
		if b.Type != "tool-call" {
			continue
		}
		if prev, dup := c.tools[b.ID]; dup {
			c.warn(KindUnpairedTool, line, ev.Seq, "assistant/message (seq %d) advertises tool call %s again (first at seq %d)", ev.Seq, b.ID, prev.advertSeq)
			continue
		}
		c.tools[b.ID] = &toolCall{name: b.Name, args: b.Arguments, advertSeq: ev.Seq}
	}
}

// observeToolCall starts an advertised call; it must equal the advertised block.
func (c *Checker) observeToolCall(ev *Event, line int64) {
	var d struct {
		Turn, Step      int64
		CallID          string `json:"callId"`
		Name, Arguments string
	}
	if !decode(ev.Data, &d) {
		return
	}
	c.requireStep(ev, line, d.Turn, d.Step)
	tc := c.tools[d.CallID]
	switch {
	case tc == nil:
		c.warn(KindUnpairedTool, line, ev.Seq, "tool/call %s %q (seq %d) matches no tool-call block advertised by the assistant/message of turn %d step %d",
			d.CallID, d.Name, ev.Seq, d.Turn, d.Step)
		tc = &toolCall{name: d.Name, args: d.Arguments, advertSeq: -1}
		c.tools[d.CallID] = tc
	case tc.started:
		c.warn(KindUnpairedTool, line, ev.Seq, "tool/call %s (seq %d) repeats a call already started at seq %d", d.CallID, ev.Seq, tc.callSeq)
	case tc.name != d.Name:
		c.warn(KindUnpairedTool, line, ev.Seq, "tool/call %s (seq %d) names tool %q but assistant/message (seq %d) advertised %q",
			d.CallID, ev.Seq, d.Name, tc.advertSeq, tc.name)
	case tc.args != d.Arguments:
		c.warn(KindUnpairedTool, line, ev.Seq, "tool/call %s %q (seq %d) has different arguments from the call advertised by assistant/message (seq %d)",
			d.CallID, d.Name, ev.Seq, tc.advertSeq)
	}
	tc.started, tc.callSeq = true, ev.Seq
}

// Exact markers of the repair result dsh writes for an advertised call that never
// started (relationships.ts isExactToolNotStartedRepair).
const (
	toolNotStartedName = "ToolNotStartedError"
	toolNotStartedCode = "TOOL_NOT_STARTED"
)

// observeToolResult resolves a call by callId, or checks a pruning replacement.
func (c *Checker) observeToolResult(ev *Event, line int64, exp *expectation) {
	var d struct {
		Turn, Step int64
		Message    *struct {
			Content []contentBlock
			Source  struct {
				CallID string `json:"callId"`
			}
		}
		CallID string `json:"callId"` // legacy: callId directly in data
		Error  *struct{ Name, Code string }
	}
	if !decode(ev.Data, &d) {
		return
	}
	callID := d.CallID
	if d.Message != nil {
		callID = d.Message.Source.CallID
	} else {
		c.note(KindLegacyEvent, "tool/result without message wrapper", "early-V0 tool/result shape; the V0→V1 migration wraps it", ev, line)
	}
	if op, err := parseSurfaceOp(ev.SurfaceOp); ev.SurfaceOp != nil && err == nil && op.replace {
		// A replacement (tool-result pruning) re-issues an existing result; it is not
		// part of the call lifecycle, but must happen inside a turn.
		if !c.turnOpen {
			c.warn(KindTurnNesting, line, ev.Seq, "tool/result replacement (seq %d) for call %s is outside any open turn", ev.Seq, callID)
		}
		if exp != nil && exp.what == "prune" {
			exp.met = true
			if op.start != exp.start || op.end != exp.end {
				c.warn(KindCompaction, line, ev.Seq, "tool/result replacement (seq %d) replaces %d..%d but compaction/prune (seq %d) priced %d..%d",
					ev.Seq, op.start, op.end, exp.seq, exp.start, exp.end)
			}
		}
		return
	}
	c.requireStep(ev, line, d.Turn, d.Step)
	if d.Message != nil && len(d.Message.Content) > 0 && d.Message.Content[0].ToolCallID != callID {
		c.warn(KindUnpairedTool, line, ev.Seq, "tool/result (seq %d) is for call %s but its tool-result block names %s",
			ev.Seq, callID, d.Message.Content[0].ToolCallID)
	}
	tc := c.tools[callID]
	switch {
	case tc == nil:
		c.warn(KindUnpairedTool, line, ev.Seq, "tool/result (seq %d) for call %s has no tool call advertised or started in turn %d step %d",
			ev.Seq, callID, d.Turn, d.Step)
		return
	case !tc.started:
		if d.Error == nil || d.Error.Name != toolNotStartedName || d.Error.Code != toolNotStartedCode {
			c.warn(KindUnpairedTool, line, ev.Seq, "tool/result (seq %d) for call %s %q, but no tool/call started it (only a %s repair may resolve an unstarted call)",
				ev.Seq, callID, tc.name, toolNotStartedCode)
		}
	case ev.HasSourceSeqs && !containsSeq(ev.SourceEventSeqs, tc.callSeq):
		c.warn(KindUnpairedTool, line, ev.Seq, "tool/result (seq %d) for call %s does not cite its tool/call (seq %d) in sourceEventSeqs",
			ev.Seq, callID, tc.callSeq)
	}
	delete(c.tools, callID)
}

// containsSeq is a linear membership test for short lists.
func containsSeq(list []int64, v int64) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// messageSource is the part of a message source the Checker reads.
type messageSource struct {
	Kind            string
	Plugin          string
	CompactionID    *string `json:"compactionId"`
	SourceCommandID *string `json:"sourceCommandId"`
}

// observeUserMessage notes human prompts (title targets) and checks compaction checkpoints.
func (c *Checker) observeUserMessage(ev *Event, line int64, exp *expectation) {
	var d struct {
		ID     *string
		Source messageSource
	}
	if !decode(ev.Data, &d) {
		return
	}
	if d.ID == nil {
		c.note(KindLegacyEvent, "user/message without id", "early-V0 user/message shape; the V0→V1 migration adds id and role", ev, line)
	}
	if d.Source.Kind == "user" {
		c.humanSeqs[ev.Seq] = struct{}{}
	}
	op, err := parseSurfaceOp(ev.SurfaceOp)
	replace := ev.SurfaceOp != nil && err == nil && op.replace
	checkpoint := replace && d.Source.Kind == "plugin" && d.Source.Plugin == "compact"
	if checkpoint {
		id, cmd := deref(d.Source.CompactionID), deref(d.Source.SourceCommandID)
		if oc := c.compaction; oc == nil || oc.id != id || oc.sourceCommandID != cmd {
			c.warn(KindCompaction, line, ev.Seq, "compaction checkpoint user/message (seq %d) for compaction %q has no matching open compaction/start%s",
				ev.Seq, id, c.openCompactionText())
		}
	}
	if exp != nil && exp.what == "checkpoint" {
		exp.met = true
		switch {
		case !checkpoint:
			c.warn(KindCompaction, line, ev.Seq, "user/message (seq %d) right after compaction/summary (seq %d) is not a compaction checkpoint (a replace by source plugin \"compact\")",
				ev.Seq, exp.seq)
		case op.start != exp.start || op.end != exp.end:
			c.warn(KindCompaction, line, ev.Seq, "compaction checkpoint (seq %d) replaces %d..%d but compaction/summary (seq %d) shadows %d..%d",
				ev.Seq, op.start, op.end, exp.seq, exp.start, exp.end)
		case deref(d.Source.CompactionID) != exp.compactionID:
			c.warn(KindCompaction, line, ev.Seq, "compaction checkpoint (seq %d) names compaction %q but compaction/summary (seq %d) belongs to %q",
				ev.Seq, deref(d.Source.CompactionID), exp.seq, exp.compactionID)
		}
	}
}

// observeSteering records the human prompt of a legacy steering/message, which the
// V0→V1 migration turns into a user/message that titles may cite.
func (c *Checker) observeSteering(ev *Event) {
	var d struct {
		Source  messageSource
		Message *struct{ Source messageSource }
	}
	if !decode(ev.Data, &d) {
		return
	}
	if d.Source.Kind == "user" || (d.Message != nil && d.Message.Source.Kind == "user") {
		c.humanSeqs[ev.Seq] = struct{}{}
	}
}

// observeApproval pairs approval/asked with approval/decided by id.
func (c *Checker) observeApproval(ev *Event, line int64) {
	var d struct {
		ID       string
		ToolName string `json:"toolName"`
		Outcome  string
	}
	if !decode(ev.Data, &d) {
		return
	}
	if ev.Type == "approval/asked" {
		if !c.turnOpen {
			c.warn(KindTurnNesting, line, ev.Seq, "approval/asked %s for tool %q (seq %d) is outside any open turn", d.ID, d.ToolName, ev.Seq)
		}
		if prev, dup := c.approvals[d.ID]; dup {
			c.warn(KindUnpairedApproval, line, ev.Seq, "approval/asked %s (seq %d) repeats an id still awaiting a decision since seq %d", d.ID, ev.Seq, prev.seq)
		}
		owner := int64(-1) // asked outside a turn: never part of an interrupted turn
		if c.turnOpen {
			owner = c.turn
		}
		c.approvals[d.ID] = openPair{seq: ev.Seq, line: line, turn: owner, name: d.ToolName}
		return
	}
	if _, ok := c.approvals[d.ID]; !ok {
		c.warn(KindUnpairedApproval, line, ev.Seq, "approval/decided %s (%s, seq %d) has no open approval/asked", d.ID, d.Outcome, ev.Seq)
		return
	}
	delete(c.approvals, d.ID)
}

// observeCommand pairs command/run with command/done by commandId.
func (c *Checker) observeCommand(ev *Event, line int64) {
	var d struct {
		CommandID string `json:"commandId"`
		Name      string
		Kind      string
	}
	if !decode(ev.Data, &d) {
		return
	}
	if ev.Type == "command/run" {
		if prev, dup := c.commands[d.CommandID]; dup {
			c.warn(KindUnpairedCommand, line, ev.Seq, "command/run %s (seq %d) repeats a commandId still running since seq %d", d.CommandID, ev.Seq, prev.seq)
		}
		c.commands[d.CommandID] = openPair{seq: ev.Seq, line: line, name: d.Name}
		return
	}
	if _, ok := c.commands[d.CommandID]; !ok {
		c.warn(KindUnpairedCommand, line, ev.Seq, "command/done %s (%s, seq %d) has no prior command/run", d.CommandID, d.Kind, ev.Seq)
		return
	}
	delete(c.commands, d.CommandID)
}

// observeRetry pairs llm/retry with llm/retry-started by retryId and retry number.
func (c *Checker) observeRetry(ev *Event, line int64) {
	var d struct {
		RetryID    *string `json:"retryId"`
		Retry      int64
		Turn, Step int64
	}
	if !decode(ev.Data, &d) {
		return
	}
	key := retryKey{deref(d.RetryID), d.Retry}
	if ev.Type == "llm/retry" {
		if d.RetryID == nil {
			c.note(KindLegacyEvent, "llm/retry without retryId", "early-V0 llm/retry; the V0→V1 migration derives a retryId", ev, line)
		}
		c.requireStep(ev, line, d.Turn, d.Step)
		if prev, dup := c.retries[key]; dup {
			c.warn(KindUnpairedRetry, line, ev.Seq, "llm/retry %s #%d (seq %d) repeats an attempt already scheduled at seq %d", key.id, d.Retry, ev.Seq, prev.seq)
		}
		c.retries[key] = openPair{seq: ev.Seq, line: line, turn: d.Turn, step: d.Step}
		return
	}
	prev, ok := c.retries[key]
	switch {
	case !ok:
		c.warn(KindUnpairedRetry, line, ev.Seq, "llm/retry-started %s #%d (seq %d) pairs no prior llm/retry in the open turn", key.id, d.Retry, ev.Seq)
		return
	case prev.turn != d.Turn || prev.step != d.Step:
		c.warn(KindUnpairedRetry, line, ev.Seq, "llm/retry-started %s #%d (seq %d) is for turn %d step %d but llm/retry (seq %d) scheduled it in turn %d step %d",
			key.id, d.Retry, ev.Seq, d.Turn, d.Step, prev.seq, prev.turn, prev.step)
	}
	delete(c.retries, key)
}

// compactionData is the part of compaction/* data the Checker reads.
type compactionData struct {
	CompactionID    *string `json:"compactionId"`
	SourceCommandID *string `json:"sourceCommandId"`
	Turn            *int64
	Error           json.RawMessage
	ShadowedRange   *struct{ Start, End int64 } `json:"shadowedRange"`
	ShadowedSeqs    []int64                     `json:"shadowedSeqs"`
}

// decodeCompaction decodes compaction data and notes the legacy id-less form.
func (c *Checker) decodeCompaction(ev *Event, line int64) (compactionData, bool) {
	var d compactionData
	if !decode(ev.Data, &d) {
		return d, false
	}
	if d.CompactionID == nil && !strings.HasSuffix(ev.Type, "/prune") { // prune has no id (also as compact/prune)
		c.note(KindLegacyEvent, "compaction without compactionId", "early-V0 compaction bracket; the V0→V1 migration derives a compactionId", ev, line)
	}
	return d, true
}

// ownerTurnOK reports whether a compaction owned by turn (nil = manual) fits the
// current turn state: a turn-owned bracket inside that open turn, a manual one
// between turns.
func (c *Checker) ownerTurnOK(turn *int64) bool {
	if turn == nil {
		return !c.turnOpen
	}
	return c.turnOpen && *turn == c.turn
}

// ownerText renders a compaction owner turn.
func ownerText(turn *int64) string {
	if turn == nil {
		return "manual (turn null)"
	}
	return fmt.Sprintf("turn %d", *turn)
}

// openCompactionText describes the open compaction for messages.
func (c *Checker) openCompactionText() string {
	if c.compaction == nil {
		return " (none is open)"
	}
	return fmt.Sprintf(" (open: %q from seq %d)", c.compaction.id, c.compaction.seq)
}

// noteCrossing remembers the first turn boundary inside an open compaction; whether
// it is an error is only known later (a stale start before session/end-seed is not).
func (c *Checker) noteCrossing(ev *Event) {
	if c.compaction != nil && c.compaction.crossSeq == 0 {
		c.compaction.crossSeq, c.compaction.crossType = ev.Seq, ev.Type
	}
}

// observeCompactionStart opens a compaction bracket owned by a turn or (null) by no turn.
func (c *Checker) observeCompactionStart(ev *Event, line int64) {
	d, ok := c.decodeCompaction(ev, line)
	if !ok {
		return
	}
	id := deref(d.CompactionID)
	if oc := c.compaction; oc != nil {
		c.warn(KindCompaction, line, ev.Seq, "compaction/start %q (seq %d) overlaps compaction %q still open since seq %d; the earlier one is abandoned",
			id, ev.Seq, oc.id, oc.seq)
	}
	if !c.ownerTurnOK(d.Turn) {
		c.warn(KindCompaction, line, ev.Seq, "compaction/start %q (seq %d) is owned by %s but %s", id, ev.Seq, ownerText(d.Turn), c.turnText())
	}
	c.compaction = &openCompaction{id: id, sourceCommandID: deref(d.SourceCommandID), turn: d.Turn, seq: ev.Seq}
}

// turnText says which turn is open, for compaction messages.
func (c *Checker) turnText() string {
	if c.turnOpen {
		return fmt.Sprintf("turn %d is open", c.turn)
	}
	return "no turn is open"
}

// owns reports whether compaction data belongs to the open compaction.
func (c *Checker) owns(d *compactionData) bool {
	oc := c.compaction
	return oc != nil && oc.id == deref(d.CompactionID) && oc.sourceCommandID == deref(d.SourceCommandID)
}

// observeCompactionSummary checks ownership and that shadowedSeqs is the exact
// current surface span; the checkpoint must come next.
func (c *Checker) observeCompactionSummary(ev *Event, line int64) {
	d, ok := c.decodeCompaction(ev, line)
	if !ok {
		return
	}
	id := deref(d.CompactionID)
	if !c.owns(&d) {
		c.warn(KindCompaction, line, ev.Seq, "compaction/summary %q (seq %d) has no matching compaction/start%s", id, ev.Seq, c.openCompactionText())
	} else {
		oc := c.compaction
		if !c.ownerTurnOK(oc.turn) {
			c.warn(KindCompaction, line, ev.Seq, "compaction/summary %q (seq %d) belongs to a bracket owned by %s but %s", id, ev.Seq, ownerText(oc.turn), c.turnText())
		}
		if oc.summarySeq != 0 {
			c.warn(KindCompaction, line, ev.Seq, "compaction/summary %q (seq %d) repeats the summary at seq %d", id, ev.Seq, oc.summarySeq)
		}
		oc.summarySeq = ev.Seq
	}
	if d.ShadowedRange == nil {
		c.warn(KindCompaction, line, ev.Seq, "compaction/summary %q (seq %d) has no shadowedRange", id, ev.Seq)
		return
	}
	c.checkShadowSpan(ev, line, "compaction/summary", d.ShadowedRange.Start, d.ShadowedRange.End, d.ShadowedSeqs)
	c.expect = &expectation{what: "checkpoint", seq: ev.Seq, line: line, compactionID: id,
		start: d.ShadowedRange.Start, end: d.ShadowedRange.End}
}

// checkShadowSpan verifies that shadowedSeqs is exactly the current surface span
// between the shadowedRange endpoints (surface order, not numeric order).
func (c *Checker) checkShadowSpan(ev *Event, line int64, what string, start, end int64, seqs []int64) {
	if c.surface.spanEqual(start, end, seqs) {
		return
	}
	span, ok := c.surface.Span(start, end)
	if !ok {
		c.warn(KindCompaction, line, ev.Seq, "%s (seq %d) shadowedRange %d..%d is not a span of the current surface (%d nodes)",
			what, ev.Seq, start, end, c.surface.Len())
		return
	}
	k := 0
	for k < len(span) && k < len(seqs) && span[k] == seqs[k] {
		k++
	}
	detail := "it is longer"
	switch {
	case k < len(span) && k < len(seqs):
		detail = fmt.Sprintf("they differ at index %d: surface has %d, shadowedSeqs has %d", k, span[k], seqs[k])
	case k < len(span):
		detail = fmt.Sprintf("it stops early, missing %d", span[k])
	}
	c.warn(KindCompaction, line, ev.Seq, "%s (seq %d) shadowedSeqs (%d seqs) are not the exact current surface span %d..%d (%d nodes): %s",
		what, ev.Seq, len(seqs), start, end, len(span), detail)
}

// observeCompactionEnd closes the bracket; success requires a summary.
func (c *Checker) observeCompactionEnd(ev *Event, line int64) {
	d, ok := c.decodeCompaction(ev, line)
	if !ok {
		return
	}
	id := deref(d.CompactionID)
	if !c.owns(&d) {
		c.warn(KindCompaction, line, ev.Seq, "compaction/end %q (seq %d) has no matching compaction/start%s", id, ev.Seq, c.openCompactionText())
		return
	}
	oc := c.compaction
	c.compaction = nil
	switch {
	case !sameTurn(d.Turn, oc.turn):
		c.warn(KindCompaction, line, ev.Seq, "compaction/end %q (seq %d) is owned by %s but its compaction/start (seq %d) by %s",
			id, ev.Seq, ownerText(d.Turn), oc.seq, ownerText(oc.turn))
	case oc.crossSeq != 0:
		c.warn(KindCompaction, line, ev.Seq, "compaction %q (seq %d..%d) crosses %s (seq %d); a bracket must stay inside its turn or between turns",
			id, oc.seq, ev.Seq, oc.crossType, oc.crossSeq)
	case !c.ownerTurnOK(oc.turn):
		c.warn(KindCompaction, line, ev.Seq, "compaction/end %q (seq %d) is owned by %s but %s", id, ev.Seq, ownerText(oc.turn), c.turnText())
	}
	if d.Error == nil && oc.summarySeq == 0 {
		c.warn(KindCompaction, line, ev.Seq, "compaction/end %q (seq %d) reports success but the bracket has no compaction/summary", id, ev.Seq)
	}
}

// sameTurn compares nullable owner turns.
func sameTurn(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// observeCompactionPrune checks the priced span; the tool-result replacement must come next.
func (c *Checker) observeCompactionPrune(ev *Event, line int64) {
	d, ok := c.decodeCompaction(ev, line)
	if !ok {
		return
	}
	if d.ShadowedRange == nil {
		c.warn(KindCompaction, line, ev.Seq, "compaction/prune (seq %d) has no shadowedRange", ev.Seq)
		return
	}
	c.checkShadowSpan(ev, line, "compaction/prune", d.ShadowedRange.Start, d.ShadowedRange.End, d.ShadowedSeqs)
	c.expect = &expectation{what: "prune", seq: ev.Seq, line: line, start: d.ShadowedRange.Start, end: d.ShadowedRange.End}
}

// source names the event that set the expectation.
func (e *expectation) source() string {
	if e.what == "prune" {
		return "compaction/prune"
	}
	return fmt.Sprintf("compaction/summary %q", e.compactionID)
}

// wanted names the event the expectation asks for.
func (e *expectation) wanted() string {
	if e.what == "prune" {
		return fmt.Sprintf("tool/result replacement of %d..%d", e.start, e.end)
	}
	return fmt.Sprintf("checkpoint user/message replacing %d..%d", e.start, e.end)
}

// observeTitle checks that titles cite earlier human prompts (none for a manual title).
func (c *Checker) observeTitle(ev *Event, line int64) {
	var d struct {
		MessageSeqs []int64 `json:"messageSeqs"`
		Source      struct{ Kind string }
	}
	if !decode(ev.Data, &d) {
		return
	}
	if ev.Type == "session/title" {
		userTitle := d.Source.Kind == "user"
		switch {
		case userTitle && len(d.MessageSeqs) > 0:
			c.warn(KindTitle, line, ev.Seq, "session/title (seq %d) is a manual title (source user) but cites messageSeqs %s; it must cite none",
				ev.Seq, seqList(d.MessageSeqs, 10))
		case !userTitle && len(d.MessageSeqs) == 0:
			c.warn(KindTitle, line, ev.Seq, "session/title (seq %d) from source %q cites no messageSeqs; only a manual title may", ev.Seq, d.Source.Kind)
		}
	} else if len(d.MessageSeqs) == 0 {
		c.warn(KindTitle, line, ev.Seq, "session/title-llm-request (seq %d) cites no messageSeqs", ev.Seq)
	}
	for _, s := range d.MessageSeqs {
		if _, ok := c.humanSeqs[s]; ok && s < ev.Seq {
			continue
		}
		c.warn(KindTitle, line, ev.Seq, "%s (seq %d) cites seq %d, which is not an earlier human user/message (source kind \"user\")", ev.Type, ev.Seq, s)
		return
	}
}

// observeRequestHeader checks placement and notes legacy request/header fields.
func (c *Checker) observeRequestHeader(ev *Event, line int64) {
	if !c.turnOpen {
		c.warn(KindTurnNesting, line, ev.Seq, "request/header (seq %d) is outside any open turn", ev.Seq)
	}
	// request/header carries the whole system prompt and tool list; decode it only
	// when a legacy marker can be present at all.
	hasPrefix := bytes.Contains(ev.Data, []byte(`"messagePrefix"`))
	if !hasPrefix && !bytes.Contains(ev.Data, []byte(`"fallback"`)) {
		return
	}
	var d struct {
		Reason string
		Header struct {
			MessagePrefix json.RawMessage `json:"messagePrefix"`
		}
	}
	if !decode(ev.Data, &d) {
		return
	}
	if d.Header.MessagePrefix != nil {
		c.note(KindLegacyEvent, "request/header.header.messagePrefix", "early-V0 request/header field; the V0→V1 migration drops it", ev, line)
	}
	if d.Reason == "fallback" {
		c.note(KindLegacyEvent, `request/header reason "fallback"`, "early-V0 request/header reason the V0→V1 migration refuses", ev, line)
	}
}

// observeEndSeed starts a new process lifetime. Whatever the previous lifetime left
// open was interrupted without dsh's crash repair; it is reported once and the state
// reset so the new lifetime is checked on its own. A compaction/start left open is a
// stale lock of the ended lifetime and is dropped silently (§3.4).
func (c *Checker) observeEndSeed(ev *Event, line int64) {
	if items := c.openItems(false); len(items) > 0 {
		if c.seeded && ev.Seq == c.seedLength {
			c.warn(KindInterruptedTail, line, ev.Seq, "the inherited prefix (seedLength %d) ends mid-activity before this fork's session/end-seed (seq %d): %s",
				c.seedLength, ev.Seq, strings.Join(items, "; "))
		} else {
			c.warn(KindInterruptedTail, line, ev.Seq, "an earlier process lifetime ended mid-activity before session/end-seed (seq %d) began a new one: %s",
				ev.Seq, strings.Join(items, "; "))
		}
	}
	c.transition()
	c.turnOpen, c.stepOpen = false, false
	clear(c.tools)
	clear(c.approvals)
	clear(c.commands)
	clear(c.retries)
	c.compaction = nil
}

// openItems describes everything still open, oldest first. With tail set, commands
// run before the last turn/end are left out (Finish reports them as unpaired).
func (c *Checker) openItems(tail bool) []string {
	var items []string
	if c.turnOpen {
		items = append(items, fmt.Sprintf("turn %d is open (turn/start seq %d)", c.turn, c.turnSeq))
		if c.stepOpen {
			items = append(items, fmt.Sprintf("step %d is open (step/start seq %d)", c.step, c.stepSeq))
		}
	}
	for _, id := range sortedToolIDs(c.tools) {
		tc := c.tools[id]
		if tc.started {
			items = append(items, fmt.Sprintf("tool/call %s %q (seq %d) has no tool/result", id, tc.name, tc.callSeq))
		} else {
			items = append(items, fmt.Sprintf("tool call %s %q advertised by assistant/message (seq %d) was never started", id, tc.name, tc.advertSeq))
		}
	}
	for _, id := range sortedKeys(c.approvals) {
		a := c.approvals[id]
		if tail && (!c.turnOpen || a.turn != c.turn) {
			continue // not part of the open final turn; Finish reports it as unpaired
		}
		items = append(items, fmt.Sprintf("approval %s for tool %q (approval/asked seq %d) is undecided", id, a.name, a.seq))
	}
	if oc := c.compaction; oc != nil && tail {
		state := "has no compaction/summary"
		if oc.summarySeq != 0 {
			state = fmt.Sprintf("was summarised at seq %d", oc.summarySeq)
		}
		items = append(items, fmt.Sprintf("compaction %q (compaction/start seq %d) never ended; it %s", oc.id, oc.seq, state))
	}
	for _, id := range sortedKeys(c.commands) {
		cm := c.commands[id]
		if tail && !c.turnOpen && cm.seq < c.lastTurnEndSeq {
			continue
		}
		items = append(items, fmt.Sprintf("command/run %s %q (seq %d) has no command/done", id, cm.name, cm.seq))
	}
	return items
}

// Finish ends the log and returns every warning, ordered by line, followed by one
// summary per kind whose warnings exceeded MaxWarningsPerKind. Whatever is still open
// becomes one KindInterruptedTail problem at the last event (dsh would synthesize
// TOOL_NOT_STARTED / TOOL_OUTCOME_UNKNOWN results, step/end and turn/end{interrupted}
// on resume; an archive records the condition instead of inventing events). Calling
// Finish again returns the same problems; Observe must not be called after it.
func (c *Checker) Finish() []Problem {
	if c.done {
		return c.finished
	}
	c.done = true
	if c.expect != nil {
		c.warn(KindCompaction, c.expect.line, c.expect.seq, "the log ends right after %s (seq %d) without its %s",
			c.expect.source(), c.expect.seq, c.expect.wanted())
		c.expect = nil
	}
	if items := c.openItems(true); len(items) > 0 && c.observed {
		c.warn(KindInterruptedTail, c.lastLine, c.lastSeq, "interrupted tail: the log ends after %s (seq %d) mid-activity: %s",
			c.lastType, c.lastSeq, strings.Join(items, "; "))
	}
	for _, id := range sortedKeys(c.approvals) {
		if a := c.approvals[id]; !c.turnOpen || a.turn != c.turn {
			c.warn(KindUnpairedApproval, a.line, a.seq, "approval/asked %s for tool %q (seq %d) was never decided", id, a.name, a.seq)
		}
	}
	if !c.turnOpen {
		for _, id := range sortedKeys(c.commands) {
			if cm := c.commands[id]; cm.seq < c.lastTurnEndSeq {
				c.warn(KindUnpairedCommand, cm.line, cm.seq, "command/run %s %q (seq %d) never got a command/done", id, cm.name, cm.seq)
			}
		}
	}
	for _, t := range c.tallyOrder {
		c.counts[t.key.kind]++
		if c.counts[t.key.kind] > MaxWarningsPerKind {
			continue
		}
		c.out = append(c.out, Problem{Kind: t.key.kind, Line: t.firstLine, Offset: -1, Seq: t.firstSeq, Message: t.message()})
	}
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Line < c.out[j].Line })
	kinds := make([]string, 0, len(c.counts))
	for k, n := range c.counts {
		if n > MaxWarningsPerKind {
			kinds = append(kinds, string(k))
		}
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		n := c.counts[Kind(k)]
		c.out = append(c.out, Problem{Kind: Kind(k), Offset: -1,
			Message: fmt.Sprintf("%d more %s findings not listed (%d in total; only the first %d are kept)", n-MaxWarningsPerKind, k, n, MaxWarningsPerKind)})
	}
	c.finished = c.out
	return c.finished
}

// message renders a tally for people.
func (t *tally) message() string {
	if t.key.kind == KindUnknownEvent {
		ign := "none marked ignorable, so dsh would refuse the log"
		switch {
		case t.ignorableCount == t.count:
			ign = "all marked ignorable:true, so dsh skips them"
		case t.ignorableCount > 0:
			ign = fmt.Sprintf("%d marked ignorable:true; dsh refuses the others", t.ignorableCount)
		}
		return fmt.Sprintf("unknown event type %q: %d %s (first at seq %d), %s; outside the closed V0 inventory, stored opaquely",
			t.key.label, t.count, plural(int(t.count), "event", "events"), t.firstSeq, ign)
	}
	return fmt.Sprintf("legacy %s: %d %s (first at seq %d): %s", t.key.label, t.count, plural(int(t.count), "event", "events"), t.firstSeq, t.note)
}

// deref reads an optional string.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// sortedKeys returns map keys in order of their opening seq, for stable messages.
func sortedKeys(m map[string]openPair) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]].seq < m[keys[j]].seq })
	return keys
}

// sortedToolIDs returns call ids in advertisement (or start) order.
func sortedToolIDs(m map[string]*toolCall) []string {
	ids := make([]string, 0, len(m))
	for k := range m {
		ids = append(ids, k)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := m[ids[i]], m[ids[j]]
		ka, kb := a.callSeq, b.callSeq
		if !a.started {
			ka = a.advertSeq
		}
		if !b.started {
			kb = b.advertSeq
		}
		if ka != kb {
			return ka < kb
		}
		return ids[i] < ids[j]
	})
	return ids
}
