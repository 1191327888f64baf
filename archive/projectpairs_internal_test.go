package archive

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/format"
)

// The upserts each half of a paired row was written by, one statement an
// item, before the projector paired them: what the paired rows must come out
// as.
const (
	oneToolCall = `INSERT INTO tool_calls (session_pk, call_id, name, arguments, turn, step, call_seq, call_time)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, call_id) DO UPDATE SET
			name = excluded.name, arguments = excluded.arguments, turn = excluded.turn,
			step = excluded.step, call_seq = excluded.call_seq, call_time = excluded.call_time`
	oneToolResult = `INSERT INTO tool_calls (session_pk, call_id, name, arguments, turn, step, call_seq, call_time, result_seq, result_time, output, is_error, error_name, error_code)
		VALUES (?, ?, '', '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, call_id) DO UPDATE SET
			result_seq = excluded.result_seq, result_time = excluded.result_time, output = excluded.output,
			is_error = excluded.is_error, error_name = excluded.error_name, error_code = excluded.error_code`
	oneApprovalAsked = `INSERT INTO approvals (session_pk, approval_id, tool_name, call_id, reason, turn, asked_seq, asked_at, policy, sandbox_mode, permission_preset)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, approval_id) DO UPDATE SET
			tool_name = excluded.tool_name, call_id = excluded.call_id, reason = excluded.reason, turn = excluded.turn,
			asked_seq = excluded.asked_seq, asked_at = excluded.asked_at, policy = excluded.policy,
			sandbox_mode = excluded.sandbox_mode, permission_preset = excluded.permission_preset`
	oneApprovalDecided = `INSERT INTO approvals (session_pk, approval_id, decided_seq, decided_at, outcome)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, approval_id) DO UPDATE SET
			decided_seq = excluded.decided_seq, decided_at = excluded.decided_at, outcome = excluded.outcome`
)

