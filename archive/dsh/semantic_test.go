package dsh

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logBuilder writes a session log event by event with dense seqs.
type logBuilder struct {
	events []Event
	lines  []int64
	line   int64
}

// next is the seq the next event gets.
func (b *logBuilder) next() int64 { return int64(len(b.events)) }

// push adds an event on its own line.
func (b *logBuilder) push(ev Event) int64 {
	b.line++
	ev.Seq = b.next()
	if ev.Chunk == nil {
		ev.Member = -1
	}
	b.events = append(b.events, ev)
	b.lines = append(b.lines, b.line+1) // the header is line 1
	return ev.Seq
}

// add appends a log-only event.
func (b *logBuilder) add(typ, data string, args ...any) int64 {
	return b.push(Event{Type: typ, Data: json.RawMessage(fmt.Sprintf(data, args...))})
}

// surface appends a surface event; op "" omits surfaceOp, src nil omits sourceEventSeqs.
func (b *logBuilder) surface(typ, op string, src []int64, data string, args ...any) int64 {
	ev := Event{Type: typ, Data: json.RawMessage(fmt.Sprintf(data, args...))}
	if op != "" {
		ev.SurfaceOp = json.RawMessage(op)
	}
	if src != nil {
		ev.HasSourceSeqs, ev.SourceEventSeqs = true, src
	}
	return b.push(ev)
}

// chunks appends n reasoning-delta members of one packed row (all on one line).
func (b *logBuilder) chunks(turn, step int64, n int) []int64 {
	b.line++
	seqs := make([]int64, n)
	for k := range seqs {
		seqs[k] = b.next()
		b.events = append(b.events, Event{Seq: seqs[k], Type: "assistant/chunk", Member: k,
			Chunk: &Chunk{Kind: "reasoning-delta", Turn: turn, Step: step, TextJSON: []byte(`"…"`)}})
		b.lines = append(b.lines, b.line+1)
	}
	return seqs
}

func (b *logBuilder) turnStart(turn int64) int64 { return b.add("turn/start", `{"turn":%d}`, turn) }
func (b *logBuilder) turnEnd(turn int64) int64 {
	return b.add("turn/end", `{"turn":%d,"reason":{"kind":"completed"}}`, turn)
}
func (b *logBuilder) stepStart(turn, step int64) int64 {
	return b.add("step/start", `{"turn":%d,"step":%d}`, turn, step)
}
func (b *logBuilder) stepEnd(turn, step int64) int64 {
	return b.add("step/end", `{"turn":%d,"step":%d}`, turn, step)
}

// human appends a human prompt.
func (b *logBuilder) human(text string) int64 {
	return b.surface("user/message", `"append"`, nil,
		`{"id":"u%d","role":"user","content":[{"type":"text","text":%q}],"source":{"kind":"user"}}`, b.next(), text)
}

// injected appends a plugin user/message (not a human prompt).
func (b *logBuilder) injected() int64 {
	return b.surface("user/message", `"append"`, nil,
		`{"id":"p%d","role":"user","content":[],"source":{"kind":"plugin","plugin":"user-approval"}}`, b.next())
}

// assistant streams three chunks and the assembled message advertising calls.
func (b *logBuilder) assistant(turn, step int64, calls ...string) int64 {
	src := b.chunks(turn, step, 3)
	blocks := []string{`{"type":"text","text":"ok"}`}
	for _, id := range calls {
		blocks = append(blocks, fmt.Sprintf(`{"type":"tool-call","id":%q,"name":"sh","arguments":"{\"cmd\":\"ls\"}"}`, id))
	}
	return b.surface("assistant/message", `"append"`, src,
		`{"turn":%d,"step":%d,"message":{"id":"a%d","role":"assistant","content":[%s],"source":{"kind":"model","provider":"p","model":"m"}}}`,
		turn, step, b.next(), strings.Join(blocks, ","))
}

