package dsh

// This file checks turn/step nesting: turns numbered consecutively, steps from 1, and events that belong inside an open step.

import (
	"encoding/json"
	"fmt"
)

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
