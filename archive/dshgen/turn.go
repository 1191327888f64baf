package dshgen

import (
	"strconv"

	"github.com/logbook/logbook/archive/internal/jsonw"
)

// EndReason is the kind of a turn/end reason.
type EndReason string

// Turn end reasons the builder writes.
const (
	EndCompleted EndReason = "completed"  // {kind:"completed"}
	EndAborted   EndReason = "aborted"    // {kind:"aborted",reason:{kind:"user"}}
	EndError     EndReason = "error"      // {kind:"error",error:{code,message,status}}
	EndMaxTokens EndReason = "max-tokens" // {kind:"max-tokens"}
)

// Turn builds one turn: turn/start, its messages and steps, turn/end.
type Turn struct {
	s      *Session
	n      int64
	steps  int64
	reason EndReason
	inStep bool
}

// Turn writes turn/start, runs fn, then turn/end with the reason set by Turn.End
// (completed by default). It returns the turn number (consecutive from 1, continuing
// the parent's numbering in a fork).
func (s *Session) Turn(fn func(t *Turn)) int64 {
	if s.openTurn {
		panic("dshgen: nested Turn")
	}
	s.now += 500 + int64(s.rng.IntN(20000))
	s.turn++
	t := &Turn{s: s, n: s.turn, reason: EndCompleted}
	start := s.event("turn/start", obj{{"turn", t.n}})
	if s.mem != nil {
		s.turnStarts = append(s.turnStarts, turnRec{seq: start, turn: t.n})
	}
	s.openTurn = true
	fn(t)
	var reason any
	switch t.reason {
	case EndAborted:
		reason = obj{{"kind", "aborted"}, {"reason", obj{{"kind", "user"}}}}
	case EndError:
		reason = obj{{"kind", "error"}, {"error", obj{
			{"code", "PROVIDER_ERROR"}, {"message", "upstream returned 503 Service Unavailable"}, {"status", 503}}}}
	default:
		reason = obj{{"kind", string(t.reason)}}
	}
	end := s.event("turn/end", obj{{"turn", t.n}, {"reason", reason}})
	s.openTurn = false
	s.facts.Turns = append(s.facts.Turns, TurnFact{Turn: t.n, StartSeq: start, EndSeq: end, Reason: t.reason, Steps: int(t.steps)})
	return t.n
}

// Number returns the turn number.
func (t *Turn) Number() int64 { return t.n }

// End sets the reason written in this turn's turn/end.
func (t *Turn) End(r EndReason) { t.reason = r }

// User writes a human prompt user/message (source kind "user") appended to the surface.
func (t *Turn) User(text string) int64 {
	return t.s.writeUser(t.s.humanMsg(fixedPieces(text)))
}

// Inject writes a plugin-sourced (injected context) user/message appended to the surface.
func (t *Turn) Inject(plugin, text string) int64 {
	return t.s.writeUser(userMsg{pieces: fixedPieces(text), plugin: plugin, id: t.s.txt.uuid()})
}

// userMsg is a user/message body: a human prompt (plugin == "") or injected context.
type userMsg struct {
	pieces []string // escaped text
	plugin string
	id     string
	rpcID  string
}

// humanMsg returns a human prompt with fresh ids.
func (s *Session) humanMsg(pieces []string) userMsg {
	return userMsg{pieces: pieces, id: s.txt.uuid(), rpcID: s.txt.uuid()}
}

// appendUserMsg appends the UserMessage JSON of m (key order as dsh writes it).
func appendUserMsg(b []byte, m userMsg) []byte {
	b = append(b, `{"content":[{"type":"text","text":"`...)
	for _, p := range m.pieces {
		b = append(b, p...)
	}
	b = append(b, `"}],"source":`...)
	if m.plugin == "" {
		b = append(b, `{"kind":"user","rpcId":`...)
		b = jsonw.AppendString(b, m.rpcID)
		b = append(b, `,"clientTimeZone":"Asia/Shanghai"}`...)
	} else {
		b = append(b, `{"kind":"plugin","plugin":`...)
		b = jsonw.AppendString(b, m.plugin)
		b = append(b, '}')
	}
	b = append(b, `,"role":"user","id":`...)
	b = jsonw.AppendString(b, m.id)
	return append(b, '}')
}

