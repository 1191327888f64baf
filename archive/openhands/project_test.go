package openhands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
)

// records decodes one event per line, as a reader would.
func records(t *testing.T, lines ...string) []openhands.Record {
	t.Helper()
	var out []openhands.Record
	for i, l := range lines {
		ev, err := openhands.DecodeEvent([]byte(l))
		require.NoError(t, err, l)
		out = append(out, openhands.Record{Index: i, Raw: []byte(l), Event: ev, Seq: int64(i)})
	}
	return out
}

func TestProjectLegacyShapes(t *testing.T) {
	p := openhands.Project(records(t,
		`{"kind": "ActionEvent", "id": "a1", "source": "agent", "thought": [{"type": "text", "text": "look"}], "action": {"kind": "ExecuteBashAction", "command": "ls"}, "tool_name": "execute_bash", "tool_call_id": "t1", "tool_call": {"index": 0, "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls\"}"}, "id": "t1", "type": "function"}, "llm_response_id": "r1", "security_risk": "LOW"}`,
		`{"kind": "ActionEvent", "id": "a2", "source": "agent", "action": {"kind": "StrReplaceEditorAction", "command": "view", "path": "/x"}, "tool_name": "str_replace_editor", "tool_call_id": "t2", "llm_response_id": "r1", "security_risk": "UNKNOWN"}`,
		`{"kind": "ObservationEvent", "id": "o1", "source": "environment", "observation": {"kind": "ExecuteBashObservation", "output": "a b", "error": false}, "action_id": "a1", "tool_name": "execute_bash", "tool_call_id": "t1"}`,
		`{"kind": "ObservationEvent", "id": "o2", "source": "environment", "observation": {"kind": "StrReplaceEditorObservation", "output": "", "error": "Invalid view_range"}, "tool_call_id": "t2", "tool_name": "str_replace_editor"}`,
		`{"kind": "ObservationEvent", "id": "o3", "source": "environment", "observation": {"kind": "ThinkObservation", "content": "Your thought has been logged."}, "action_id": "nope"}`,
	))
	require.Len(t, p.ToolCalls, 2)
	a, b := p.ToolCalls[0], p.ToolCalls[1]
	assert.Equal(t, "terminal", a.Name)
	assert.Equal(t, "execute_bash", a.RawName)
	assert.Equal(t, "TerminalAction", a.ActionKind)
	assert.Equal(t, "file_editor", b.Name)
	assert.Equal(t, "FileEditorAction", b.ActionKind)
	require.NotNil(t, a.Result)
	assert.Equal(t, "a b", a.Result.Text)
	assert.False(t, a.Result.IsError, `"error": false is no error`)
	assert.Equal(t, "TerminalObservation", a.Result.ObservationKind)
	require.NotNil(t, b.Result, "paired by tool_call_id when action_id is absent")
	assert.True(t, b.Result.IsError)
	assert.Equal(t, "Invalid view_range", b.Result.Text)
	require.Len(t, p.Groups, 1)
	assert.Equal(t, []string{"a1", "a2"}, p.Groups[0].EventIDs)
	require.Len(t, p.Orphans, 1)
	assert.Equal(t, "Your thought has been logged.", p.Orphans[0].Text, "a bare-string content is read")
	require.Len(t, p.Approvals, 1)
	assert.Equal(t, "LOW", p.Approvals[0].Risk)
}