// call starts an advertised call.
func (b *logBuilder) call(turn, step int64, id string) int64 {
	return b.add("tool/call", `{"turn":%d,"step":%d,"callId":%q,"name":"sh","arguments":"{\"cmd\":\"ls\"}"}`, turn, step, id)
}

// result answers a call; callSeq < 0 omits sourceEventSeqs.
func (b *logBuilder) result(turn, step int64, id string, callSeq int64) int64 {
	var src []int64
	if callSeq >= 0 {
		src = []int64{callSeq}
	}
	return b.surface("tool/result", `"append"`, src,
		`{"turn":%d,"step":%d,"message":{"id":"r%d","role":"user","content":[{"type":"tool-result","toolCallId":%q,"content":[]}],"source":{"kind":"tool","callId":%q}}}`,
		turn, step, b.next(), id, id)
}

// toolStep is one complete step with one tool round trip.
func (b *logBuilder) toolStep(turn, step int64, id string) {
	b.stepStart(turn, step)
	b.assistant(turn, step, id)
	b.result(turn, step, id, b.call(turn, step, id))
	b.stepEnd(turn, step)
}

// answerStep is one complete step without tools.
func (b *logBuilder) answerStep(turn, step int64) {
	b.stepStart(turn, step)
	b.assistant(turn, step)
	b.stepEnd(turn, step)
}

// run checks the log.
func (b *logBuilder) run(h *Header) []Problem {
	c := NewChecker(h)
	for i := range b.events {
		c.Observe(&b.events[i], b.lines[i])
	}
	return c.Finish()
}

// kinds lists problem kinds in order.
func kinds(ps []Problem) []Kind {
	out := []Kind{}
	for _, p := range ps {
		out = append(out, p.Kind)
	}
	return out
}

// messages joins problem messages for substring assertions.
func messages(ps []Problem) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Message)
	}
	return strings.Join(s, "\n")
}

// unseeded is a plain top-level header.
var unseeded = &Header{Version: 0, ID: "s"}

type checkerCase struct {
	name     string
	header   *Header
	build    func(b *logBuilder)
	want     []Kind
	contains []string
}

func runCheckerCases(t *testing.T, cases []checkerCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b logBuilder
			tc.build(&b)
			h := tc.header
			if h == nil {
				h = unseeded
			}
			got := b.run(h)
			for _, p := range got {
				assert.EqualValues(t, -1, p.Offset)
				assert.NotEmpty(t, p.Message)
			}
			want := tc.want
			if want == nil {
				want = []Kind{}
			}
			require.Equal(t, want, kinds(got), messages(got))
			for _, s := range tc.contains {
				assert.Contains(t, messages(got), s)
			}
		})
	}
}

