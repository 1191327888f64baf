package dsh

// This file checks pairings by id: approvals asked and decided, commands run and done, retries scheduled and started.

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
