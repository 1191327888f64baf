package openhands

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Project builds the neutral projection of records, in order. It pairs
// results with calls by action id, falling back to the tool call id (V0: by
// cause), and groups parallel calls by LLM response id. Condensations are
// listed, never applied: every event stays in the projection.
func Project(records []Record) Projection {
	p := &projector{byAction: map[string]int{}, byToolCall: map[string]int{}}
	for _, r := range records {
		f, ok := r.decoded()
		if !ok {
			p.Other = append(p.Other, Opaque{Ref: ref(r), Kind: r.Event.Kind, Known: r.Event.Known})
			continue
		}
		if r.Event.Dialect == DialectV0 {
			p.v0(r, f)
		} else {
			p.v1(r, f)
		}
	}
	p.group()
	return p.Projection
}

type projector struct {
	Projection
	byAction   map[string]int // action event id → index in ToolCalls
	byToolCall map[string]int // tool call id → index in ToolCalls
	groupOrder []string
	groups     map[string][]string
}

func ref(r Record) Ref { return Ref{Index: r.Index, EventID: r.Event.ID} }

func (p *projector) v1(r Record, f *full) {
	ev := r.Event
	switch ev.Kind {
	case "MessageEvent":
		p.message(r, f)
	case "SystemPromptEvent":
		t, _ := f.SystemPrompt.text()
		p.System = append(p.System, Message{Ref: ref(r), Role: "system", Text: t})
	case "ActionEvent":
		p.action(r, f)
	case "ObservationEvent":
		o := f.observation()
		text, isErr := o.text()
		res := ToolResult{Ref: ref(r), Kind: ResultObservation, ObservationKind: Normalize(o.Kind),
			ActionID: f.ActionID, ToolCallID: f.ToolCallID, Text: text, IsError: isErr, ExitCode: o.ExitCode}
		p.result(res)
		if o.Kind == "TaskTrackerObservation" || len(o.TaskList) > 0 {
			p.Tasks = append(p.Tasks, TaskList{Ref: ref(r), Command: o.Command, Tasks: o.TaskList})
		}
	case "UserRejectObservation":
		p.result(ToolResult{Ref: ref(r), Kind: ResultRejection, ActionID: f.ActionID, ToolCallID: f.ToolCallID,
			Text: f.RejectionReason, IsError: true})
		p.Approvals = append(p.Approvals, Approval{Ref: ref(r), Decision: ApprovalRejected, ActionID: f.ActionID,
			Reason: f.RejectionReason, By: firstNonEmpty(f.RejectionSource, "user")})
	case "AgentErrorEvent":
		p.result(ToolResult{Ref: ref(r), Kind: ResultError, ActionID: f.ActionID, ToolCallID: f.ToolCallID,
			Text: stringOf(f.Error), IsError: true})
	case "Condensation":
		p.Compactions = append(p.Compactions, Compaction{Ref: ref(r), Forgotten: nonNil(f.ForgottenEventIDs),
			Summary: stringOf(f.Summary), SummaryOffset: f.SummaryOffset})
	case "ConversationStateUpdateEvent":
		p.state(r, f)
	case "ACPToolCallEvent":
		p.acpCall(r, f)
	case "HookExecutionEvent":
		if f.Blocked {
			p.Approvals = append(p.Approvals, Approval{Ref: ref(r), Decision: ApprovalBlocked, ActionID: f.ActionID,
				Reason: firstNonEmpty(f.Reason, f.HookEventType), By: "hook"})
		} else {
			p.Other = append(p.Other, Opaque{Ref: ref(r), Kind: r.Event.Kind, Known: r.Event.Known})
		}
	case "ConversationErrorEvent", "ServerErrorEvent":
		p.Errors = append(p.Errors, ErrorItem{Ref: ref(r), Code: f.Code, Detail: f.Detail})
	default:
		p.Other = append(p.Other, Opaque{Ref: ref(r), Kind: ev.Kind, Known: ev.Known})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (p *projector) message(r Record, f *full) {
	m := Message{Ref: ref(r), Role: role(r.Event.Source), Sender: f.Sender, ResponseID: f.LLMResponseID,
		Critic: len(f.CriticResult) > 0 && string(f.CriticResult) != "null"}
	if f.LLMMessage != nil {
		m.Text, m.Images = f.LLMMessage.Content.text()
		p.reasoning(r, f.LLMMessage.reasoningFields, m.Text)
	}
	p.Messages = append(p.Messages, m)
}

// role maps an event source to a message role.
func role(source string) string {
	if source == "user" {
		return "user"
	}
	return "agent"
}

var thinkTag = regexp.MustCompile(`(?s)<think>(.*?)</think>`)

// reasoning appends the reasoning of one event, each distinct text once.
func (p *projector) reasoning(r Record, rf reasoningFields, visible string) {
	seen := map[string]bool{}
	add := func(src ReasoningSource, text string) {
		key := strings.TrimSpace(text)
		if key == "" || seen[key] {
			return
		}
		seen[key] = true
		p.Reasoning = append(p.Reasoning, Reasoning{Ref: ref(r), Source: src, Text: text})
	}
	add(ReasoningContent, rf.ReasoningContent)
	for _, tb := range rf.ThinkingBlocks {
		if tb.Type == "redacted_thinking" {
			p.Reasoning = append(p.Reasoning, Reasoning{Ref: ref(r), Source: ReasoningRedacted})
			continue
		}
		add(ReasoningThinking, tb.Thinking)
	}
	if it := rf.ResponsesReasoningItem; it != nil {
		for _, s := range it.Summary {
			add(ReasoningSummary, s)
		}
	}
	for _, m := range thinkTag.FindAllStringSubmatch(visible, -1) {
		add(ReasoningThinkTag, m[1])
	}
}

func (p *projector) action(r Record, f *full) {
	thought, _ := f.Thought.text()
	p.reasoning(r, f.reasoningFields, thought)
	call := ToolCall{Ref: ref(r), ToolCallID: f.ToolCallID, RawName: f.ToolName, Name: Normalize(f.ToolName),
		ActionKind: Normalize(r.Event.Action), Thought: strings.TrimSpace(thinkTag.ReplaceAllString(thought, "")),
		Summary: stringOf(f.Summary), ResponseID: f.LLMResponseID, SecurityRisk: f.SecurityRisk}
	switch {
	case len(f.Action) > 0 && string(f.Action) != "null":
		call.Arguments = f.Action
	case f.ToolCall != nil:
		args := f.ToolCall.Arguments
		if f.ToolCall.Function != nil {
			args = f.ToolCall.Function.Arguments
		}
		if json.Valid([]byte(args)) {
			call.Arguments = json.RawMessage(args)
		}
	}
	act := f.action()
	if call.ActionKind == "TaskTrackerAction" && act.Command == "plan" {
		p.Tasks = append(p.Tasks, TaskList{Ref: ref(r), Command: act.Command, Tasks: act.TaskList})
	}
	if f.SecurityRisk != "" && f.SecurityRisk != "UNKNOWN" {
		p.Approvals = append(p.Approvals, Approval{Ref: ref(r), Decision: ApprovalRisk, ActionID: r.Event.ID, Risk: f.SecurityRisk})
	}
	p.addCall(call)
}

// acpCall projects a third-party (ACP) agent's tool call, which carries its
// own input and output. A later event with the same tool call id is a status
// update of that call: its output replaces the result.
func (p *projector) acpCall(r Record, f *full) {
	var res *ToolResult
	if (len(f.RawOutput) > 0 && string(f.RawOutput) != "null") || f.Status == "completed" || f.Status == "failed" || f.IsError {
		text := stringOf(f.RawOutput)
		if text == "" && len(f.RawOutput) > 0 && string(f.RawOutput) != "null" {
			text = string(f.RawOutput)
		}
		res = &ToolResult{Ref: ref(r), Kind: ResultObservation, ToolCallID: f.ToolCallID, Text: text,
			IsError: f.IsError || f.Status == "failed"}
		if res.IsError {
			res.Kind = ResultError
		}
	}
	if i, ok := p.byToolCall[f.ToolCallID]; ok && f.ToolCallID != "" && p.ToolCalls[i].ActionKind == "ACPToolCallEvent" {
		if res != nil {
			p.ToolCalls[i].Result = res
		}
		return
	}
	call := ToolCall{Ref: ref(r), ToolCallID: f.ToolCallID, Name: firstNonEmpty(f.ToolKind, f.Title), RawName: f.Title,
		ActionKind: "ACPToolCallEvent", Result: res}
	if len(f.RawInput) > 0 && string(f.RawInput) != "null" {
		call.Arguments = f.RawInput
	}
	p.addCall(call)
}

func (p *projector) addCall(call ToolCall) {
	i := len(p.ToolCalls)
	p.ToolCalls = append(p.ToolCalls, call)
	p.byAction[call.EventID] = i
	if call.ToolCallID != "" {
		if _, dup := p.byToolCall[call.ToolCallID]; !dup {
			p.byToolCall[call.ToolCallID] = i
		}
	}
	if call.ResponseID != "" {
		if p.groups == nil {
			p.groups = map[string][]string{}
		}
		if _, ok := p.groups[call.ResponseID]; !ok {
			p.groupOrder = append(p.groupOrder, call.ResponseID)
		}
		p.groups[call.ResponseID] = append(p.groups[call.ResponseID], call.EventID)
	}
}

// result pairs res with its call by action id, then tool call id; a second
// result for the same call, or one with no call, is an orphan.
func (p *projector) result(res ToolResult) {
	i, ok := p.byAction[res.ActionID]
	if !ok && res.ToolCallID != "" {
		i, ok = p.byToolCall[res.ToolCallID]
	}
	if !ok || p.ToolCalls[i].Result != nil {
		p.Orphans = append(p.Orphans, res)
		return
	}
	p.ToolCalls[i].Result = &res
}

func (p *projector) state(r Record, f *full) {
	st := State{Ref: ref(r), Key: f.Key, Value: f.Value}
	switch f.Key {
	case "execution_status":
		st.Status = stringOf(f.Value)
		if st.Status == "waiting_for_confirmation" {
			p.Approvals = append(p.Approvals, Approval{Ref: ref(r), Decision: ApprovalRequested})
		}
	case "stats":
		var s statsJSON
		if json.Unmarshal(f.Value, &s) == nil {
			u := s.sum()
			st.Usage = &u
		}
	case "confirmation_policy":
		var k kindOnly
		_ = json.Unmarshal(f.Value, &k)
		p.Approvals = append(p.Approvals, Approval{Ref: ref(r), Decision: ApprovalPolicy, By: k.Kind})
	}
	p.States = append(p.States, st)
}

// group keeps the response ids that made two or more calls.
func (p *projector) group() {
	for _, id := range p.groupOrder {
		if ids := p.groups[id]; len(ids) > 1 {
			p.Groups = append(p.Groups, CallGroup{ResponseID: id, EventIDs: ids})
		}
	}
}

// v0Args are the V0 action arguments Project reads.
type v0Args struct {
	Content           string   `json:"content"`
	AgentState        string   `json:"agent_state"`
	ForgottenEventIDs []int64  `json:"forgotten_event_ids"`
	ForgottenStart    *int64   `json:"forgotten_events_start_id"`
	ForgottenEnd      *int64   `json:"forgotten_events_end_id"`
	Summary           string   `json:"summary"`
	SummaryOffset     *int     `json:"summary_offset"`
	TaskList          []Task   `json:"task_list"`
	Command           string   `json:"command"`
	Name              string   `json:"name"`
	Thought           string   `json:"thought"`
	ImageURLs         []string `json:"image_urls"`
}

func (p *projector) v0(r Record, f *full) {
	ev := r.Event
	var args v0Args
	_ = json.Unmarshal(f.Args, &args)
	if ev.Kind == "observation" {
		p.v0Observation(r, f)
		return
	}
	switch ev.Action {
	case "message":
		p.Messages = append(p.Messages, Message{Ref: ref(r), Role: role(ev.Source),
			Text: firstNonEmpty(args.Content, f.Message), Images: len(args.ImageURLs)})
	case "system":
		p.System = append(p.System, Message{Ref: ref(r), Role: "system", Text: firstNonEmpty(args.Content, f.Message)})
	case "condensation":
		c := Compaction{Ref: ref(r), Forgotten: []string{}, RangeStart: args.ForgottenStart, RangeEnd: args.ForgottenEnd,
			Summary: args.Summary, SummaryOffset: args.SummaryOffset}
		for _, id := range args.ForgottenEventIDs {
			c.Forgotten = append(c.Forgotten, strconv.FormatInt(id, 10))
		}
		p.Compactions = append(p.Compactions, c)
	case "change_agent_state":
		p.States = append(p.States, State{Ref: ref(r), Key: "agent_state", Status: args.AgentState, Value: f.Args})
	default:
		tool, isTool := v0Tools[ev.Action]
		if !isTool {
			p.Other = append(p.Other, Opaque{Ref: ref(r), Kind: "action:" + ev.Action, Known: ev.Known})
			return
		}
		call := ToolCall{Ref: ref(r), Name: tool, RawName: ev.Action, ActionKind: ev.Action, Arguments: f.Args, Thought: args.Thought}
		if m := f.ToolCallMetadata; m != nil {
			call.ToolCallID, call.RawName, call.Name = m.ToolCallID, m.FunctionName, Normalize(m.FunctionName)
			if m.ModelResponse != nil {
				call.ResponseID = m.ModelResponse.ID
			}
		}
		if ev.Action == "call_tool_mcp" && args.Name != "" && f.ToolCallMetadata == nil {
			call.Name = args.Name
		}
		if ev.Action == "task_tracking" {
			p.Tasks = append(p.Tasks, TaskList{Ref: ref(r), Command: args.Command, Tasks: args.TaskList})
		}
		p.addCall(call)
	}
}

func (p *projector) v0Observation(r Record, f *full) {
	ev := r.Event
	text := stringOf(f.Content)
	var extras struct {
		AgentState string `json:"agent_state"`
		ExitCode   *int   `json:"exit_code"`
		Metadata   *struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(f.Extras, &extras)
	switch ev.Observation {
	case "agent_state_changed":
		p.States = append(p.States, State{Ref: ref(r), Key: "agent_state", Status: extras.AgentState, Value: f.Extras})
		return
	case "user_rejected":
		p.Approvals = append(p.Approvals, Approval{Ref: ref(r), Decision: ApprovalRejected, ActionID: ev.Cause, Reason: text, By: "user"})
		p.result(ToolResult{Ref: ref(r), Kind: ResultRejection, ActionID: ev.Cause, Text: text, IsError: true})
		return
	}
	if _, ok := p.byAction[ev.Cause]; !ok || ev.Cause == "" {
		if ev.Observation == "error" {
			p.Errors = append(p.Errors, ErrorItem{Ref: ref(r), Code: "error", Detail: text})
			return
		}
		p.Other = append(p.Other, Opaque{Ref: ref(r), Kind: "observation:" + ev.Observation, Known: ev.Known})
		return
	}
	res := ToolResult{Ref: ref(r), Kind: ResultObservation, ObservationKind: ev.Observation, ActionID: ev.Cause, Text: text,
		IsError: ev.Observation == "error", ExitCode: extras.ExitCode}
	if res.ExitCode == nil && extras.Metadata != nil {
		res.ExitCode = extras.Metadata.ExitCode
	}
	if ev.Observation == "error" {
		res.Kind = ResultError
	}
	p.result(res)
}
