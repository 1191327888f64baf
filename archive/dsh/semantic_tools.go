package dsh

// This file checks the tool-call lifecycle (advertised, started, resolved by callId) and the message events around it.

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
	d, ok := readAssistantMessage(ev.Data)
	if !ok {
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
	d, ok := readToolResult(ev.Data)
	if !ok {
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
	if !userMessageFields(ev.Data, &d.ID, &d.Source) {
		d.ID, d.Source = nil, messageSource{}
		if !decode(ev.Data, &d) {
			return
		}
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
