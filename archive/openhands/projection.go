package openhands

import "encoding/json"

// Projection is a neutral, format-independent view of a conversation's
// events. Every element carries the Index of its Record and the event id, so
// a consumer can interleave the lists back into conversation order.
type Projection struct {
	// System holds system prompts (SystemPromptEvent, V0 "system").
	System []Message `json:"system,omitempty"`
	// Messages holds user and agent messages.
	Messages []Message `json:"messages,omitempty"`
	// Reasoning holds model reasoning: reasoning_content, thinking blocks,
	// Responses reasoning summaries and <think> text.
	Reasoning []Reasoning `json:"reasoning,omitempty"`
	// ToolCalls holds tool calls with their results paired in.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Groups lists parallel calls: two or more calls from one LLM reply.
	Groups []CallGroup `json:"groups,omitempty"`
	// Orphans holds results that answer no call in this conversation.
	Orphans []ToolResult `json:"orphans,omitempty"`
	// Compactions holds condensations.
	Compactions []Compaction `json:"compactions,omitempty"`
	// Approvals holds confirmation requests, risk ratings, policies and
	// rejections.
	Approvals []Approval `json:"approvals,omitempty"`
	// States holds conversation state changes (status, stats, other keys).
	States []State `json:"states,omitempty"`
	// Tasks holds task-tracker lists.
	Tasks []TaskList `json:"tasks,omitempty"`
	// Errors holds conversation-level errors.
	Errors []ErrorItem `json:"errors,omitempty"`
	// Other holds events that fit none of the above, known or not; their
	// raw JSON stays in the Record.
	Other []Opaque `json:"other,omitempty"`
}

// Ref points at the record an element came from.
type Ref struct {
	Index   int    `json:"index"`
	EventID string `json:"event_id"`
}

// Message is a user, agent or system message.
type Message struct {
	Ref
	// Role is "user", "agent" or "system".
	Role string `json:"role"`
	Text string `json:"text"`
	// Images counts image blocks (their URLs stay in the raw event).
	Images int `json:"images,omitempty"`
	// Sender names another agent that sent the message, if any.
	Sender string `json:"sender,omitempty"`
	// Critic is true when the message carries a critic_result.
	Critic bool `json:"critic,omitempty"`
	// ResponseID is the LLM response id of an agent message.
	ResponseID string `json:"response_id,omitempty"`
}

// ReasoningSource names where reasoning text came from.
type ReasoningSource string

// The reasoning sources.
const (
	ReasoningContent  ReasoningSource = "reasoning_content"
	ReasoningThinking ReasoningSource = "thinking_block"
	ReasoningRedacted ReasoningSource = "redacted_thinking"
	ReasoningSummary  ReasoningSource = "responses_summary"
	ReasoningThinkTag ReasoningSource = "think_tag"
)

// Reasoning is one piece of model reasoning. Text repeated within one event
// (the same thought as reasoning_content and as a thinking block) is kept once.
type Reasoning struct {
	Ref
	Source ReasoningSource `json:"source"`
	Text   string          `json:"text"`
}

// ToolCall is one tool call (ActionEvent, V0 tool action) and its result.
type ToolCall struct {
	Ref
	// ToolCallID is the LLM's tool call id.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool name with legacy names normalised
	// (execute_bash → terminal, str_replace_editor → file_editor).
	Name string `json:"name"`
	// RawName is the tool name as written.
	RawName string `json:"raw_name,omitempty"`
	// ActionKind is the action kind, normalised like Name
	// (ExecuteBashAction → TerminalAction); empty when the call could not be
	// turned into an action.
	ActionKind string `json:"action_kind,omitempty"`
	// Arguments is the action object, or the raw tool-call arguments when
	// there is no action.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Thought is the text the model wrote with the call.
	Thought string `json:"thought,omitempty"`
	Summary string `json:"summary,omitempty"`
	// ResponseID is the LLM response id; parallel calls share it.
	ResponseID   string      `json:"response_id,omitempty"`
	SecurityRisk string      `json:"security_risk,omitempty"`
	Result       *ToolResult `json:"result,omitempty"`
}

