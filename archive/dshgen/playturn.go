package dshgen

import (
	"strconv"
	"strings"

	"github.com/logbook/logbook/archive/internal/jsonw"
)

// task is one tool call a scripted step makes.
type task struct {
	name     string
	approval string
	size     int
	isErr    bool
	before   func() // events written between tool/call and tool/result
}

// playTurn writes one scripted turn.
func (s *Session) playTurn(in act, end EndReason) {
	if end == "" {
		end = EndCompleted
	}
	raw, pieces := s.txt.prompt(s.txt.around(20))
	prompt := s.humanMsg(pieces)
	if in&actInbox != 0 {
		s.event("agent/inbox/spliced", obj{{"target", "next-turn"}, {"start", 0},
			{"inserted", arr{rawJSON(appendUserMsg(nil, prompt))}}})
	}
	steps := 1 + s.rng.IntN(s.o.StepsPerTurn)
	if !s.o.Families.Has(FamilyTools) {
		steps = 1
	}
	if in&actNeedsTools != 0 {
		steps = max(steps, 2)
	}
	if in&(actCompact|actCompactFail|actPrune) != 0 {
		steps = max(steps, 3)
	}
	s.Turn(func(t *Turn) {
		t.End(end)
		if in&actInbox != 0 {
			s.event("agent/inbox/spliced", obj{{"target", "next-turn"}, {"start", 0}, {"removedCount", 1}, {"inserted", arr{}}})
		}
		for k := 1; k <= steps; k++ {
			if k == 2 && in&actPrune != 0 {
				t.Prune()
			}
			if k == 2 && in&actCompact != 0 {
				t.Compact(false)
			}
			if k == 3 && in&actCompactFail != 0 {
				t.Compact(true)
			}
			t.Step(func(st *Step) {
				if k == 1 {
					s.openingStep(t, st, in, prompt, raw)
				}
				s.playStep(st, k, k == steps, in, end)
			})
		}
	})
}

// openingStep writes the prompt-side events of a turn's first step.
func (s *Session) openingStep(t *Turn, st *Step, in act, prompt userMsg, raw string) {
	if in&actInject != 0 {
		s.writeUser(s.snapshot())
	}
	h := s.writeUser(prompt)
	if in&actTitles != 0 {
		s.Title(prefixRunes(raw, 24), "fallback", []int64{h})
		st.ensureRequest()
		s.TitleRequest([]int64{h}, `[{"seq":`+strconv.FormatInt(h, 10)+`,"text":`+string(jsonw.AppendString(nil, raw))+`}]`)
		s.Title(s.txt.sentence(4), "provider", []int64{h})
	}
	if in&actHooks != 0 {
		s.hooks(t.n)
	}
	if in&actUnknown != 0 {
		s.IgnorableEvent("x-vendor/telemetry", []byte(`{"note":"unknown but ignorable"}`))
	}
}

// playStep writes the model output and tool executions of one scripted step.
func (s *Session) playStep(st *Step, k int, last bool, in act, end EndReason) {
	if s.requested && s.rng.IntN(40) == 0 {
		st.Request("change")
	}
	if last && end == EndError {
		st.Fail()
		return
	}
	var blocks []Block
	if s.rng.IntN(10) < 7 {
		blocks = append(blocks, s.genBlock("reasoning", s.o.ChunkTokens))
	}
	if last {
		blocks = append(blocks, s.genBlock("text", s.o.ChunkTokens))
		switch {
		case end == EndMaxTokens:
			st.ReplyWith(ReplyOptions{MaxTokens: true}, blocks...)
		case end == EndAborted && s.o.Families.Has(FamilyApprovals):
			calls := st.Reply(append(blocks, s.genToolCall("bash"))...)
			st.RunTool(calls[0], Result{Approval: ApprovalPending})
		case end == EndAborted:
			st.ReplyWith(ReplyOptions{Interrupted: true}, blocks...)
		default:
			st.Reply(blocks...)
		}
		return
	}
	tasks := s.stepTasks(k, in)
	if s.rng.IntN(2) == 0 {
		blocks = append(blocks, s.genBlock("text", s.o.ChunkTokens/2))
	}
	for _, tk := range tasks {
		blocks = append(blocks, s.genToolCall(tk.name))
	}
	opts := ReplyOptions{Retry: k == 1 && in&actRetry != 0, Inbox: k == 1 && in&actInterleave != 0}
	calls := st.ReplyWith(opts, blocks...)
	for i, c := range calls {
		tk := tasks[i]
		callSeq := st.ToolCall(c)
		if tk.before != nil {
			tk.before()
		}
		r := Result{Size: tk.size, IsError: tk.isErr}
		if tk.isErr {
			r.ErrName, r.ErrCode = "FsError", "FS_SANDBOX_DENIED"
		}
		if tk.approval != "" {
			st.Approval(c, tk.approval)
			if tk.approval != ApprovalAllowedOnce {
				r = Result{IsError: true, ErrName: "ApprovalDeniedError", ErrCode: "APPROVAL_" + tk.approval}
			}
		}
		st.ToolResult(c, callSeq, r)
	}
}

// stepTasks returns the tool calls of a non-final step.
func (s *Session) stepTasks(k int, in act) []task {
	var tasks []task
	if k == 1 {
		if in&actSchedules != 0 {
			tasks = append(tasks, task{name: "schedule", before: func() {
				s.ScheduleCreate("at", s.schedulePrompt())
				s.ScheduleCreate("after", s.schedulePrompt())
				s.ScheduleCreate("every", s.schedulePrompt())
			}})
		}
		if in&actTodo != 0 {
			tasks = append(tasks, task{name: "todo_write", before: s.todos})
		}
		if in&actApproveOK != 0 {
			tasks = append(tasks, task{name: "bash", approval: ApprovalAllowedOnce})
		}
		if in&actApproveDeny != 0 {
			tasks = append(tasks, task{name: "bash", approval: ApprovalRejected})
		}
		if in&actApproveOther != 0 {
			tasks = append(tasks, task{name: "write", approval: ApprovalCancelled},
				task{name: "bash", approval: ApprovalUnavailable})
		}
	}
	if s.o.Families.Has(FamilyTools) || len(tasks) == 0 {
		for range 1 + s.rng.IntN(s.o.ToolCallsPerStep) {
			tasks = append(tasks, task{isErr: s.rng.IntN(10) == 0})
		}
	}
	if k == 1 && in&actHuge != 0 {
		tasks[len(tasks)-1].size = hugeLineBytes
		tasks[len(tasks)-1].isErr = false
	}
	return tasks
}

// schedulePrompt is a prompt as dsh stores it: non-empty and trimmed (dsh's fold
// rejects surrounding whitespace, so its writer never records any).
func (s *Session) schedulePrompt() string {
	if p := strings.TrimSpace(s.txt.sentence(6)); p != "" {
		return p
	}
	return "check the build"
}