func TestCheckerTurnNesting(t *testing.T) {
	runCheckerCases(t, []checkerCase{
		{name: "clean two-turn session passes", build: func(b *logBuilder) {
			b.add("permission/preset", `{"preset":"workspace-write"}`)
			b.turnStart(1)
			b.stepStart(1, 1)
			b.human("hi")
			b.add("request/header", `{"header":{"config":{"provider":"p","model":"m"}},"reason":"initial"}`)
			b.assistant(1, 1, "c1", "c2")
			b.result(1, 1, "c1", b.call(1, 1, "c1"))
			b.result(1, 1, "c2", b.call(1, 1, "c2"))
			b.stepEnd(1, 1)
			b.answerStep(1, 2)
			b.turnEnd(1)
			b.add("agent/inbox/spliced", `{"target":"next-turn","start":0,"inserted":[]}`)
			b.turnStart(2)
			b.turnEnd(2) // a turn may have no step
		}},
		{name: "skipped turn number is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.turnEnd(1)
			b.turnStart(3)
			b.turnEnd(3)
		}, want: []Kind{KindTurnNesting}, contains: []string{"turn/start 3 (seq 2) follows turn 1", "expected 2"}},
		{name: "unseeded log starting at turn 2 is reported", build: func(b *logBuilder) {
			b.turnStart(2)
			b.turnEnd(2)
		}, want: []Kind{KindTurnNesting}, contains: []string{"an unseeded log starts at turn 1"}},
		{name: "fork may start at a later turn", header: &Header{IsSeeded: true, SeedLength: 0}, build: func(b *logBuilder) {
			b.turnStart(5)
			b.answerStep(5, 1)
			b.turnEnd(5)
			b.turnStart(6)
			b.turnEnd(6)
		}},
		{name: "turn/start inside an open turn is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.turnStart(2)
			b.turnEnd(2)
		}, want: []Kind{KindTurnNesting}, contains: []string{"turn/start 2 (seq 1) while turn 1 (turn/start seq 0) was never ended"}},
		{name: "turn/end without open turn is reported", build: func(b *logBuilder) {
			b.turnEnd(1)
		}, want: []Kind{KindTurnNesting}, contains: []string{"turn/end 1 (seq 0) but no turn is open"}},
		{name: "turn/end over an open step is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindTurnNesting}, contains: []string{"while step 1 (step/start seq 1) is still open"}},
		{name: "steps not starting at 1 are reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.answerStep(1, 2)
			b.turnEnd(1)
		}, want: []Kind{KindTurnNesting}, contains: []string{"steps are numbered from 1 per turn (expected 1)"}},
		{name: "steps restart per turn", build: func(b *logBuilder) {
			b.turnStart(1)
			b.answerStep(1, 1)
			b.answerStep(1, 2)
			b.turnEnd(1)
			b.turnStart(2)
			b.answerStep(2, 1)
			b.turnEnd(2)
		}},
		{name: "chunk run outside a step is reported once", build: func(b *logBuilder) {
			b.turnStart(1)
			b.chunks(1, 1, 5)
			b.turnEnd(1)
		}, want: []Kind{KindTurnNesting}, contains: []string{"assistant/chunk (seq 1) belongs to turn 1 step 1, but turn 1 has no open step"}},
		{name: "plain chunk naming another step is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.add("assistant/chunk", `{"turn":1,"step":2,"chunk":{"type":"usage","usage":{}}}`)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindTurnNesting}, contains: []string{"the open step is turn 1 step 1"}},
		{name: "assistant/message outside a turn is reported", build: func(b *logBuilder) {
			b.assistant(1, 1)
		}, want: []Kind{KindTurnNesting}, contains: []string{
			"assistant/chunk (seq 0) belongs to turn 1 step 1, but no turn is open (further events misplaced the same way are not listed)"}},
		{name: "request/header outside a turn is reported", build: func(b *logBuilder) {
			b.add("request/header", `{"header":{"config":{}},"reason":"initial"}`)
		}, want: []Kind{KindTurnNesting}, contains: []string{"request/header (seq 0) is outside any open turn"}},
	})
}

