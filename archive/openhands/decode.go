package openhands

import (
	"encoding/json"
	"strings"
)

// block is one content block: text or image.
type block struct {
	Type      string   `json:"type"`
	Text      string   `json:"text"`
	ImageURLs []string `json:"image_urls"`
}

// blocks is a content list that also accepts a bare string or null, as the
// SDK does, and a single TextContent object (system_prompt).
type blocks []block

func (b *blocks) UnmarshalJSON(data []byte) error {
	switch {
	case len(data) == 0 || string(data) == "null":
		*b = nil
		return nil
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*b = blocks{{Type: "text", Text: s}}
		return nil
	case data[0] == '{':
		var one block
		if err := json.Unmarshal(data, &one); err != nil {
			return err
		}
		*b = blocks{one}
		return nil
	}
	var l []block
	if err := json.Unmarshal(data, &l); err != nil {
		return err
	}
	*b = l
	return nil
}

func (b blocks) text() (string, int) {
	var parts []string
	images := 0
	for _, x := range b {
		if x.Type == "image" || len(x.ImageURLs) > 0 {
			images += max(1, len(x.ImageURLs))
			continue
		}
		parts = append(parts, x.Text)
	}
	return strings.Join(parts, "\n"), images
}

type thinkingBlock struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type responsesItem struct {
	Summary []string `json:"summary"`
	Content []string `json:"content"`
}

// reasoningFields are the reasoning fields of ActionEvent and Message.
type reasoningFields struct {
	ReasoningContent       string          `json:"reasoning_content"`
	ThinkingBlocks         []thinkingBlock `json:"thinking_blocks"`
	ResponsesReasoningItem *responsesItem  `json:"responses_reasoning_item"`
}

type llmMessage struct {
	Role    string `json:"role"`
	Content blocks `json:"content"`
	reasoningFields
}

// full is every field Project reads from an event of any kind or dialect.
type full struct {
	common
	LLMMessage   *llmMessage     `json:"llm_message"`
	SystemPrompt blocks          `json:"system_prompt"`
	Thought      blocks          `json:"thought"`
	Action       json.RawMessage `json:"action"`
	Observation  json.RawMessage `json:"observation"`

	// obs and act are the observation and the action as the one-pass decoder
	// (decodeFast) read them; nil when it did not, and Observation or Action
	// is decoded when asked.
	obs *observationJSON
	act *actionFields
}

