package dshgen

import (
	"strconv"
)

// Preamble writes the session-start policy events dsh logs before the first turn:
// permission/preset, sandbox/mode, approval/policy and model/selection. A subagent
// session first gets subagent/descriptor and subagent/model-selection-policy, and its
// sandbox and approval policy come from delegation.
func (s *Session) Preamble() {
	if s.o.Subagent {
		s.event("subagent/descriptor", obj{{"mode", "one-shot"}, {"version", 3}, {"provider", s.provider},
			{"label", "explore: " + s.txt.sentence(3)}})
		s.event("subagent/model-selection-policy", obj{{"allowedModels", arr{
			obj{{"provider", s.provider}, {"model", s.model}},
			obj{{"provider", "deepseek-official"}, {"model", "deepseek-v4-flash"}}}}})
		s.event("sandbox/mode", obj{{"mode", "read-only"}, {"source", "delegation"}})
		s.event("approval/policy", obj{{"policy", "never"}, {"source", "delegation"}})
		return
	}
	s.event("permission/preset", obj{{"preset", "workspace-write"}})
	s.event("sandbox/mode", obj{{"mode", "workspace-write"}})
	s.event("approval/policy", obj{{"policy", "ask"}})
	s.event("model/selection", obj{{"provider", s.provider}, {"model", s.model}, {"reasoningEffort", "high"}})
}

// commandID returns a dsh-style command id.
func (s *Session) commandID() string {
	return "cmd-" + s.txt.uuid()[:8] + "-" + strconv.Itoa(1+s.rng.IntN(9))
}

// Command writes command/run, the events body writes, and command/done (success).
func (s *Session) Command(name, args string, body func()) {
	id := s.commandID()
	run := obj{{"commandId", id}, {"name", name}}
	if args != "" {
		run = append(run, kv{"args", args})
	}
	s.event("command/run", append(run, kv{"source", obj{{"kind", "user"}}}))
	if body != nil {
		body()
	}
	s.event("command/done", obj{{"commandId", id}, {"kind", "success"}, {"text", "/" + name + " done"}})
}

// PermissionCommand writes a /permission command switching preset and sandbox mode.
func (s *Session) PermissionCommand(mode string) {
	s.Command("permission", " "+mode, func() {
		s.event("permission/preset", obj{{"preset", mode}})
		s.event("sandbox/mode", obj{{"mode", mode}})
		s.event("approval/policy", obj{{"policy", "ask"}})
	})
}

// PlanMode writes plan/mode.
func (s *Session) PlanMode(active bool) int64 {
	return s.event("plan/mode", obj{{"active", active}})
}

// SelectModel writes model/selection and routes later requests to the model.
func (s *Session) SelectModel(provider, model string) int64 {
	s.provider, s.model = provider, model
	return s.event("model/selection", obj{{"provider", provider}, {"model", model}, {"reasoningEffort", "high"}})
}

// goal writes goal/change for a goal snapshot.
func (s *Session) goal(op, id string, revision int, phase, objective string) int64 {
	return s.event("goal/change", obj{{"kind", "goal/change"}, {"version", 1}, {"operation", op},
		{"goal", obj{{"id", id}, {"revision", revision}, {"objective", objective}, {"phase", phase}, {"maxGoalRounds", 20}}},
		{"roundsStarted", revision - 1}, {"createdAt", s.now}, {"updatedAt", s.now}})
}

// Title writes session/title. source is "fallback", "provider" or "user" (user titles
// must cite no messages).
func (s *Session) Title(title, source string, messageSeqs []int64) int64 {
	if messageSeqs == nil {
		messageSeqs = []int64{}
	}
	src := obj{{"kind", source}}
	if source == "provider" {
		src = append(src, kv{"provider", "session-title-first-prompt-llm"},
			kv{"model", obj{{"provider", s.provider}, {"model", s.model}}})
	}
	seq := s.event("session/title", obj{{"title", title}, {"messageSeqs", messageSeqs}, {"source", src}})
	s.facts.Titles = append(s.facts.Titles, TitleFact{Seq: seq, Title: title, Source: source, MessageSeqs: messageSeqs})
	return seq
}

// TitleRequest writes session/title-llm-request citing human message seqs.
func (s *Session) TitleRequest(messageSeqs []int64, prompt string) int64 {
	return s.event("session/title-llm-request", obj{
		{"titleProvider", "session-title-first-prompt-llm"},
		{"messageSeqs", messageSeqs},
		{"route", obj{{"provider", s.provider}, {"model", s.model}}},
		{"system", "Create a concise title for an AI coding-assistant session from the supplied human messages."},
		{"messages", arr{obj{
			{"content", arr{obj{{"type", "text"}, {"text", "Generate the session title from this JSON array of human messages:\n" + prompt}}}},
			{"source", obj{{"kind", "plugin"}, {"plugin", "dsh-session-title-llm"}}},
			{"role", "user"}, {"id", s.txt.uuid()}}}},
		{"maxTokens", 64}})
}

// hooks writes a hook/invoked + hook/result pair for the turn.
func (s *Session) hooks(turn int64) {
	id := "hook-" + strconv.Itoa(1+s.rng.IntN(4))
	s.event("hook/invoked", obj{{"turn", turn}, {"point", "UserPromptSubmit"}, {"handlerId", id},
		{"dialect", "claude-code"}, {"matcher", "*"}})
	dur := 5 + s.rng.IntN(300)
	s.now += int64(dur)
	s.event("hook/result", obj{{"turn", turn}, {"point", "UserPromptSubmit"}, {"handlerId", id},
		{"decision", "allow"}, {"durationMs", dur}, {"exitCode", 0}})
}

// todos writes todo/write with a random list.
func (s *Session) todos() {
	statuses := []string{"completed", "in_progress", "pending"}
	list := arr{}
	for i := range 2 + s.rng.IntN(4) {
		list = append(list, obj{{"content", s.txt.sentence(6)}, {"status", statuses[min(i, 2)]}})
	}
	s.event("todo/write", obj{{"todos", list}})
}

// snapshot returns an injected runtime-context message.
func (s *Session) snapshot() userMsg {
	text := "Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\n" + s.txt.sentence(30)
	return userMsg{pieces: fixedPieces(text), plugin: "@deepseek-ai/dsh-system-prompt", id: s.txt.uuid()}
}
