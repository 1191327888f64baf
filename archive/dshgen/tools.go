package dshgen

import (
	"strconv"

	"github.com/logbook/logbook/archive/internal/jsonw"
)

// Approval outcomes (approval/decided data.outcome), plus ApprovalPending for an
// approval/asked that is never decided.
const (
	ApprovalAllowedOnce = "allowed-once"
	ApprovalRejected    = "rejected"
	ApprovalCancelled   = "cancelled"
	ApprovalUnavailable = "unavailable"
	ApprovalPending     = "pending"
)

// Result describes the tool/result Step.ToolResult writes.
type Result struct {
	Text     string // result text; generated when empty
	Size     int    // size of generated text; 0 = about Options.ToolResultBytes
	IsError  bool   // tool-result isError:true plus data.error
	ErrName  string // data.error.name (default "ToolError")
	ErrCode  string // data.error.code (default "TOOL_FAILED")
	Approval string // outcome asked/decided between tool/call and tool/result; "" = none
	// ApprovalReason is the approval/asked reason; generated when empty.
	ApprovalReason string
}

// ToolCall writes the tool/call event that starts an advertised call.
func (st *Step) ToolCall(c Call) int64 {
	s := st.s
	seq := s.begin("tool/call")
	s.lb = append(s.lb, `{"turn":`...)
	s.lb = strconv.AppendInt(s.lb, st.t.n, 10)
	s.lb = append(s.lb, `,"step":`...)
	s.lb = strconv.AppendInt(s.lb, st.n, 10)
	s.lb = append(s.lb, `,"callId":`...)
	s.lb = jsonw.AppendString(s.lb, c.ID)
	s.lb = append(s.lb, `,"name":`...)
	s.lb = jsonw.AppendString(s.lb, c.Name)
	s.lb = append(s.lb, `,"arguments":"`...)
	s.lb = append(s.lb, c.args...)
	s.lb = append(s.lb, `"}`...)
	s.commit()
	return seq
}

// Approval writes approval/asked for c and, unless outcome is ApprovalPending,
// approval/decided. It returns the approval id.
func (st *Step) Approval(c Call, outcome string) string {
	return st.approval(c, outcome, "")
}

// approval is Approval with the reason asked ("" = generated).
func (st *Step) approval(c Call, outcome, reason string) string {
	s := st.s
	id := s.txt.uuid()
	if reason == "" {
		reason = "escalate sandbox to workspace-write: " + s.txt.sentence(6)
	}
	asked := s.event("approval/asked", obj{{"id", id}, {"toolName", c.Name}, {"callId", c.ID},
		{"reason", reason}})
	fact := ApprovalFact{ID: id, CallID: c.ID, AskedSeq: asked, DecidedSeq: -1, Outcome: outcome}
	if outcome != ApprovalPending {
		s.now += 500 + int64(s.rng.IntN(5000))
		fact.DecidedSeq = s.event("approval/decided", obj{{"id", id}, {"outcome", outcome}})
	}
	s.facts.Approvals = append(s.facts.Approvals, fact)
	return id
}

// ToolResult writes the tool/result for c (surfaceOp append, sourceEventSeqs [callSeq]).
func (st *Step) ToolResult(c Call, callSeq int64, r Result) int64 {
	s := st.s
	if r.IsError {
		if r.ErrName == "" {
			r.ErrName = "ToolError"
		}
		if r.ErrCode == "" {
			r.ErrCode = "TOOL_FAILED"
		}
	}
	s.now += int64(s.rng.IntN(400))
	tn := toolNode{turn: st.t.n, step: st.n, callID: c.ID, msgID: s.txt.uuid(), isErr: r.IsError,
		errName: r.ErrName, errCode: r.ErrCode, durMs: int64(s.rng.IntN(3000))}
	seq := s.begin("tool/result")
	s.appendToolResultData(tn, func() {
		if r.Text != "" {
			s.lb = jsonw.AppendEscaped(s.lb, r.Text)
			return
		}
		size := r.Size
		if size <= 0 {
			size = s.txt.around(s.o.ToolResultBytes)
		}
		s.lb = s.txt.appendText(s.lb, size)
	})
	s.commitSurface([]int64{callSeq}, nodeTool, surfaceOp{})
	s.rememberTool(seq, tn)
	return seq
}

// appendToolResultData appends tool/result data; text appends the escaped result text.
func (s *Session) appendToolResultData(tn toolNode, text func()) {
	s.lb = append(s.lb, `{"turn":`...)
	s.lb = strconv.AppendInt(s.lb, tn.turn, 10)
	s.lb = append(s.lb, `,"step":`...)
	s.lb = strconv.AppendInt(s.lb, tn.step, 10)
	s.lb = append(s.lb, `,"message":{"source":{"kind":"tool","callId":`...)
	s.lb = jsonw.AppendString(s.lb, tn.callID)
	s.lb = append(s.lb, `},"content":[{"type":"tool-result","toolCallId":`...)
	s.lb = jsonw.AppendString(s.lb, tn.callID)
	s.lb = append(s.lb, `,"content":[{"type":"text","text":"`...)
	text()
	s.lb = append(s.lb, `"}],"isError":`...)
	s.lb = strconv.AppendBool(s.lb, tn.isErr)
	s.lb = append(s.lb, `}],"role":"user","id":`...)
	s.lb = jsonw.AppendString(s.lb, tn.msgID)
	s.lb = append(s.lb, '}')
	if tn.isErr {
		s.lb = append(s.lb, `,"error":{"name":`...)
		s.lb = jsonw.AppendString(s.lb, tn.errName)
		s.lb = append(s.lb, `,"code":`...)
		s.lb = jsonw.AppendString(s.lb, tn.errCode)
		s.lb = append(s.lb, '}')
	}
	s.lb = append(s.lb, `,"meta":{"durationMs":`...)
	s.lb = strconv.AppendInt(s.lb, tn.durMs, 10)
	s.lb = append(s.lb, `}}`...)
}

// RunTool writes tool/call, the approval exchange requested by r.Approval, and the
// tool/result. A denied, cancelled, unavailable or pending approval turns the result
// into an error result.
func (st *Step) RunTool(c Call, r Result) int64 {
	callSeq := st.ToolCall(c)
	if r.Approval != "" {
		st.approval(c, r.Approval, r.ApprovalReason)
		switch r.Approval {
		case ApprovalRejected:
			r.IsError, r.ErrName, r.ErrCode = true, "ApprovalRejectedError", "APPROVAL_REJECTED"
			r.Text = "The user rejected this tool call."
		case ApprovalCancelled:
			r.IsError, r.ErrName, r.ErrCode = true, "ApprovalCancelledError", "APPROVAL_CANCELLED"
			r.Text = "The approval request was cancelled."
		case ApprovalUnavailable:
			r.IsError, r.ErrName, r.ErrCode = true, "ApprovalUnavailableError", "APPROVAL_UNAVAILABLE"
			r.Text = "No approval answerer is available; the request failed closed."
		case ApprovalPending:
			r.IsError, r.ErrName, r.ErrCode = true, "AbortError", "ABORTED"
			r.Text = "The turn was aborted before the approval was answered."
		}
	}
	return st.ToolResult(c, callSeq, r)
}