// TestProjectorPairsLikeUpserts feeds the projector tool calls, results and
// approvals in every order a log may hold them (result before its call, a
// call or decision twice, a half alone, a pair split across a full queue, a
// half whose other half is in the archive already, more halves waiting than a
// queue holds) and holds the rows it writes to those the upserts of each item,
// in order, write.
func TestProjectorPairsLikeUpserts(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	require.NoError(t, err)
	defer s.Close()
	session := func(id string) int64 {
		res, err := s.write.ExecContext(ctx, `INSERT INTO sessions (id, agent, header_raw, version, created_at, project, delegation_depth, health, updated_at)
			VALUES (?, 'dsh', '{}', 1, 0, '', 0, 'ok', 0)`, id)
		require.NoError(t, err)
		pk, err := res.LastInsertId()
		require.NoError(t, err)
		return pk
	}
	queued, single := session("queued"), session("single")

	type step struct {
		turn any
		it   format.Item
	}
	var steps []step
	add := func(turn any, it format.Item) { steps = append(steps, step{turn, it}) }
	for i := range 1000 { // more halves left waiting than a queue holds (pairedHalves)
		id := fmt.Sprintf("call-%03d", i)
		switch i % 7 {
		case 0: // the result first
			add(int64(i), format.ToolResultItem{CallID: id, IsError: true, ErrorName: "boom"})
			add(nil, format.ToolCallItem{CallID: id, Name: "terminal", Arguments: `{"n":1}`})
		case 1: // called twice: the second call is kept
			add(int64(i), format.ToolCallItem{CallID: id, Name: "first"})
			add(int64(i), format.ToolCallItem{CallID: id, Name: "second", Arguments: "{}"})
			add(int64(i), format.ToolResultItem{CallID: id})
		case 2: // never answered
			add(int64(i), format.ToolCallItem{CallID: id, Name: "open"})
		case 3: // a result alone
			add(nil, format.ToolResultItem{CallID: id, ErrorCode: "E1"})
		default:
			add(int64(i), format.ToolCallItem{CallID: id, Name: "edit"})
			add(int64(i), format.ToolResultItem{CallID: id})
		}
		aid := fmt.Sprintf("approval-%03d", i)
		switch i % 5 {
		case 0:
			add(int64(i), format.ApprovalDecidedItem{ID: aid, Outcome: "allowed"})
			add(int64(i), format.ApprovalAskedItem{ID: aid, ToolName: "terminal", Reason: "why"})
		case 1:
			add(nil, format.ApprovalAskedItem{ID: aid, ToolName: "edit", CallID: "c"})
		case 2:
			add(int64(i), format.ApprovalAskedItem{ID: aid, ToolName: "edit"})
			add(int64(i), format.ApprovalDecidedItem{ID: aid, Outcome: "denied"})
			add(int64(i), format.ApprovalDecidedItem{ID: aid, Outcome: "allowed"})
		default:
			add(int64(i), format.ApprovalAskedItem{ID: aid, ToolName: "x"})
			add(int64(i), format.ApprovalDecidedItem{ID: aid, Outcome: "allowed"})
		}
	}
	// The other half of a pair already archived, by an earlier import.
	pre := []step{
		{int64(1), format.ToolCallItem{CallID: "call-003", Name: "from-before"}},
		{int64(1), format.ApprovalAskedItem{ID: "approval-004", ToolName: "before"}},
		{int64(1), format.ToolCallItem{CallID: "call-000", Name: "from-before"}},
		{int64(1), format.ApprovalAskedItem{ID: "approval-000", ToolName: "before"}},
	}

	tx, err := s.write.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer tx.Rollback()
	upsert := func(pk int64, seq int64, st step) {
		var q string
		var args []any
		switch it := st.it.(type) {
		case format.ToolCallItem:
			q, args = oneToolCall, []any{pk, it.CallID, it.Name, it.Arguments, st.turn, nil, seq, seq * 10}
		case format.ToolResultItem:
			q, args = oneToolResult, []any{pk, it.CallID, st.turn, nil, seq, seq * 10, seq, seq * 10, nil,
				boolInt(it.IsError), nullStr(it.ErrorName), nullStr(it.ErrorCode)}
		case format.ApprovalAskedItem:
			q, args = oneApprovalAsked, []any{pk, it.ID, it.ToolName, nullStr(it.CallID), nullStr(it.Reason), st.turn, seq, seq * 10, nil, nil, nil}
		case format.ApprovalDecidedItem:
			q, args = oneApprovalDecided, []any{pk, it.ID, seq, seq * 10, it.Outcome}
		}
		_, err := tx.ExecContext(ctx, q, args...)
		require.NoError(t, err)
	}
	for i, st := range pre {
		upsert(queued, int64(i), st)
		upsert(single, int64(i), st)
	}
	p := newProjector(ctx, tx, s, queued, projState{})
	defer p.close()
	for i, st := range steps {
		seq := int64(len(pre) + i)
		require.NoError(t, p.item(eventAt{seq: seq, time: seq * 10, turn: st.turn}, st.it))
		upsert(single, seq, st)
	}
	require.NoError(t, p.flush())

	for _, q := range []string{
		`SELECT call_id, name, arguments, turn, step, call_seq, call_time, result_seq, result_time, output, is_error, error_name, error_code
			FROM tool_calls WHERE session_pk = ? ORDER BY call_id`,
		`SELECT approval_id, tool_name, call_id, reason, turn, asked_seq, asked_at, decided_seq, decided_at, outcome, policy, sandbox_mode, permission_preset
			FROM approvals WHERE session_pk = ? ORDER BY approval_id`,
	} {
		want, got := tableRows(t, tx, q, single), tableRows(t, tx, q, queued)
		require.Len(t, want, 1000)
		assert.Equal(t, want, got)
	}
}

// tableRows returns the rows q selects for pk, each formatted.
func tableRows(t *testing.T, tx querier, q string, pk int64) []string {
	t.Helper()
	rows, err := tx.QueryContext(context.Background(), q, pk)
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		out = append(out, fmt.Sprintf("%v", vals))
	}
	require.NoError(t, rows.Err())
	return out
}
