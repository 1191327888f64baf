package demogen

import (
	"encoding/json"

	"github.com/logbook/logbook/archive/dshgen"
)

// tool is one scripted tool call and what it returned.
type tool struct {
	name   string
	args   map[string]any
	result string
	failed bool
	// approval, when set, is the outcome of the approval the call asked for
	// (dshgen.ApprovalRejected, …) and reason what it said.
	approval, reason string
}

// step is what the assistant does in one step: think, say, call tools.
type step struct {
	think string
	say   string
	tools []tool
}

// turn is one scripted turn: the person's prompt, the steps, and optionally a
// compaction (its summary) before the last step.
type turn struct {
	prompt  string
	steps   []step
	compact string
}

// bash is a shell call of dsh's bash tool.
func bash(cmd, out string) tool {
	return tool{name: "bash", args: map[string]any{"command": cmd}, result: out}
}

// bashFail is a shell call whose command failed.
func bashFail(cmd, out string) tool {
	t := bash(cmd, out)
	t.failed = true
	return t
}

func read(path, out string) tool {
	return tool{name: "read", args: map[string]any{"file_path": path}, result: out}
}

func write(path, content string) tool {
	return tool{name: "write", args: map[string]any{"file_path": path, "content": content}, result: "Wrote " + path}
}

func edit(path, old, new string) tool {
	return tool{name: "edit", args: map[string]any{"file_path": path, "old_string": old, "new_string": new}, result: "Edited " + path}
}

func grep(pattern, path, out string) tool {
	return tool{name: "grep", args: map[string]any{"pattern": pattern, "path": path}, result: out}
}

// play writes turns into a session.
func play(s *dshgen.Session, turns []turn) {
	for _, tr := range turns {
		s.Turn(func(tb *dshgen.Turn) {
			tb.User(tr.prompt)
			for i, st := range tr.steps {
				if tr.compact != "" && i == len(tr.steps)-1 {
					tb.CompactWith(tr.compact)
				}
				tb.Step(func(sb *dshgen.Step) { playStep(sb, st) })
			}
		})
	}
}

func playStep(sb *dshgen.Step, st step) {
	var blocks []dshgen.Block
	if st.think != "" {
		blocks = append(blocks, dshgen.Reasoning(st.think))
	}
	if st.say != "" {
		blocks = append(blocks, dshgen.Text(st.say))
	}
	for _, t := range st.tools {
		args, err := json.Marshal(t.args)
		if err != nil {
			panic(err) // maps of strings and numbers always marshal
		}
		blocks = append(blocks, dshgen.ToolCall(t.name, string(args)))
	}
	calls := sb.Reply(blocks...)
	for i, t := range st.tools {
		r := dshgen.Result{Text: t.result, IsError: t.failed, Approval: t.approval, ApprovalReason: t.reason}
		if t.failed {
			r.ErrName, r.ErrCode = "CommandFailed", "EXIT_1"
		}
		sb.RunTool(calls[i], r)
	}
}