// common are the fields of full whose types every shape of event decodes
// alike: the one-pass decoder shares them.
type common struct {
	reasoningFields
	Sender       string          `json:"sender"`
	CriticResult json.RawMessage `json:"critic_result"`

	ToolName      string          `json:"tool_name"`
	ToolCallID    string          `json:"tool_call_id"`
	ToolCall      *toolCallJSON   `json:"tool_call"`
	LLMResponseID string          `json:"llm_response_id"`
	SecurityRisk  string          `json:"security_risk"`
	Summary       json.RawMessage `json:"summary"`

	ActionID        string          `json:"action_id"`
	RejectionReason string          `json:"rejection_reason"`
	RejectionSource string          `json:"rejection_source"`
	Error           json.RawMessage `json:"error"`

	ForgottenEventIDs []string `json:"forgotten_event_ids"`
	SummaryOffset     *int     `json:"summary_offset"`

	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`

	Code   string `json:"code"`
	Detail string `json:"detail"`

	// ACPToolCallEvent and HookExecutionEvent fields.
	Title         string          `json:"title"`
	Status        string          `json:"status"`
	ToolKind      string          `json:"tool_kind"`
	RawInput      json.RawMessage `json:"raw_input"`
	RawOutput     json.RawMessage `json:"raw_output"`
	IsError       bool            `json:"is_error"`
	HookEventType string          `json:"hook_event_type"`
	Blocked       bool            `json:"blocked"`
	Reason        string          `json:"reason"`

	// V0 fields.
	Message          string          `json:"message"`
	Args             json.RawMessage `json:"args"`
	Content          json.RawMessage `json:"content"`
	Extras           json.RawMessage `json:"extras"`
	ToolCallMetadata *struct {
		FunctionName  string `json:"function_name"`
		ToolCallID    string `json:"tool_call_id"`
		ModelResponse *struct {
			ID string `json:"id"`
		} `json:"model_response"`
	} `json:"tool_call_metadata"`
}

// actionFields are what Project and DecodeEvent read of an action object.
type actionFields struct {
	Kind     string `json:"kind"`
	Command  string `json:"command"`
	TaskList []Task `json:"task_list"`
}

// observation is the event's observation object (zero when it has none).
func (f *full) observation() observationJSON {
	if f.obs != nil {
		return *f.obs
	}
	var o observationJSON
	_ = json.Unmarshal(f.Observation, &o)
	return o
}

// action is the event's action object's command fields.
func (f *full) action() actionFields {
	if f.act != nil {
		return *f.act
	}
	var a actionFields
	_ = json.Unmarshal(f.Action, &a)
	return a
}

type toolCallJSON struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Function  *struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// observationJSON covers current and pre-1.0 observation shapes.
type observationJSON struct {
	observationFields
	Content blocks `json:"content"`
}

// observationFields are the fields of an observation other than its content.
type observationFields struct {
	Kind     string          `json:"kind"`
	IsError  *bool           `json:"is_error"`
	Output   string          `json:"output"`
	Error    json.RawMessage `json:"error"`
	Message  string          `json:"message"`
	ExitCode *int            `json:"exit_code"`
	TaskList []Task          `json:"task_list"`
	Command  string          `json:"command"`
}

// text returns the observation's text and whether it reports an error:
// content when present, else the legacy output/message/error fields.
func (o observationJSON) text() (string, bool) {
	legacyErr, legacyMsg := legacyError(o.Error)
	isErr := legacyErr
	if o.IsError != nil {
		isErr = *o.IsError
	}
	if t, _ := o.Content.text(); t != "" || o.Content != nil {
		return t, isErr
	}
	return firstNonEmpty(o.Output, o.Message, legacyMsg), isErr
}

// legacyError reads the pre-1.0 "error" field: true or a non-empty string is
// an error; false and "" are not.
func legacyError(raw json.RawMessage) (bool, string) {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s != "", s
	}
	return false, ""
}

// stringOf reads a JSON string, or returns "" for anything else.
func stringOf(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// legacyNames maps pre-1.0 tool and kind names to current ones (doc §1.4, §6).
var legacyNames = map[string]string{
	"execute_bash":                "terminal",
	"str_replace_editor":          "file_editor",
	"ExecuteBashAction":           "TerminalAction",
	"ExecuteBashObservation":      "TerminalObservation",
	"StrReplaceEditorAction":      "FileEditorAction",
	"StrReplaceEditorObservation": "FileEditorObservation",
}

// Normalize maps a legacy tool or kind name to its current name.
func Normalize(name string) string {
	if n, ok := legacyNames[name]; ok {
		return n
	}
	return name
}

// v0Tools names the tool behind a V0 action type.
var v0Tools = map[string]string{
	"run": "terminal", "run_ipython": "ipython", "read": "file_editor", "write": "file_editor",
	"edit": "file_editor", "browse": "browser", "browse_interactive": "browser",
	"call_tool_mcp": "mcp", "think": "think", "finish": "finish", "task_tracking": "task_tracker",
	"delegate": "delegate",
}

// messageText is the text of a MessageEvent or a V0 message action.
func messageText(r Record) string {
	f, ok := r.decoded()
	if !ok {
		return ""
	}
	if f.LLMMessage != nil {
		t, _ := f.LLMMessage.Content.text()
		return t
	}
	var args struct {
		Content string `json:"content"`
	}
	_ = json.Unmarshal(f.Args, &args)
	return firstNonEmpty(args.Content, f.Message)
}