// ResultKind tells observations, errors and rejections apart.
type ResultKind string

// The result kinds.
const (
	ResultObservation ResultKind = "observation"
	ResultError       ResultKind = "error"
	ResultRejection   ResultKind = "rejection"
)

// ToolResult answers a ToolCall.
type ToolResult struct {
	Ref
	Kind ResultKind `json:"kind"`
	// ObservationKind is the observation kind, normalised like ToolCall.ActionKind.
	ObservationKind string `json:"observation_kind,omitempty"`
	// ActionID and ToolCallID are what the result names as its call.
	ActionID   string `json:"action_id,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Text       string `json:"text"`
	IsError    bool   `json:"is_error"`
	ExitCode   *int   `json:"exit_code,omitempty"`
}

// CallGroup lists the calls (by event id) one LLM reply made in parallel.
type CallGroup struct {
	ResponseID string   `json:"response_id"`
	EventIDs   []string `json:"event_ids"`
}

// Compaction is a Condensation: events dropped from the LLM's view and the
// summary that replaced them. The archive keeps the events themselves.
type Compaction struct {
	Ref
	// Forgotten lists the forgotten event ids.
	Forgotten []string `json:"forgotten"`
	// RangeStart and RangeEnd are V0's range form, when used.
	RangeStart    *int64 `json:"range_start,omitempty"`
	RangeEnd      *int64 `json:"range_end,omitempty"`
	Summary       string `json:"summary,omitempty"`
	SummaryOffset *int   `json:"summary_offset,omitempty"`
}

// ApprovalDecision names an approval-related fact.
type ApprovalDecision string

// The approval decisions.
const (
	// ApprovalRequested: the conversation waits for the user to confirm.
	ApprovalRequested ApprovalDecision = "requested"
	// ApprovalRejected: the user (or a hook) rejected an action.
	ApprovalRejected ApprovalDecision = "rejected"
	// ApprovalRisk: the model rated an action's risk (not UNKNOWN).
	ApprovalRisk ApprovalDecision = "risk"
	// ApprovalPolicy: the confirmation policy changed.
	ApprovalPolicy ApprovalDecision = "policy"
	// ApprovalBlocked: a hook blocked an action or message.
	ApprovalBlocked ApprovalDecision = "blocked"
)

// Approval is one fact of confirmation mode.
type Approval struct {
	Ref
	Decision ApprovalDecision `json:"decision"`
	// ActionID is the action concerned, when there is one.
	ActionID string `json:"action_id,omitempty"`
	Risk     string `json:"risk,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// By is the rejection source ("user", "hook") or the policy kind.
	By string `json:"by,omitempty"`
}

// State is one conversation state change.
type State struct {
	Ref
	// Key is the state field ("execution_status", "stats", V0 "agent_state").
	Key string `json:"key"`
	// Status is set for execution_status and V0 agent states.
	Status string `json:"status,omitempty"`
	// Usage is set for stats, summed over usage buckets.
	Usage *Usage `json:"usage,omitempty"`
	// Value is the raw value.
	Value json.RawMessage `json:"value,omitempty"`
}

// TaskList is a task tracker's list as planned or viewed.
type TaskList struct {
	Ref
	Command string `json:"command,omitempty"`
	Tasks   []Task `json:"tasks"`
}

// Task is one task-tracker item.
type Task struct {
	Title  string `json:"title"`
	Notes  string `json:"notes,omitempty"`
	Status string `json:"status,omitempty"`
}

// ErrorItem is a conversation-level error.
type ErrorItem struct {
	Ref
	Code   string `json:"code,omitempty"`
	Detail string `json:"detail"`
}

// Opaque is an event kept as is.
type Opaque struct {
	Ref
	Kind  string `json:"kind"`
	Known bool   `json:"known"`
}
