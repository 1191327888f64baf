package openhandsgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// event is one generated event.
type event struct {
	id   string
	kind string // V1 kind, or "action"/"observation" for V0
	o    obj
	ts   time.Time
}

// gen holds the state of one generation.
type gen struct {
	r      *rand.Rand
	opt    Options
	f      *Facts
	clock  time.Time
	events []event
	v0id   int
	nulls  bool // write null members, as model_dump(mode="json") does
}

func (g *gen) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// tick advances the clock and renders it as OpenHands does: naive local
// time, microseconds dropped when they are zero.
func (g *gen) tick() (time.Time, string) {
	g.clock = g.clock.Add(time.Duration(200+g.r.IntN(3000)) * time.Millisecond).Add(time.Duration(1+g.r.IntN(999)) * time.Microsecond)
	return g.clock, stamp(g.clock)
}

func stamp(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}

var words = strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima
mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu
build test parse index cache query render fetch merge split count verify 日志 検索 façade naïve`)

// text makes a sentence of n words, unique within the conversation by a
// running number so that reasoning texts never collapse into one.
func (g *gen) text(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[g.r.IntN(len(words))]
	}
	return fmt.Sprintf("%s (%d)", strings.Join(w, " "), len(g.events))
}

// add appends a V1 event: base fields, then fields, then kind last as the
// SDK writes it.
func (g *gen) add(kind, source string, fields obj) string {
	id := g.uuid()
	t, ts := g.tick()
	o := obj{{"id", id}, {"timestamp", ts}, {"source", source}}
	if g.opt.Extras && len(g.events) > 0 {
		// SDK v1.31+ conversation trees: parent_id names the previous event.
		o = o.with("parent_id", g.events[len(g.events)-1].id)
	}
	o = append(o, fields...)
	o = o.with("kind", kind)
	g.events = append(g.events, event{id: id, kind: kind, o: o, ts: t})
	return id
}

// extras writes the kinds no real file showed (doc §6): a hook that blocked
// an action, a hook that ran, an ACP tool call and its status update, an
// interrupt and a conversation error.
func (g *gen) extras() {
	g.add("HookExecutionEvent", "hook", obj{{"hook_event_type", "PreToolUse"}, {"hook_command", "guard.sh"}, {"tool_name", "terminal"},
		{"success", true}, {"blocked", true}, {"exit_code", 2}, {"stdout", ""}, {"stderr", "denied"}, {"reason", "blocked: " + g.text(2)}})
	g.f.Approvals++
	g.add("HookExecutionEvent", "hook", obj{{"hook_event_type", "SessionStart"}, {"hook_command", "hello.sh"},
		{"success", true}, {"blocked", false}, {"exit_code", 0}, {"stdout", "hi"}, {"stderr", ""}})
	g.f.Other++
	tc := "acp-" + hex(g.uuid())[:12]
	g.add("ACPToolCallEvent", "agent", obj{{"tool_call_id", tc}, {"title", "Read file"}, {"status", "in_progress"}, {"tool_kind", "read"},
		{"raw_input", obj{{"path", "/workspace/a.go"}}}, {"is_error", false}})
	g.add("ACPToolCallEvent", "agent", obj{{"tool_call_id", tc}, {"title", "Read file"}, {"status", "completed"}, {"tool_kind", "read"},
		{"raw_output", g.text(4)}, {"is_error", false}})
	g.f.ToolCalls++
	g.f.Paired++
	g.add("InterruptEvent", "user", nil)
	g.f.Other++
	g.add("ConversationErrorEvent", "environment", obj{{"code", "RuntimeError"}, {"detail", "boom: " + g.text(2)}})
	g.f.ConversationErrors++
}

func textBlocks(text string) []any {
	return []any{obj{{"cache_prompt", false}, {"type", "text"}, {"text", text}}}
}

// v1 writes a V1 conversation script.
func (g *gen) v1() {
	g.add("SystemPromptEvent", "agent", obj{
		{"system_prompt", obj{{"cache_prompt", false}, {"type", "text"}, {"text", "You are OpenHands agent. " + g.text(12)}}},
		{"tools", []any{obj{{"kind", "TerminalTool"}, {"title", g.toolName("terminal")}, {"description", "Run a command"}}}},
	})
	g.f.System++
	for turn := 0; turn < g.opt.Turns; turn++ {
		g.userMessage()
		if g.nulls {
			g.state("execution_status", "running")
		}
		for step := 0; step < 1+g.r.IntN(3); step++ {
			g.batch()
		}
		g.agentMessage()
		if turn == g.opt.Turns/2 {
			g.condense()
		}
		if turn == 0 && g.r.IntN(2) == 0 {
			g.add("PauseEvent", "user", nil)
			g.f.Other++
		}
		if g.nulls {
			g.stats(turn)
		}
	}
	if g.opt.Extras {
		g.extras()
	}
	g.finish()
}

func (g *gen) userMessage() {
	text := g.text(8)
	if g.f.Title == "" {
		g.f.Title = text
	}
	g.add("MessageEvent", "user", obj{
		{"llm_message", obj{{"role", "user"}, {"content", textBlocks(text)}, {"thinking_blocks", []any{}}}},
		{"activated_skills", []any{}}, {"extended_content", []any{}},
	})
	g.f.UserMessages++
}

// reasoning returns reasoning members with distinct texts and counts them.
func (g *gen) reasoning() obj {
	var o obj
	if g.r.IntN(2) == 0 {
		o = o.with("reasoning_content", "I should "+g.text(6))
		g.f.Reasoning++
	}
	if g.r.IntN(3) == 0 {
		o = o.with("thinking_blocks", []any{obj{{"type", "thinking"}, {"thinking", "Consider " + g.text(5)}, {"signature", "c2lnbmF0dXJl"}}})
		g.f.Reasoning++
	} else {
		o = o.with("thinking_blocks", []any{})
	}
	if g.nulls {
		o = o.with("responses_reasoning_item", nil)
	}
	return o
}

func (g *gen) agentMessage() {
	text := g.text(10)
	if g.r.IntN(4) == 0 {
		text = "<think>" + g.text(4) + "</think>\n" + text
		g.f.Reasoning++
	}
	msg := obj{{"role", "assistant"}, {"content", textBlocks(text)}}
	msg = append(msg, g.reasoning()...)
	g.add("MessageEvent", "agent", obj{
		{"llm_message", msg}, {"llm_response_id", "chatcmpl-" + g.uuid()},
		{"activated_skills", []any{}}, {"extended_content", []any{}},
	})
	g.f.AgentMessages++
}

// toolName applies the legacy names when asked.
func (g *gen) toolName(n string) string {
	if g.opt.Legacy {
		switch n {
		case "terminal":
			return "execute_bash"
		case "file_editor":
			return "str_replace_editor"
		}
	}
	return n
}

func (g *gen) kindName(k string) string {
	if g.opt.Legacy {
		k = strings.Replace(k, "Terminal", "ExecuteBash", 1)
		k = strings.Replace(k, "FileEditor", "StrReplaceEditor", 1)
	}
	return k
}

type call struct {
	id, toolCallID, tool, kind string
	tasks                      []any
}

// batch writes one LLM reply: one to three parallel calls, then their
// results.
func (g *gen) batch() {
	n := 1
	if g.r.IntN(3) == 0 {
		n = 2 + g.r.IntN(2)
		g.f.Groups++
	}
	resp := "chatcmpl-" + g.uuid()
	var calls []call
	for i := 0; i < n; i++ {
		c := g.action(resp, i == 0)
		calls = append(calls, c)
	}
	if g.opt.Confirmation {
		g.state("execution_status", "waiting_for_confirmation")
		g.f.Approvals++
	}
	for _, c := range calls {
		g.result(c)
	}
}

var tools = []string{"terminal", "file_editor", "task_tracker", "think"}

func (g *gen) action(resp string, first bool) call {
	tool := tools[g.r.IntN(len(tools))]
	if g.opt.Legacy && tool == "task_tracker" {
		tool = "terminal"
	}
	c := call{tool: g.toolName(tool), toolCallID: "toolu_" + strings.ReplaceAll(g.uuid(), "-", "")[:24]}
	var action obj
	switch tool {
	case "terminal":
		c.kind = g.kindName("TerminalAction")
		action = obj{{"command", "echo " + g.text(2)}, {"is_input", false}, {"reset", false}}
	case "file_editor":
		c.kind = g.kindName("FileEditorAction")
		action = obj{{"command", "view"}, {"path", "/workspace/" + words[g.r.IntN(26)] + ".go"}}
	case "task_tracker":
		c.kind = "TaskTrackerAction"
		c.tasks = []any{obj{{"title", g.text(3)}, {"notes", ""}, {"status", "todo"}}, obj{{"title", g.text(3)}, {"notes", "n"}, {"status", "in_progress"}}}
		action = obj{{"command", "plan"}, {"task_list", c.tasks}}
		g.f.Tasks++
	case "think":
		c.kind = "ThinkAction"
		action = obj{{"thought", g.text(5)}}
	}
	args := string(encode(action, Compact))
	fields := obj{{"thought", []any{}}}
	if first {
		thought := g.text(6)
		if g.r.IntN(4) == 0 {
			thought = "<think>" + g.text(3) + "</think>" + thought
			g.f.Reasoning++
		}
		fields = obj{{"thought", textBlocks(thought)}}
		fields = append(fields, g.reasoning()...)
	}
	risk := []string{"UNKNOWN", "LOW", "MEDIUM", "HIGH"}[g.r.IntN(4)]
	if risk != "UNKNOWN" {
		g.f.Approvals++
	}
	toolCall := obj{{"id", c.toolCallID}, {"name", c.tool}, {"arguments", args}, {"origin", "completion"}}
	if g.opt.Legacy {
		toolCall = obj{{"index", 0}, {"function", obj{{"name", c.tool}, {"arguments", args}}}, {"id", c.toolCallID}, {"type", "function"}}
	}
	fields = append(fields,
		kv{"action", action.with("kind", c.kind)}, kv{"tool_name", c.tool}, kv{"tool_call_id", c.toolCallID},
		kv{"tool_call", toolCall}, kv{"llm_response_id", resp}, kv{"security_risk", risk}, kv{"summary", g.text(3)})
	c.id = g.add("ActionEvent", "agent", fields)
	g.f.ToolCalls++
	return c
}

// result answers a call with an observation, an error or a rejection.
func (g *gen) result(c call) {
	g.f.Paired++
	roll := g.r.IntN(10)
	switch {
	case g.opt.Confirmation && roll < 2:
		g.add("UserRejectObservation", "user", obj{{"tool_name", c.tool}, {"tool_call_id", c.toolCallID}, {"action_id", c.id},
			{"rejection_reason", "not now: " + g.text(2)}, {"rejection_source", "user"}})
		g.f.Rejections++
		g.f.Approvals++
		return
	case roll == 9:
		g.add("AgentErrorEvent", "agent", obj{{"tool_name", c.tool}, {"tool_call_id", c.toolCallID},
			{"error", "Tool failed: " + g.text(3)}, {"classification", obj{{"kind", "agent_action"}, {"retryable", true}, {"user_action", "retry"}}}})
		g.f.Errors++
		return
	}
	out := g.text(8) + strings.Repeat("x", g.opt.PadOutput)
	obs := obj{{"content", textBlocks(out)}, {"is_error", false}}
	if g.opt.Legacy {
		obs = obj{{"output", out}, {"error", []any{false, ""}[g.r.IntN(2)]}}
	}
	if c.tasks != nil {
		obs = obs.with("command", "plan").with("task_list", c.tasks)
		g.f.Tasks++
	}
	obsKind := strings.Replace(c.kind, "Action", "Observation", 1)
	g.add("ObservationEvent", "environment", obj{{"tool_name", c.tool}, {"tool_call_id", c.toolCallID},
		{"observation", obs.with("kind", obsKind)}, {"action_id", c.id}})
}

func (g *gen) state(key string, value any) {
	g.add("ConversationStateUpdateEvent", "environment", obj{{"key", key}, {"value", value}})
	g.f.States++
}

func (g *gen) stats(turn int) {
	g.f.Cost = float64(turn+1) * 0.25
	g.state("stats", obj{{"usage_to_metrics", obj{{"agent", obj{{"model_name", g.f.Model}, {"accumulated_cost", g.f.Cost},
		{"max_budget_per_task", nil}, {"accumulated_token_usage", obj{{"model", g.f.Model}, {"prompt_tokens", 1000 * (turn + 1)},
			{"completion_tokens", 100 * (turn + 1)}}}}}}}})
}

// condense forgets a run of earlier events, never the system prompt or the
// first user message.
func (g *gen) condense() {
	var forgotten []any
	for _, e := range g.events[2:] {
		if len(forgotten) < len(g.events)/2 {
			forgotten = append(forgotten, e.id)
		}
	}
	if len(forgotten) == 0 {
		return
	}
	g.add("Condensation", "environment", obj{{"forgotten_event_ids", forgotten}, {"summary", "USER_CONTEXT: " + g.text(10)},
		{"summary_offset", 2}, {"llm_response_id", "chatcmpl-" + g.uuid()}})
	g.f.Compactions++
	g.f.Forgotten += len(forgotten)
}

func (g *gen) finish() {
	tc := "toolu_finish_" + strings.ReplaceAll(g.uuid(), "-", "")[:8]
	id := g.add("ActionEvent", "agent", obj{{"thought", []any{}}, {"action", obj{{"message", "Done."}, {"kind", "FinishAction"}}},
		{"tool_name", "finish"}, {"tool_call_id", tc}, {"tool_call", obj{{"id", tc}, {"name", "finish"}, {"arguments", `{"message": "Done."}`}, {"origin", "completion"}}},
		{"llm_response_id", "chatcmpl-" + g.uuid()}, {"security_risk", "UNKNOWN"}})
	g.f.ToolCalls++
	g.add("ObservationEvent", "environment", obj{{"tool_name", "finish"}, {"tool_call_id", tc},
		{"observation", obj{{"content", textBlocks("Done.")}, {"is_error", false}, {"kind", "FinishObservation"}}}, {"action_id", id}})
	g.f.Paired++
}
