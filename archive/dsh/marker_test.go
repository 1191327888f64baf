package dsh

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/logbook/logbook/archive/format"
)

func TestMarkerLabels(t *testing.T) {
	seven := int64(7)
	for _, tc := range []struct {
		typ, data string
		info      format.MarkerInfo
		label     string
		status    string
		detail    string
		fields    []format.MarkerField
	}{
		{typ: "turn/start", data: `{"turn":3}`, label: "Turn 3"},
		{typ: "turn/start", data: `{}`, info: format.MarkerInfo{Turn: &seven}, label: "Turn 7"},
		{typ: "turn/end", data: `{"turn":3,"reason":{"kind":"completed"}}`, label: "Turn 3", status: "completed"},
		{typ: "turn/end", data: `{"turn":3,"reason":{"kind":"aborted","reason":{"kind":"user"}}}`, label: "Turn 3", status: "aborted",
			fields: []format.MarkerField{{Name: "by", Value: "user"}}},
		{typ: "turn/end", data: `{"turn":3,"reason":{"kind":"aborted","reason":{"kind":"hook","reason":"policy says no"}}}`,
			label: "Turn 3", status: "aborted", detail: "policy says no", fields: []format.MarkerField{{Name: "by", Value: "hook"}}},
		{typ: "turn/end", data: `{"turn":4,"reason":{"kind":"error","error":{"message":"upstream 503","code":"PROVIDER_ERROR","status":503}}}`,
			label: "Turn 4", status: "error", detail: "upstream 503", fields: []format.MarkerField{{Name: "code", Value: "PROVIDER_ERROR"}, {Name: "status", Value: "503"}}},
		{typ: "turn/end", data: `{"turn":5,"reason":{"kind":"interrupted"}}`, label: "Turn 5", status: "interrupted"},
		{typ: "turn/end", data: `{"turn":5,"reason":"legacy"}`, label: "Turn 5", status: "legacy"},
		{typ: "turn/end", data: `{"turn":5}`, label: "Turn 5"},
		{typ: "todo/write", data: `{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"pending"},{"content":"c","status":"in_progress"}]}`,
			label: "todo list (3 items)", fields: []format.MarkerField{{Name: "pending", Value: "2"}, {Name: "in progress", Value: "1"}}},
		{typ: "todo/write", data: `{"todos":[{"content":"only","status":"completed"}]}`, label: "todo list (1 item)",
			fields: []format.MarkerField{{Name: "completed", Value: "1"}}},
		{typ: "todo/write", data: `{"todos":[]}`, label: "todo list (0 items)"},
		{typ: "plan/mode", data: `{"active":true}`, label: "plan mode on"},
		{typ: "plan/mode", data: `{"active":false}`, label: "plan mode off"},
		{typ: "permission/preset", data: `{"preset":"danger-full-access"}`, label: "permissions: danger-full-access"},
		{typ: "sandbox/mode", data: `{"mode":"read-only","source":"delegation"}`, label: "sandbox: read-only",
			fields: []format.MarkerField{{Name: "source", Value: "delegation"}}},
		{typ: "approval/policy", data: `{"policy":"never"}`, label: "approval policy: never"},
		{typ: "model/selection", data: `{"provider":"deepseek","model":"deepseek-chat"}`, label: "model: deepseek/deepseek-chat"},
		{typ: "agent-preset/selected", data: `{"agentPreset":"standard"}`, label: "agent preset: standard"},
		{typ: "session/title", data: `{"title":"Fix the  build\n now","messageSeqs":[],"source":{"kind":"user"}}`,
			label: "title: Fix the build now", fields: []format.MarkerField{{Name: "source", Value: "user"}}},
		{typ: "session/title", data: `{"title":"T","messageSeqs":[1],"source":{"kind":"provider","provider":"p","model":{"provider":"ds","model":"v4"}}}`,
			label: "title: T", fields: []format.MarkerField{{Name: "source", Value: "provider"}, {Name: "provider", Value: "p"}, {Name: "model", Value: "ds/v4"}}},
		{typ: "command/run", data: `{"commandId":"c1","name":"compact","source":{"kind":"user"}}`, label: "command: /compact",
			fields: []format.MarkerField{{Name: "command id", Value: "c1"}, {Name: "source", Value: "user"}}},
		{typ: "command/run", data: `{"commandId":"c1","name":"permission","args":" read-only","source":{"kind":"user"}}`,
			label: "command: /permission read-only", fields: []format.MarkerField{{Name: "command id", Value: "c1"}, {Name: "source", Value: "user"}}},
		{typ: "command/done", data: `{"commandId":"c1","kind":"error","text":"no such preset"}`, label: "command failed: no such preset",
			status: "error", detail: "no such preset", fields: []format.MarkerField{{Name: "command id", Value: "c1"}}},
		{typ: "command/done", data: `{"commandId":"c1","kind":"success"}`, label: "command done", status: "success",
			fields: []format.MarkerField{{Name: "command id", Value: "c1"}}},
		{typ: "goal/change", data: `{"kind":"goal/change","version":1,"operation":"create","goal":{"id":"g1","revision":1,"objective":"Ship it\nthen rest","phase":"active","maxGoalRounds":20}}`,
			label: "goal created: Ship it", status: "active", detail: "Ship it\nthen rest",
			fields: []format.MarkerField{{Name: "phase", Value: "active"}, {Name: "revision", Value: "1"}, {Name: "goal id", Value: "g1"}}},
		{typ: "goal/change", data: `{"kind":"goal/change","version":1,"operation":"clear","cleared":{"id":"g1","revision":2},"clearedAt":1}`,
			label: "goal cleared", fields: []format.MarkerField{{Name: "goal id", Value: "g1"}}},
		{typ: "llm/retry", data: `{"retryId":"r1","retry":1,"turn":1,"step":1,"mode":"normal","maxRetries":5,"delayMs":2000,"policyKey":"default","provider":"ds","failure":{"code":"RATE_LIMITED","message":"429 Too Many Requests","status":429}}`,
			label: "retry 1/5 in 2s after RATE_LIMITED", detail: "429 Too Many Requests",
			fields: []format.MarkerField{{Name: "code", Value: "RATE_LIMITED"}, {Name: "status", Value: "429"}, {Name: "provider", Value: "ds"}, {Name: "mode", Value: "normal"}, {Name: "retry id", Value: "r1"}}},
		{typ: "llm/retry-started", data: `{"retryId":"r1","retry":2,"turn":1,"step":1}`, label: "retry 2 started",
			fields: []format.MarkerField{{Name: "retry id", Value: "r1"}}},
		{typ: "hook/invoked", data: `{"turn":1,"point":"UserPromptSubmit","handlerId":"h1","dialect":"claude-code"}`,
			label: "hook: UserPromptSubmit", fields: []format.MarkerField{{Name: "handler", Value: "h1"}, {Name: "dialect", Value: "claude-code"}}},
		{typ: "hook/result", data: `{"turn":1,"point":"PreToolUse","handlerId":"h1","decision":"block","durationMs":1500,"exitCode":2,"stderrSummary":"nope"}`,
			label: "hook PreToolUse: block", status: "block", detail: "nope",
			fields: []format.MarkerField{{Name: "handler", Value: "h1"}, {Name: "duration", Value: "1.5s"}, {Name: "exit code", Value: "2"}}},
		{typ: "agent/inbox/spliced", data: `{"target":"next-turn","start":0,"inserted":[{"id":"u","role":"user","content":[{"type":"text","text":"and then?"}],"source":{"kind":"user"}}]}`,
			label: "inbox: 1 message queued for the next turn", detail: "and then?",
			fields: []format.MarkerField{{Name: "source", Value: "user"}, {Name: "target", Value: "next-turn"}}},
		{typ: "agent/inbox/spliced", data: `{"target":"next-step","start":0,"inserted":[],"removedCount":2,"outcome":"canceled"}`,
			label: "inbox: 2 messages removed, canceled", status: "canceled", fields: []format.MarkerField{{Name: "target", Value: "next-step"}}},
		{typ: "feedback/record", data: `{"text":"great\nwork"}`, label: "feedback: great", detail: "great\nwork"},
		{typ: "schedule/change", data: `{"version":1,"operation":"create","schedule":{"kind":"every","id":"schedule-1","prompt":"check CI","everySeconds":600,"scheduledAt":"2027-01-01T00:10:00.000Z"}}`,
			label: "reminder scheduled every 10m: check CI", detail: "check CI",
			fields: []format.MarkerField{{Name: "schedule id", Value: "schedule-1"}, {Name: "kind", Value: "every"}, {Name: "scheduled at", Value: "2027-01-01T00:10:00.000Z"}}},
		{typ: "schedule/change", data: `{"version":1,"operation":"delete","id":"schedule-1"}`, label: "reminder deleted: schedule-1",
			fields: []format.MarkerField{{Name: "schedule id", Value: "schedule-1"}}},
		{typ: "schedule/change", data: `{"version":1,"operation":"dispatch","id":"schedule-2","acceptedAt":"2027-01-01T00:00:00.000Z"}`,
			label: "reminder fired: schedule-2", fields: []format.MarkerField{{Name: "schedule id", Value: "schedule-2"}, {Name: "accepted at", Value: "2027-01-01T00:00:00.000Z"}}},
		{typ: "session/end-seed", data: `{}`, info: format.MarkerInfo{Seq: 9}, label: "session resumed"},
		{typ: "session/end-seed", data: `{}`, info: format.MarkerInfo{Seq: 7, SeedLength: &seven}, label: "forked from the parent session"},
		{typ: "subagent/descriptor", data: `{"mode":"one-shot","version":3,"provider":"p","label":"explore: the repo"}`,
			label: "subagent: explore: the repo", fields: []format.MarkerField{{Name: "mode", Value: "one-shot"}, {Name: "provider", Value: "p"}}},
		{typ: "subagent/model-selection-policy", data: `{"allowedModels":[{"provider":"a","model":"x"},{"provider":"b","model":"y"}]}`,
			label: "subagent models: a/x, b/y"},
		{typ: "tool-workflow/agent-start", data: `{"runId":"run1","seq":1,"childId":"child-1","label":"review"}`,
			label: "workflow agent: review", fields: []format.MarkerField{{Name: "child session", Value: "child-1"}, {Name: "run id", Value: "run1"}}},
		{typ: "tool-workflow/run-end", data: `{"runId":"run1","stopReason":"completed"}`, label: "workflow ended: completed",
			status: "completed", fields: []format.MarkerField{{Name: "run id", Value: "run1"}}},
		{typ: "team/task", data: `{"teamId":"t","version":1,"task":{"id":"1","subject":"Write docs","status":"in_progress","description":"all of them","revision":1,"blockedBy":[],"writeScopes":[]}}`,
			label: "team task: Write docs", status: "in_progress", detail: "all of them",
			fields: []format.MarkerField{{Name: "status", Value: "in_progress"}, {Name: "team", Value: "t"}}},
		{typ: "tool/code-dispatch", data: `{"rootCallId":"r","parentCallId":"p","subCallId":"s","name":"read","arguments":{},"isError":true,"content":[{"type":"text","text":"ENOENT"}]}`,
			label: "code dispatch: read (error)", status: "error", detail: "ENOENT", fields: []format.MarkerField{{Name: "sub-call", Value: "s"}, {Name: "root call", Value: "r"}}},
		{typ: "approval/decided", data: `{"id":"ap","outcome":"rejected"}`, label: "approval rejected", status: "rejected",
			fields: []format.MarkerField{{Name: "approval id", Value: "ap"}}},
		{typ: "compaction/end", data: `{"compactionId":"c","turn":null,"error":"gave up"}`, label: "compaction end", status: "failed",
			detail: "gave up", fields: []format.MarkerField{{Name: "compaction id", Value: "c"}}},
		// Unknown types and odd payloads fall back to the type, never fail.
		{typ: "custom/thing", data: `{"b":true,"a":"x","c":{"d":[1, 2]},"n":null,"text":"hello"}`, label: "custom/thing", detail: "hello",
			fields: []format.MarkerField{{Name: "a", Value: "x"}, {Name: "b", Value: "true"}, {Name: "c", Value: `{"d":[1,2]}`}, {Name: "text", Value: "hello"}}},
		{typ: "steering/message", data: `"just a string"`, label: "steering/message"},
		{typ: "todo/write", data: `{"todos":{"not":"a list"}}`, label: "todo/write", fields: []format.MarkerField{{Name: "todos", Value: `{"not":"a list"}`}}},
		{typ: "sandbox/mode", data: `[1,2,3]`, label: "sandbox/mode"},
		{typ: "model/selection", data: `{"provider":7}`, label: "model/selection", fields: []format.MarkerField{{Name: "provider", Value: "7"}}},
		{typ: "plan/mode", data: ``, label: "plan/mode"},
		{typ: "plan/mode", data: `null`, label: "plan/mode"},
		{typ: "turn/start", data: `not json`, label: "Turn"},
	} {
		t.Run(tc.typ+" "+tc.label, func(t *testing.T) {
			var data json.RawMessage
			if tc.data != "" {
				data = json.RawMessage(tc.data)
			}
			m := markerFor(tc.typ, data, tc.info)
			assert.Equal(t, tc.label, m.Label)
			assert.Equal(t, tc.status, m.Status)
			assert.Equal(t, tc.detail, m.Detail)
			assert.Equal(t, tc.fields, m.Fields)
		})
	}
}