func TestCheckerToolLifecycle(t *testing.T) {
	runCheckerCases(t, []checkerCase{
		{name: "paired calls pass", build: func(b *logBuilder) {
			b.turnStart(1)
			b.toolStep(1, 1, "c1")
			b.toolStep(1, 2, "c2")
			b.turnEnd(1)
		}},
		{name: "unadvertised tool/call is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1)
			b.result(1, 1, "ghost", b.call(1, 1, "ghost"))
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{`tool/call ghost "sh" (seq 6) matches no tool-call block`}},
		{name: "tool/call with other arguments is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			call := b.add("tool/call", `{"turn":1,"step":1,"callId":"c1","name":"sh","arguments":"{}"}`)
			b.result(1, 1, "c1", call)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{"different arguments"}},
		{name: "tool/call with another name is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			call := b.add("tool/call", `{"turn":1,"step":1,"callId":"c1","name":"rm","arguments":"{\"cmd\":\"ls\"}"}`)
			b.result(1, 1, "c1", call)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{`names tool "rm" but assistant/message (seq 5) advertised "sh"`}},
		{name: "tool/result without call is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1)
			b.result(1, 1, "nobody", -1)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{"tool/result (seq 6) for call nobody has no tool call advertised or started in turn 1 step 1"}},
		{name: "result for an unstarted call is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			b.result(1, 1, "c1", -1)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{"no tool/call started it"}},
		{name: "TOOL_NOT_STARTED repair resolves an unstarted call", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			b.surface("tool/result", `"append"`, nil,
				`{"turn":1,"step":1,"message":{"id":"interrupted-tool-result-c1-%d","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[],"isError":true}],"source":{"kind":"tool","callId":"c1"}},"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}}`, b.next())
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}},
		{name: "advertised call left at step/end is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{`tool call c1 "sh" advertised by assistant/message (seq 5) was neither started nor resolved before step/end (seq 6)`}},
		{name: "started call left at step/end is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			b.call(1, 1, "c1")
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{`tool/call c1 "sh" (seq 6) has no tool/result before step/end (seq 7)`}},
		{name: "result not citing its call is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			b.call(1, 1, "c1")
			b.result(1, 1, "c1", 0)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{"does not cite its tool/call (seq 6)"}},
		{name: "result block naming another call is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			call := b.call(1, 1, "c1")
			b.surface("tool/result", `"append"`, []int64{call},
				`{"turn":1,"step":1,"message":{"id":"r","role":"user","content":[{"type":"tool-result","toolCallId":"c9","content":[]}],"source":{"kind":"tool","callId":"c1"}}}`)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{"is for call c1 but its tool-result block names c9"}},
		{name: "repeated tool/call is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
			b.call(1, 1, "c1")
			call := b.call(1, 1, "c1")
			b.result(1, 1, "c1", call)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedTool}, contains: []string{"repeats a call already started at seq 6"}},
	})
}

func TestCheckerPairs(t *testing.T) {
	runCheckerCases(t, []checkerCase{
		{name: "approval, command and retry pairs pass", build: func(b *logBuilder) {
			b.add("command/run", `{"commandId":"cmd-1","name":"permission","source":{"kind":"user"}}`)
			b.add("command/done", `{"commandId":"cmd-1","kind":"success"}`)
			b.turnStart(1)
			b.stepStart(1, 1)
			b.add("llm/retry", `{"retryId":"r1","retry":1,"turn":1,"step":1,"provider":"p","policyKey":"k","mode":"normal","delayMs":10,"maxRetries":3,"failure":{}}`)
			b.add("llm/retry-started", `{"retryId":"r1","retry":1,"turn":1,"step":1}`)
			b.add("llm/retry", `{"retryId":"r1","retry":2,"turn":1,"step":1,"provider":"p","policyKey":"k","mode":"normal","delayMs":10,"maxRetries":3,"failure":{}}`)
			b.assistant(1, 1, "c1")
			b.add("approval/asked", `{"id":"ap1","toolName":"sh","callId":"c1"}`)
			b.add("approval/decided", `{"id":"ap1","outcome":"allowed-once"}`)
			b.result(1, 1, "c1", b.call(1, 1, "c1"))
			b.stepEnd(1, 1)
			b.turnEnd(1) // retry #2 never started: a cancelled back-off, not an error
		}},
		{name: "approval decided without ask is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.add("approval/decided", `{"id":"ap9","outcome":"rejected"}`)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedApproval}, contains: []string{"approval/decided ap9 (rejected, seq 1) has no open approval/asked"}},
		{name: "approval undecided at turn/end is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.add("approval/asked", `{"id":"ap1","toolName":"sh"}`)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedApproval}, contains: []string{`approval ap1 for tool "sh" (approval/asked seq 1) was never decided before turn/end (seq 2) ended turn 1`}},
		{name: "approval asked outside a turn is reported", build: func(b *logBuilder) {
			b.add("approval/asked", `{"id":"ap1","toolName":"sh"}`)
		}, want: []Kind{KindTurnNesting, KindUnpairedApproval}, contains: []string{"is outside any open turn", "was never decided"}},
		{name: "approval undecided in the open final turn is part of the tail", build: func(b *logBuilder) {
			b.turnStart(1)
			b.add("approval/asked", `{"id":"ap1","toolName":"sh"}`)
		}, want: []Kind{KindInterruptedTail}, contains: []string{`approval ap1 for tool "sh" (approval/asked seq 1) is undecided`}},
		{name: "command/done without run is reported", build: func(b *logBuilder) {
			b.add("command/done", `{"commandId":"cmd-9","kind":"error"}`)
		}, want: []Kind{KindUnpairedCommand}, contains: []string{"command/done cmd-9 (error, seq 0) has no prior command/run"}},
		{name: "command never done before later turns is reported", build: func(b *logBuilder) {
			b.add("command/run", `{"commandId":"cmd-1","name":"goal","source":{"kind":"user"}}`)
			b.turnStart(1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedCommand}, contains: []string{`command/run cmd-1 "goal" (seq 0) never got a command/done`}},
		{name: "command still running at the end is part of the tail", build: func(b *logBuilder) {
			b.turnStart(1)
			b.turnEnd(1)
			b.add("command/run", `{"commandId":"cmd-2","name":"compact","source":{"kind":"user"}}`)
		}, want: []Kind{KindInterruptedTail}, contains: []string{`command/run cmd-2 "compact" (seq 2) has no command/done`}},
		{name: "repeated command id is reported", build: func(b *logBuilder) {
			b.add("command/run", `{"commandId":"cmd-1","name":"a","source":{"kind":"user"}}`)
			b.add("command/run", `{"commandId":"cmd-1","name":"a","source":{"kind":"user"}}`)
			b.add("command/done", `{"commandId":"cmd-1","kind":"success"}`)
		}, want: []Kind{KindUnpairedCommand}, contains: []string{"repeats a commandId still running since seq 0"}},
		{name: "retry-started without retry is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.add("llm/retry-started", `{"retryId":"r1","retry":1,"turn":1,"step":1}`)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedRetry}, contains: []string{"llm/retry-started r1 #1 (seq 2) pairs no prior llm/retry"}},
		{name: "retry-started for another attempt is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.add("llm/retry", `{"retryId":"r1","retry":1,"turn":1,"step":1}`)
			b.add("llm/retry-started", `{"retryId":"r1","retry":2,"turn":1,"step":1}`)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}, want: []Kind{KindUnpairedRetry}, contains: []string{"r1 #2"}},
	})
}

// compactionPrefix writes a finished turn with four surface nodes and returns them.
func compactionPrefix(b *logBuilder) []int64 {
	b.turnStart(1)
	b.stepStart(1, 1)
	h := b.human("do it")
	b.assistant(1, 1, "c1")
	a := b.next() - 1
	call := b.call(1, 1, "c1")
	r := b.result(1, 1, "c1", call)
	b.stepEnd(1, 1)
	b.stepStart(1, 2)
	b.assistant(1, 2)
	a2 := b.next() - 1
	b.stepEnd(1, 2)
	b.turnEnd(1)
	return []int64{h, a, r, a2}
}

// checkpoint writes the compaction checkpoint replacing span; extra is appended to
// the source object (e.g. `,"sourceCommandId":"cmd"`).
func checkpoint(b *logBuilder, id string, span []int64, start, end int64, extra ...string) int64 {
	return b.surface("user/message", fmt.Sprintf(`{"op":"replace","start":%d,"end":%d}`, start, end), span,
		`{"id":"cp","role":"user","content":[{"type":"text","text":"summary"}],"source":{"kind":"plugin","plugin":"compact","compactionId":%q%s}}`,
		id, strings.Join(extra, ""))
}

// summary writes a compaction/summary over span; extra is appended to the data.
func summary(b *logBuilder, id string, start, end int64, span []int64, extra ...string) int64 {
	seqs, _ := json.Marshal(span)
	return b.add("compaction/summary",
		`{"compactionId":%q,"summary":[],"shadowedRange":{"start":%d,"end":%d},"shadowedSeqs":%s,"shadowedTokenCount":10,"provider":"p","model":"m"%s}`,
		id, start, end, seqs, strings.Join(extra, ""))
}

func TestCheckerCompaction(t *testing.T) {
	runCheckerCases(t, []checkerCase{
		{name: "manual compaction between turns passes", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
			summary(b, "k1", nodes[0], nodes[2], nodes[:3])
			checkpoint(b, "k1", nodes[:3], nodes[0], nodes[2])
			b.add("compaction/end", `{"compactionId":"k1","turn":null}`)
			b.turnStart(2)
			b.turnEnd(2)
		}},
		{name: "in-turn compaction from a command passes", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.turnStart(2)
			b.add("compaction/start", `{"compactionId":"k1","turn":2,"sourceCommandId":"cmd"}`)
			summary(b, "k1", nodes[0], nodes[3], nodes, `,"sourceCommandId":"cmd"`)
			checkpoint(b, "k1", nodes, nodes[0], nodes[3], `,"sourceCommandId":"cmd"`)
			b.add("compaction/end", `{"compactionId":"k1","turn":2,"sourceCommandId":"cmd"}`)
			b.turnEnd(2)
		}},
		{name: "summary of another command is reported", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.turnStart(2)
			b.add("compaction/start", `{"compactionId":"k1","turn":2,"sourceCommandId":"cmd"}`)
			summary(b, "k1", nodes[0], nodes[3], nodes)
			checkpoint(b, "k1", nodes, nodes[0], nodes[3])
			b.add("compaction/end", `{"compactionId":"k1","turn":2,"sourceCommandId":"cmd"}`)
			b.turnEnd(2)
		}, want: []Kind{KindCompaction, KindCompaction, KindCompaction}, contains: []string{
			`compaction/summary "k1" (seq 19) has no matching compaction/start (open: "k1" from seq 18)`,
			`compaction checkpoint user/message (seq 20) for compaction "k1" has no matching open compaction/start`,
			`compaction/end "k1" (seq 21) reports success but the bracket has no compaction/summary`}},
		{name: "shadowedSeqs that are not the surface span are reported", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
			summary(b, "k1", nodes[0], nodes[2], []int64{nodes[0], nodes[2]})
			checkpoint(b, "k1", nodes[:3], nodes[0], nodes[2])
			b.add("compaction/end", `{"compactionId":"k1","turn":null}`)
		}, want: []Kind{KindCompaction}, contains: []string{"compaction/summary (seq 18) shadowedSeqs (2 seqs) are not the exact current surface span 2..8 (3 nodes): they differ at index 1: surface has 6, shadowedSeqs has 8"}},
		{name: "shadowedRange off the surface is reported", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
			summary(b, "k1", nodes[2], nodes[0], []int64{nodes[2], nodes[0]})
			checkpoint(b, "k1", []int64{nodes[0], nodes[2]}, nodes[2], nodes[0])
			b.add("compaction/end", `{"compactionId":"k1","turn":null}`)
		}, want: []Kind{KindCompaction, KindSurface}, contains: []string{
			"compaction/summary (seq 18) shadowedRange 8..2 is not a span of the current surface (4 nodes)",
			"user/message (seq 19) replaces 8..2 but seq 8 comes after seq 2 on the surface"}},
		{name: "summary not followed by its checkpoint is reported", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
			summary(b, "k1", nodes[0], nodes[1], nodes[:2])
			b.add("todo/write", `{"todos":[]}`)
			b.add("compaction/end", `{"compactionId":"k1","turn":null}`)
		}, want: []Kind{KindCompaction}, contains: []string{`compaction/summary "k1" (seq 18) must be followed immediately by its checkpoint user/message replacing 2..6, but the next event is todo/write (seq 19)`}},
		{name: "checkpoint over another span is reported", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
			summary(b, "k1", nodes[0], nodes[1], nodes[:2])
			checkpoint(b, "k1", nodes[:3], nodes[0], nodes[2])
			b.add("compaction/end", `{"compactionId":"k1","turn":null}`)
		}, want: []Kind{KindCompaction}, contains: []string{"compaction checkpoint (seq 19) replaces 2..8 but compaction/summary (seq 18) shadows 2..6"}},
		{name: "successful end without summary is reported", build: func(b *logBuilder) {
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
			b.add("compaction/end", `{"compactionId":"k1","turn":null}`)
		}, want: []Kind{KindCompaction}, contains: []string{`compaction/end "k1" (seq 1) reports success but the bracket has no compaction/summary`}},
		{name: "failed compaction without summary passes", build: func(b *logBuilder) {
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
			b.add("compaction/end", `{"compactionId":"k1","turn":null,"error":"provider failed"}`)
		}},
		{name: "end without start is reported", build: func(b *logBuilder) {
			b.add("compaction/end", `{"compactionId":"k1","turn":null}`)
		}, want: []Kind{KindCompaction}, contains: []string{`compaction/end "k1" (seq 0) has no matching compaction/start (none is open)`}},
		{name: "bracket crossing a turn is reported", build: func(b *logBuilder) {
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
			b.turnStart(1)
			b.turnEnd(1)
			b.add("compaction/end", `{"compactionId":"k1","turn":null,"error":"x"}`)
		}, want: []Kind{KindCompaction}, contains: []string{`compaction "k1" (seq 0..3) crosses turn/start (seq 1)`}},
		{name: "turn-owned start between turns is reported", build: func(b *logBuilder) {
			b.add("compaction/start", `{"compactionId":"k1","turn":3}`)
			b.add("compaction/end", `{"compactionId":"k1","turn":3,"error":"x"}`)
		}, want: []Kind{KindCompaction, KindCompaction}, contains: []string{`compaction/start "k1" (seq 0) is owned by turn 3 but no turn is open`}},
		{name: "stale start before session/end-seed is ignored", build: func(b *logBuilder) {
			b.add("compaction/start", `{"compactionId":"old","turn":null}`)
			b.turnStart(1)
			b.turnEnd(1)
			b.add("session/end-seed", `{}`)
			b.turnStart(2)
			b.turnEnd(2)
		}},
		{name: "compaction open at the end is part of the tail", build: func(b *logBuilder) {
			b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
		}, want: []Kind{KindInterruptedTail}, contains: []string{`compaction "k1" (compaction/start seq 0) never ended; it has no compaction/summary`}},
		{name: "prune with its replacement passes", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.turnStart(2)
			b.add("compaction/prune", `{"shadowedRange":{"start":%d,"end":%d},"shadowedSeqs":[%d],"shadowedTokenCount":5}`, nodes[2], nodes[2], nodes[2])
			b.surface("tool/result", fmt.Sprintf(`{"op":"replace","start":%d,"end":%d}`, nodes[2], nodes[2]), []int64{nodes[2]},
				`{"turn":1,"step":1,"message":{"id":"r","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[]}],"source":{"kind":"tool","callId":"c1"}}}`)
			b.turnEnd(2)
		}},
		{name: "prune without its replacement is reported", build: func(b *logBuilder) {
			nodes := compactionPrefix(b)
			b.turnStart(2)
			b.add("compaction/prune", `{"shadowedRange":{"start":%d,"end":%d},"shadowedSeqs":[%d],"shadowedTokenCount":5}`, nodes[2], nodes[2], nodes[2])
			b.turnEnd(2)
		}, want: []Kind{KindCompaction}, contains: []string{"compaction/prune (seq 18) must be followed immediately by its tool/result replacement of 8..8, but the next event is turn/end (seq 19)"}},
		{name: "legacy compact/* names are checked as compaction", build: func(b *logBuilder) {
			b.add("compact/start", `{"turn":null}`)
			b.add("compact/end", `{"turn":null,"error":"x"}`)
		}, want: []Kind{KindLegacyEvent, KindLegacyEvent, KindLegacyEvent}, contains: []string{
			"legacy event type compact/start: 1 event (first at seq 0)", "legacy compaction without compactionId: 2 events"}},
	})
}
