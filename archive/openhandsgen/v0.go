package openhandsgen

import (
	"strconv"
	"strings"
)

// addV0 appends a V0 event: integer id, then type and fields.
func (g *gen) addV0(typ, name, source string, fields obj) int {
	id := g.v0id
	g.v0id++
	t, ts := g.tick()
	o := obj{{"id", id}, {"timestamp", ts}, {"source", source}}
	o = append(o, fields...)
	o = o.with(typ, name)
	g.events = append(g.events, event{id: strconv.Itoa(id), kind: typ, o: o, ts: t})
	return id
}

// v0 writes a V0 conversation script (doc §4).
func (g *gen) v0() {
	g.addV0("observation", "agent_state_changed", "environment", obj{{"message", ""}, {"content", ""}, {"extras", obj{{"agent_state", "loading"}}}})
	g.f.States++
	g.addV0("action", "system", "agent", obj{{"message", "system"}, {"args", obj{{"content", "You are OpenHands agent. " + g.text(8)}}}})
	g.f.System++
	for turn := 0; turn < g.opt.Turns; turn++ {
		text := g.text(8)
		if g.f.Title == "" {
			g.f.Title = text
		}
		msg := g.addV0("action", "message", "user", obj{{"message", text}, {"args", obj{{"content", text}, {"image_urls", nil}, {"wait_for_response", false}}}})
		g.f.UserMessages++
		if turn == 0 {
			g.addV0("observation", "null", "user", obj{{"message", "No observation"}, {"cause", msg}, {"content", ""}, {"extras", obj{}}})
			g.f.Other++
		}
		for step := 0; step < 1+g.r.IntN(3); step++ {
			g.v0Batch()
		}
		reply := g.text(10)
		g.addV0("action", "message", "agent", obj{{"message", reply}, {"args", obj{{"content", reply}, {"wait_for_response", true}}}})
		g.f.AgentMessages++
		if turn == g.opt.Turns/2 {
			g.v0Condense()
		}
		g.addV0("observation", "agent_state_changed", "environment", obj{{"message", ""}, {"content", ""}, {"extras", obj{{"agent_state", "awaiting_user_input"}}}})
		g.f.States++
	}
	tasks := []any{obj{{"title", g.text(3)}, {"status", "done"}}}
	tt := g.addV0("action", "task_tracking", "agent", obj{{"message", "plan"}, {"args", obj{{"command", "plan"}, {"task_list", tasks}}}})
	g.f.ToolCalls++
	g.f.Tasks++
	g.addV0("observation", "task_tracking", "agent", obj{{"message", "planned"}, {"cause", tt}, {"content", "Task list updated"}, {"extras", obj{}}})
	g.f.Paired++
	g.addV0("action", "finish", "agent", obj{{"message", "Done."}, {"args", obj{{"final_thought", "Done."}}},
		{"tool_call_metadata", obj{{"function_name", "finish"}, {"tool_call_id", "toolu_finish"}, {"model_response", obj{{"id", "chatcmpl-finish"}}}, {"total_calls_in_response", 1}}}})
	g.f.ToolCalls++
}

func (g *gen) v0Batch() {
	n := 1
	if g.r.IntN(3) == 0 {
		n = 2
		g.f.Groups++
	}
	resp := "chatcmpl-" + g.uuid()
	var ids []int
	for i := 0; i < n; i++ {
		cmd := "echo " + g.text(2)
		ids = append(ids, g.addV0("action", "run", "agent", obj{{"message", "Running command: " + cmd},
			{"args", obj{{"command", cmd}, {"is_input", false}, {"thought", ""}, {"blocking", false}}},
			{"tool_call_metadata", obj{{"function_name", "execute_bash"}, {"tool_call_id", "toolu_" + strings.ReplaceAll(g.uuid(), "-", "")[:20]},
				{"model_response", obj{{"id", resp}}}, {"total_calls_in_response", n}}}}))
		g.f.ToolCalls++
	}
	for _, id := range ids {
		g.f.Paired++
		roll := g.r.IntN(10)
		switch {
		case g.opt.Confirmation && roll < 2:
			g.addV0("observation", "user_rejected", "user", obj{{"message", "Action has been rejected by the user."}, {"cause", id}, {"content", "rejected"}, {"extras", obj{}}})
			g.f.Rejections++
			g.f.Approvals++
		case roll == 9:
			g.addV0("observation", "error", "agent", obj{{"message", "error"}, {"cause", id}, {"content", "ERROR: " + g.text(3)}, {"extras", obj{{"error_id", ""}}}})
			g.f.Errors++
		default:
			g.addV0("observation", "run", "agent", obj{{"message", "Command finished"}, {"cause", id},
				{"content", g.text(6) + strings.Repeat("x", g.opt.PadOutput)}, {"extras", obj{{"command", "echo"}, {"metadata", obj{{"exit_code", 0}}}}}, {"success", true}})
		}
	}
}

// v0Condense forgets earlier events by id list, or by range when the seed
// says so (the range form of doc §6).
func (g *gen) v0Condense() {
	args := obj{{"summary", "USER_CONTEXT: " + g.text(6)}, {"summary_offset", 1}}
	if g.r.IntN(2) == 0 {
		var ids []any
		for i := 2; i < g.v0id/2; i++ {
			ids = append(ids, i)
		}
		args = append(obj{{"forgotten_event_ids", ids}, {"forgotten_events_start_id", nil}, {"forgotten_events_end_id", nil}}, args...)
		g.f.Forgotten += len(ids)
	} else {
		args = append(obj{{"forgotten_event_ids", nil}, {"forgotten_events_start_id", 2}, {"forgotten_events_end_id", g.v0id / 2}}, args...)
	}
	g.addV0("action", "condensation", "agent", obj{{"message", "Summary: condensed"}, {"args", args}})
	g.f.Compactions++
}