// writeUser writes a user/message with surfaceOp append.
func (s *Session) writeUser(m userMsg) int64 {
	seq := s.begin("user/message")
	s.lb = appendUserMsg(s.lb, m)
	s.commitSurface(nil, nodeUser, surfaceOp{})
	if m.plugin == "" {
		s.facts.HumanMessages = append(s.facts.HumanMessages, seq)
	}
	return seq
}

// Step builds one step: step/start, model output and tool executions, step/end.
type Step struct {
	s *Session
	t *Turn
	n int64
}

// Step writes step/start, runs fn, then step/end. Steps are numbered from 1 per turn.
func (t *Turn) Step(fn func(st *Step)) int64 {
	s := t.s
	t.steps++
	st := &Step{s: s, t: t, n: t.steps}
	s.now += 5 + int64(s.rng.IntN(20))
	s.event("step/start", obj{{"turn", t.n}, {"step", st.n}})
	t.inStep = true
	fn(st)
	t.inStep = false
	s.event("step/end", obj{{"turn", t.n}, {"step", st.n}})
	return st.n
}

// Number returns the step number within its turn.
func (st *Step) Number() int64 { return st.n }

// Request writes request/header (and request/context the first time). Reply calls it
// automatically before the first request of a session.
func (st *Step) Request(reason string) {
	s := st.s
	tools := make(arr, 0, len(toolNames))
	for _, name := range toolNames {
		tools = append(tools, obj{{"name", name}, {"description", "Tool " + name + "."},
			{"parameters", obj{{"type", "object"}, {"additionalProperties", true}}}})
	}
	s.event("request/header", obj{
		{"header", obj{
			{"config", obj{{"provider", s.provider}, {"model", s.model}, {"maxTokens", 256000}, {"reasoningEffort", "high"}}},
			{"adapterDefaults", obj{{"reasoningEffort", true}, {"maxTokens", true}}},
			{"system", "You are an AI agent powered by DeepSeek Harness. " + s.txt.sentence(40)},
			{"tools", tools},
		}},
		{"reason", reason},
	})
	if !s.requested {
		s.event("request/context", obj{{"provider", s.provider}, {"model", s.model}, {"contextWindow", 1000000}})
	}
	s.requested = true
}

// ensureRequest writes the session's first request/header if none was written yet.
func (st *Step) ensureRequest() {
	if !st.s.requested {
		st.Request(st.s.firstReason)
	}
}

// ReplyOptions tunes Step.ReplyWith.
type ReplyOptions struct {
	MaxTokens   bool // finish {kind:"max-tokens"}
	Interrupted bool // finish aborted and assistant/message data.interrupted:true
	Retry       bool // a failed first attempt, llm/retry and llm/retry-started first
	Inbox       bool // an agent/inbox/spliced event interleaved before usage (gap in sourceEventSeqs)
}

// Reply streams blocks as assistant/chunk events (packed per the writer rule), writes
// the assistant/message citing them and returns the advertised tool calls.
func (st *Step) Reply(blocks ...Block) []Call {
	return st.ReplyWith(ReplyOptions{}, blocks...)
}

