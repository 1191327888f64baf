package dsh

// This file checks compaction brackets (start, summary, the replacing checkpoint message, end) and tool-result prunes.

import (
	"encoding/json"
	"fmt"
	"strings"
)

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