func TestProjectReasoningAndRejections(t *testing.T) {
	p := openhands.Project(records(t,
		`{"id":"m1","source":"agent","llm_message":{"role":"assistant","content":[{"type":"text","text":"<think>plan A</think>answer"}],"reasoning_content":"plan B","thinking_blocks":[{"type":"thinking","thinking":"plan B"},{"type":"redacted_thinking","data":"xx"}],"responses_reasoning_item":{"id":"r","summary":["plan C"],"encrypted_content":"secret"}},"kind":"MessageEvent"}`,
		`{"id":"a1","source":"agent","action":{"command":"rm -rf /","kind":"TerminalAction"},"tool_name":"terminal","tool_call_id":"t1","llm_response_id":"r2","security_risk":"HIGH","kind":"ActionEvent"}`,
		`{"id":"s1","source":"environment","key":"execution_status","value":"waiting_for_confirmation","kind":"ConversationStateUpdateEvent"}`,
		`{"id":"u1","source":"user","tool_name":"terminal","tool_call_id":"t1","action_id":"a1","rejection_reason":"no","rejection_source":"user","kind":"UserRejectObservation"}`,
		`{"id":"c1","source":"environment","forgotten_event_ids":["a1","s1"],"summary":"gone","summary_offset":1,"kind":"Condensation"}`,
		`{"id":"e1","source":"environment","code":"RuntimeError","detail":"boom","kind":"ConversationErrorEvent"}`,
		`{"id":"x1","source":"environment","kind":"SomethingNew"}`,
	))
	var texts []string
	for _, r := range p.Reasoning {
		texts = append(texts, string(r.Source)+":"+r.Text)
	}
	assert.Equal(t, []string{"reasoning_content:plan B", "redacted_thinking:", "responses_summary:plan C", "think_tag:plan A"}, texts)
	for _, r := range p.Reasoning {
		assert.NotContains(t, r.Text, "secret", "encrypted content is never shown")
	}
	require.Len(t, p.ToolCalls, 1)
	require.NotNil(t, p.ToolCalls[0].Result)
	assert.Equal(t, openhands.ResultRejection, p.ToolCalls[0].Result.Kind)
	var decisions []string
	for _, a := range p.Approvals {
		decisions = append(decisions, string(a.Decision))
	}
	assert.Equal(t, []string{"risk", "requested", "rejected"}, decisions)
	require.Len(t, p.Compactions, 1)
	assert.Equal(t, []string{"a1", "s1"}, p.Compactions[0].Forgotten)
	require.Len(t, p.States, 1)
	assert.Equal(t, "waiting_for_confirmation", p.States[0].Status)
	require.Len(t, p.Errors, 1)
	assert.Equal(t, "boom", p.Errors[0].Detail)
	require.Len(t, p.Other, 1)
	assert.False(t, p.Other[0].Known)
}

func TestProjectV0(t *testing.T) {
	p := openhands.Project(records(t,
		`{"id": 0, "source": "user", "message": "hi", "action": "message", "args": {"content": "hi"}}`,
		`{"id": 1, "source": "agent", "message": "ls", "action": "run", "args": {"command": "ls"}, "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t", "model_response": {"id": "r"}}}`,
		`{"id": 2, "source": "agent", "message": "", "cause": 1, "observation": "run", "content": "out", "extras": {"metadata": {"exit_code": 2}}}`,
		`{"id": 3, "source": "agent", "message": "x", "action": "condensation", "args": {"forgotten_event_ids": null, "forgotten_events_start_id": 1, "forgotten_events_end_id": 2, "summary": "s"}}`,
		`{"id": 4, "source": "environment", "message": "", "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "finished"}}`,
	))
	require.Len(t, p.Messages, 1)
	assert.Equal(t, "hi", p.Messages[0].Text)
	require.Len(t, p.ToolCalls, 1)
	assert.Equal(t, "terminal", p.ToolCalls[0].Name)
	require.NotNil(t, p.ToolCalls[0].Result)
	assert.Equal(t, 2, *p.ToolCalls[0].Result.ExitCode)
	require.Len(t, p.Compactions, 1)
	assert.Equal(t, int64(1), *p.Compactions[0].RangeStart)
	assert.Equal(t, int64(2), *p.Compactions[0].RangeEnd)
	require.Len(t, p.States, 1)
	assert.Equal(t, "finished", p.States[0].Status)
}

