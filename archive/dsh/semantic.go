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

// ObserveRow checks a packed row read with Options.CompactRows exactly as Observe of
// each of its members in turn would: only the first member can draw a finding (the
// others share its turn and step, and a misplaced run is reported once), and the
// last becomes the latest event.
func (c *Checker) ObserveRow(row *PackedRow, line int64) {
	chunk := row.Chunk
	c.Observe(&Event{Seq: row.Seq0, Time: row.Time0, Type: "assistant/chunk", Chunk: &chunk}, line)
	c.lastSeq = row.Seq0 + row.Count - 1
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

// observeTitle checks that titles cite earlier human prompts (none for a manual title).
func (c *Checker) observeTitle(ev *Event, line int64) {
	var d struct {
		MessageSeqs []int64 `json:"messageSeqs"`
		Source      struct{ Kind string }
	}
	if !titleFields(ev.Data, &d.MessageSeqs, &d.Source.Kind) {
		d.MessageSeqs, d.Source.Kind = nil, ""
		if !decode(ev.Data, &d) {
			return
		}
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