func TestMarkerTodos(t *testing.T) {
	m := markerFor("todo/write", json.RawMessage(`{"todos":[{"content":"read","status":"completed"},{"content":"写","status":"in_progress"}]}`), format.MarkerInfo{})
	assert.Equal(t, []format.TodoItem{{Content: "read", Status: "completed"}, {Content: "写", Status: "in_progress"}}, m.Todos)
}

func TestMarkerClips(t *testing.T) {
	long := strings.Repeat("长", 500)
	m := markerFor("session/title", json.RawMessage(`{"title":"`+long+`","messageSeqs":[],"source":{"kind":"user"}}`), format.MarkerInfo{})
	assert.Equal(t, labelRunes, utf8.RuneCountInString(m.Label))
	assert.True(t, strings.HasSuffix(m.Label, "…"))
	assert.True(t, utf8.ValidString(m.Label))

	m = markerFor("feedback/record", json.RawMessage(`{"text":"`+strings.Repeat("x", 10000)+`"}`), format.MarkerInfo{})
	assert.Equal(t, detailRunes, utf8.RuneCountInString(m.Detail))

	m = markerFor("command/run", json.RawMessage(`{"commandId":"c","name":"run","args":"`+strings.Repeat("a ", 200)+`"}`), format.MarkerInfo{})
	assert.Equal(t, labelRunes, utf8.RuneCountInString(m.Label))
	assert.Equal(t, "/run "+strings.TrimSpace(strings.Repeat("a ", 200)), m.Detail, "the whole command line is in the detail")
}

func TestDurationText(t *testing.T) {
	for ms, want := range map[int64]string{850: "850ms", 2000: "2s", 1500: "1.5s", 300_000: "5m", 90_000: "1m30s",
		3_600_000: "1h", 5_400_000: "1h30m", 86_400_000: "24h"} {
		assert.Equal(t, want, durationText(ms), "%d ms", ms)
	}
}