func TestDecodeEvent(t *testing.T) {
	_, err := openhands.DecodeEvent([]byte(`[1,2]`))
	assert.Error(t, err)
	_, err = openhands.DecodeEvent([]byte(`{"id":`))
	assert.Error(t, err)
	ev, err := openhands.DecodeEvent([]byte(`{"id": 7, "observation": "user_rejected", "cause": 6}`))
	require.NoError(t, err)
	assert.Equal(t, openhands.DialectV0, ev.Dialect)
	assert.Equal(t, "7", ev.ID)
	assert.Equal(t, "6", ev.Cause)
	assert.True(t, ev.Known)
	ev, err = openhands.DecodeEvent([]byte(`{"id":"a","kind":"ActionEvent","action":{"kind":"QuantumAction"}}`))
	require.NoError(t, err)
	assert.False(t, ev.Known)
	assert.True(t, strings.HasPrefix(ev.Action, "Quantum"))
}

func TestParseTime(t *testing.T) {
	berlin := time.FixedZone("CEST", 2*3600)
	for in, want := range map[string]time.Time{
		"2026-02-18T19:10:19.447587":  time.Date(2026, 2, 18, 19, 10, 19, 447587000, berlin),
		"2026-02-18T19:10:19":         time.Date(2026, 2, 18, 19, 10, 19, 0, berlin),
		"2025-09-25T23:26:01.569031Z": time.Date(2025, 9, 25, 23, 26, 1, 569031000, time.UTC),
		"2025-09-25T23:26:01+02:00":   time.Date(2025, 9, 25, 21, 26, 1, 0, time.UTC),
		"2025-07-09 13:38:00.935002":  time.Date(2025, 7, 9, 13, 38, 0, 935002000, berlin),
	} {
		got, ok := openhands.ParseTime(in, berlin)
		require.True(t, ok, in)
		assert.True(t, want.Equal(got), "%s: got %v want %v", in, got, want)
	}
	_, ok := openhands.ParseTime("yesterday", time.UTC)
	assert.False(t, ok)
}

func TestProjectACPAndHooks(t *testing.T) {
	p := openhands.Project(records(t,
		`{"id":"h1","source":"hook","hook_event_type":"PreToolUse","hook_command":"guard.sh","blocked":true,"reason":"no rm","action_id":"a0","success":true,"kind":"HookExecutionEvent"}`,
		`{"id":"h2","source":"hook","hook_event_type":"SessionStart","hook_command":"hi.sh","blocked":false,"kind":"HookExecutionEvent"}`,
		`{"id":"c1","source":"agent","tool_call_id":"acp-1","title":"Read file","tool_kind":"read","status":"in_progress","raw_input":{"path":"/x"},"kind":"ACPToolCallEvent"}`,
		`{"id":"c2","source":"agent","tool_call_id":"acp-1","title":"Read file","tool_kind":"read","status":"completed","raw_output":"contents","kind":"ACPToolCallEvent"}`,
		`{"id":"c3","source":"agent","tool_call_id":"acp-2","title":"Run","status":"failed","raw_output":{"code":1},"is_error":true,"kind":"ACPToolCallEvent"}`,
	))
	require.Len(t, p.Approvals, 1)
	assert.Equal(t, openhands.ApprovalBlocked, p.Approvals[0].Decision)
	assert.Equal(t, "no rm", p.Approvals[0].Reason)
	require.Len(t, p.Other, 1)
	require.Len(t, p.ToolCalls, 2, "a status update is the same call")
	a, b := p.ToolCalls[0], p.ToolCalls[1]
	assert.Equal(t, "read", a.Name)
	assert.JSONEq(t, `{"path":"/x"}`, string(a.Arguments))
	require.NotNil(t, a.Result)
	assert.Equal(t, "contents", a.Result.Text)
	assert.Equal(t, "c2", a.Result.EventID)
	require.NotNil(t, b.Result)
	assert.Equal(t, openhands.ResultError, b.Result.Kind)
	assert.JSONEq(t, `{"code":1}`, b.Result.Text)
}