// ReplyWith is Reply with options.
func (st *Step) ReplyWith(o ReplyOptions, blocks ...Block) []Call {
	s := st.s
	st.ensureRequest()
	s.now += 300 + int64(s.rng.IntN(1500))
	if o.Retry {
		first := make([]Block, len(blocks))
		for i, b := range blocks {
			b.id = ""
			first[i] = b
		}
		s.chunkSeqs = s.chunkSeqs[:0]
		s.stream(st.t.n, st.n, first, `{"kind":"error","failure":{"code":"RATE_LIMITED","message":"429 Too Many Requests","status":429}}`, true, nil)
		retryID := "retry-" + s.txt.uuid()
		s.event("llm/retry", obj{{"retryId", retryID}, {"retry", 1}, {"turn", st.t.n}, {"step", st.n},
			{"mode", "normal"}, {"maxRetries", 5}, {"delayMs", 2000}, {"policyKey", "default"}, {"provider", s.provider},
			{"failure", obj{{"code", "RATE_LIMITED"}, {"message", "429 Too Many Requests"}, {"status", 429}}}})
		s.now += 2000
		s.event("llm/retry-started", obj{{"retryId", retryID}, {"retry", 1}, {"turn", st.t.n}, {"step", st.n}})
	}
	var calls []Call
	finish := `{"kind":"stop"}`
	for _, b := range blocks {
		if b.kind == "tool-call" {
			finish = `{"kind":"tool-calls"}`
		}
	}
	switch {
	case o.MaxTokens:
		finish = `{"kind":"max-tokens"}`
	case o.Interrupted:
		finish = `{"kind":"aborted","failure":{"code":"ABORTED","message":"The operation was aborted"}}`
	}
	s.chunkSeqs = s.chunkSeqs[:0]
	var mid func()
	if o.Inbox {
		mid = s.inboxSplice
	}
	s.stream(st.t.n, st.n, blocks, finish, false, mid)
	s.begin("assistant/message")
	s.lb = append(s.lb, `{"turn":`...)
	s.lb = strconv.AppendInt(s.lb, st.t.n, 10)
	s.lb = append(s.lb, `,"step":`...)
	s.lb = strconv.AppendInt(s.lb, st.n, 10)
	s.lb = append(s.lb, `,"message":{"role":"assistant","content":[`...)
	for i := range blocks {
		if i > 0 {
			s.lb = append(s.lb, ',')
		}
		s.lb = s.appendBlock(s.lb, &blocks[i])
		if blocks[i].kind == "tool-call" {
			calls = append(calls, Call{ID: blocks[i].id, Name: blocks[i].name, args: joinPieces(blocks[i].pieces)})
		}
	}
	s.lb = append(s.lb, `],"source":{"kind":"model","provider":`...)
	s.lb = jsonw.AppendString(s.lb, s.provider)
	s.lb = append(s.lb, `,"model":`...)
	s.lb = jsonw.AppendString(s.lb, s.model)
	s.lb = append(s.lb, `},"id":"`...)
	s.lb = append(s.lb, s.txt.uuid()...)
	s.lb = append(s.lb, `"},"usage":`...)
	s.lb = s.appendUsage(s.lb)
	if o.Interrupted {
		s.lb = append(s.lb, `,"interrupted":true`...)
	}
	s.lb = append(s.lb, '}')
	s.commitSurface(s.chunkSeqs, nodeAssistant, surfaceOp{})
	return calls
}

// inboxSplice writes an agent/inbox/spliced event queueing a message for the next step.
func (s *Session) inboxSplice() {
	s.event("agent/inbox/spliced", obj{{"target", "next-step"}, {"start", 0}, {"inserted", arr{
		obj{{"content", arr{obj{{"type", "text"}, {"text", s.txt.sentence(8)}}}},
			{"source", obj{{"kind", "plugin"}, {"plugin", "user-approval"}}}, {"role", "user"}, {"id", s.txt.uuid()}}}}})
}

// joinPieces concatenates escaped pieces.
func joinPieces(p []string) string {
	n := 0
	for _, x := range p {
		n += len(x)
	}
	b := make([]byte, 0, n)
	for _, x := range p {
		b = append(b, x...)
	}
	return string(b)
}

// Fail writes a failed model call: a partial stream ending with finish {kind:"error"}
// and no assistant/message. Pair it with Turn.End(EndError).
func (st *Step) Fail() {
	s := st.s
	st.ensureRequest()
	s.chunkSeqs = s.chunkSeqs[:0]
	s.stream(st.t.n, st.n, []Block{s.genBlock("text", 8)},
		`{"kind":"error","failure":{"code":"PROVIDER_ERROR","message":"upstream returned 503 Service Unavailable","status":503}}`, true, nil)
}
