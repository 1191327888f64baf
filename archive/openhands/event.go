package openhands

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// header is the part of an event JSON that DecodeEvent reads.
type header struct {
	ID          json.RawMessage `json:"id"`
	Kind        string          `json:"kind"`
	Timestamp   string          `json:"timestamp"`
	Source      string          `json:"source"`
	ParentID    string          `json:"parent_id"`
	Action      json.RawMessage `json:"action"`
	Observation json.RawMessage `json:"observation"`
	Cause       json.RawMessage `json:"cause"`
}

type kindOnly struct {
	Kind string `json:"kind"`
}

// headerV1 is header for the common V1 case, decoded in one pass: action
// and observation are objects whose kind is read in place.
type headerV1 struct {
	ID          json.RawMessage `json:"id"`
	Kind        string          `json:"kind"`
	Timestamp   string          `json:"timestamp"`
	Source      string          `json:"source"`
	ParentID    string          `json:"parent_id"`
	Action      *kindOnly       `json:"action"`
	Observation *kindOnly       `json:"observation"`
}

// errNotObject is returned for JSON that is valid but not an object.
var errNotObject = errors.New("event is not a JSON object")

// DecodeEvent decodes the header fields of one event. It returns an error only
// when raw is not a JSON object; missing fields come back empty and are
// judged by the caller.
func DecodeEvent(raw []byte) (Event, error) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		if len(t) > 0 && json.Valid(t) {
			return Event{}, errNotObject
		}
	}
	var fast headerV1
	err := json.Unmarshal(raw, &fast)
	if err == nil && fast.Kind != "" {
		ev := Event{Dialect: DialectV1, ID: scalar(fast.ID), Kind: fast.Kind, Timestamp: fast.Timestamp, Source: fast.Source, ParentID: fast.ParentID}
		if fast.Action != nil {
			ev.Action = fast.Action.Kind
		}
		if fast.Observation != nil {
			ev.Observation = fast.Observation.Kind
		}
		ev.Known = knownKinds[ev.Kind] && knownAction(ev.Action) && knownObservation(ev.Observation)
		return ev, nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return Event{}, err
	}
	// V0 (action/observation are strings) or a V1 event of odd shape: the
	// slower, field-by-field path.
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return Event{}, err
	}
	ev := Event{
		ID:        scalar(h.ID),
		Kind:      h.Kind,
		Timestamp: h.Timestamp,
		Source:    h.Source,
		ParentID:  h.ParentID,
		Cause:     scalar(h.Cause),
	}
	act, actIsString := nested(h.Action)
	obs, obsIsString := nested(h.Observation)
	ev.Action, ev.Observation = act, obs
	switch {
	case h.Kind != "":
		ev.Dialect = DialectV1
		ev.Known = knownKinds[h.Kind] && knownAction(act) && knownObservation(obs)
	case actIsString:
		ev.Dialect, ev.Kind = DialectV0, "action"
		ev.Known = knownV0Actions[act]
	case obsIsString:
		ev.Dialect, ev.Kind = DialectV0, "observation"
		ev.Known = knownV0Observations[obs]
	default:
		ev.Dialect = DialectV1
	}
	return ev, nil
}

// scalar renders a JSON string or number as text; null and absent give "".
func scalar(m json.RawMessage) string {
	if len(m) == 0 || string(m) == "null" {
		return ""
	}
	if m[0] == '"' {
		var s string
		if json.Unmarshal(m, &s) == nil {
			return s
		}
		return ""
	}
	if _, err := strconv.ParseFloat(string(m), 64); err == nil {
		return string(m)
	}
	return ""
}

// nested returns action/observation's kind: the "kind" of an object (V1) or
// the string itself (V0, reported with isString).
func nested(m json.RawMessage) (name string, isString bool) {
	if len(m) == 0 || string(m) == "null" {
		return "", false
	}
	switch m[0] {
	case '"':
		var s string
		_ = json.Unmarshal(m, &s)
		return s, true
	case '{':
		var k kindOnly
		_ = json.Unmarshal(m, &k)
		return k.Kind, false
	}
	return "", false
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// KnownKind reports whether kind is the class name of a V1 event (doc §1.2).
func KnownKind(kind string) bool { return knownKinds[kind] }

// knownKinds are the V1 event classes of doc §1.2.
var knownKinds = set(
	"SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent",
	"UserRejectObservation", "AgentErrorEvent", "Condensation",
	"CondensationRequest", "CondensationSummaryEvent",
	"ConversationStateUpdateEvent", "ConversationErrorEvent", "PauseEvent",
	"InterruptEvent", "HookExecutionEvent", "ACPToolCallEvent",
	"LLMCompletionLogEvent", "TokenEvent", "StreamingDeltaEvent", "ServerErrorEvent",
)

// knownActions are the V1 action kinds of doc §1.4 and §6 (legacy names too).
var knownActions = set(
	"TerminalAction", "ExecuteBashAction", "FileEditorAction", "StrReplaceEditorAction",
	"TaskTrackerAction", "ThinkAction", "FinishAction", "MCPToolAction",
	"BrowserNavigateAction", "BrowserClickAction", "BrowserTypeAction",
	"BrowserGetStateAction", "BrowserGetContentAction", "BrowserScrollAction",
	"BrowserGoBackAction", "BrowserListTabsAction", "BrowserSwitchTabAction",
	"BrowserCloseTabAction", "BrowserGetStorageAction", "BrowserSetStorageAction",
	"BrowserStartRecordingAction", "BrowserStopRecordingAction",
	"GlobAction", "GrepAction", "ApplyPatchAction", "DelegateAction", "TaskAction",
	"PlanningFileEditorAction", "ReadFileAction", "WriteFileAction", "EditAction",
	"ListDirectoryAction", "VisionInspectAction", "InvokeSkillAction",
	"SwitchLLMAction", "ConsultTomAction", "WorkflowAction",
)

func knownAction(k string) bool {
	return k == "" || knownActions[k] || strings.HasPrefix(k, "ClientAction_")
}

func knownObservation(k string) bool {
	if k == "" || k == "BrowserObservation" || k == "ClientToolObservation" {
		return true
	}
	base, ok := strings.CutSuffix(k, "Observation")
	if !ok {
		return false
	}
	return knownActions[base+"Action"] || strings.HasPrefix(base, "ClientAction_")
}

// knownV0Actions and knownV0Observations are the V0 types of doc §4.
var knownV0Actions = set(
	"message", "system", "run", "run_ipython", "read", "write", "edit", "browse",
	"browse_interactive", "call_tool_mcp", "think", "finish", "reject", "delegate",
	"recall", "condensation", "change_agent_state", "task_tracking", "null",
	"condensation_request", "start", "pause", "resume", "stop",
)

var knownV0Observations = set(
	"run", "run_ipython", "read", "write", "edit", "browse", "error",
	"agent_state_changed", "null", "mcp", "think", "recall", "condense",
	"user_rejected", "delegate", "success", "task_tracking", "download",
	"file_download", "loop_detection",
)
