package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Revisions returns every session's revision: a counter bumped by each import that
// changes the session. A derived store (the search index) records the revision it
// indexed and re-derives a session whose revision moved on.
func (s *Store) Revisions(ctx context.Context) (map[string]int64, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, revision FROM sessions`)
	if err != nil {
		return nil, fmt.Errorf("revisions: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var rev int64
		if err := rows.Scan(&id, &rev); err != nil {
			return nil, err
		}
		out[id] = rev
	}
	return out, rows.Err()
}

// ChangeStamp returns a number that grows whenever an import changes the archive's
// sessions (the sum of their revisions plus their count), so a long-running process
// that did not do the import (the standalone scheduler) can notice it cheaply.
func (s *Store) ChangeStamp(ctx context.Context) (int64, error) {
	var stamp int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) + COALESCE(SUM(revision), 0) FROM sessions`).Scan(&stamp)
	if err != nil {
		return 0, fmt.Errorf("change stamp: %w", err)
	}
	return stamp, nil
}

// Names of the statements SessionBlocks runs for each session, among the
// reader's prepared statements (blocksSQL).
const (
	blocksSessionName     = "blocksSession"
	blocksMessagesName    = "blocksMessages"
	blocksToolCallsName   = "blocksToolCalls"
	blocksCompactionsName = "blocksCompactions"
	blocksApprovalsName   = "blocksApprovals"
)

// blocksSQL holds the statements SessionBlocks runs, by name: an index build
// reads every session with them, and preparing five statements per session cost
// more than running them on a small one.
var blocksSQL = map[string]string{
	blocksSessionName: `SELECT pk, revision, project, COALESCE(title, ''), created_at, last_time, agent FROM sessions WHERE id = ?`,
	blocksMessagesName: `
		SELECT m.seq, m.time, m.turn, m.step, m.role, m.kind, m.text, m.reasoning, COALESCE(r.surface, 'current'),
		       COALESCE(t.name, ''), COALESCE(t.is_error, 0)
		FROM messages m
		LEFT JOIN events r ON r.session_pk = m.session_pk AND r.seq = m.seq
		LEFT JOIN tool_calls t ON t.session_pk = m.session_pk AND t.call_id = m.call_id
		WHERE m.session_pk = ? ORDER BY m.seq`,
	blocksToolCallsName: `
		SELECT t.call_seq, t.call_time, t.turn, t.step, t.name, t.arguments, COALESCE(e.surface, 'log-only')
		FROM tool_calls t LEFT JOIN events e ON e.session_pk = t.session_pk AND e.seq = t.call_seq
		WHERE t.session_pk = ? AND t.name != '' ORDER BY t.call_seq`,
	blocksCompactionsName: `
		SELECT COALESCE(summary_seq, start_seq, end_seq), COALESCE(ended_at, started_at, 0), turn, summary
		FROM compactions WHERE session_pk = ? AND kind = 'compaction' AND summary != '' ORDER BY 1`,
	blocksApprovalsName: `
		SELECT COALESCE(asked_seq, decided_seq), COALESCE(asked_at, decided_at, 0), turn, COALESCE(tool_name, ''),
		       COALESCE(reason, ''), COALESCE(outcome, 'undecided')
		FROM approvals WHERE session_pk = ? ORDER BY 1`,
}

// SessionBlocks calls fn for every searchable block of a session, in seq order within
// each kind, and returns the session revision the blocks were read at. Raw stream
// chunks are not blocks: the assembled messages are.
func (s *Store) SessionBlocks(ctx context.Context, sessionID string, fn func(Block) error) (int64, error) {
	// One read transaction, so the blocks and the revision are one consistent snapshot.
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var pk, rev int64
	var project, title, agent string
	var created int64
	var last sql.NullInt64
	st, err := s.readStmts.bind(ctx, s.read, tx, blocksSessionName)
	if err != nil {
		return 0, err
	}
	err = st.QueryRowContext(ctx, dashedID(sessionID)).Scan(&pk, &rev, &project, &title, &created, &last, &agent)
	if err == sql.ErrNoRows {
		return 0, fmt.Errorf("session %q: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return 0, err
	}
	base := Block{SessionID: sessionID, Project: project, Agent: agent}
	emit := func(b Block) error {
		b.SessionID, b.Project, b.Agent = base.SessionID, base.Project, base.Agent
		if b.ID == "" {
			b.ID = fmt.Sprintf("%s:%d:%s", sessionID, b.Seq, b.Kind)
		}
		return fn(b)
	}
	if title != "" {
		t := created
		if last.Valid {
			t = last.Int64
		}
		if err := emit(Block{ID: sessionID + ":title", Kind: BlockTitle, Role: "system", Time: msTime(t), Seq: -1, Surface: "log-only", Text: title}); err != nil {
			return 0, err
		}
	}

	each := func(name string, fn func(*sql.Rows) error) error {
		st, err := s.readStmts.bind(ctx, s.read, tx, name)
		if err != nil {
			return err
		}
		rows, err := st.QueryContext(ctx, pk)
		return eachOf(rows, err, fn)
	}
	err = each(blocksMessagesName, func(rows *sql.Rows) error {
		var b Block
		var t int64
		var turn, step sql.NullInt64
		var text, reasoning any
		var isErr int
		if err := rows.Scan(&b.Seq, &t, &turn, &step, &b.Role, &b.Kind, &text, &reasoning, &b.Surface, &b.Tool, &isErr); err != nil {
			return err
		}
		b.Time, b.Turn, b.Step, b.IsError = msTime(t), intPtr(turn), intPtr(step), isErr != 0
		var err error
		if b.Text, err = s.unpackText(text); err != nil {
			return err
		}
		r, err := s.unpackText(reasoning)
		if err != nil {
			return err
		}
		if r != "" {
			rb := b
			rb.Kind, rb.Text, rb.Tool = BlockReasoning, r, ""
			if err := emit(rb); err != nil {
				return err
			}
		}
		if strings.TrimSpace(b.Text) == "" {
			return nil
		}
		return emit(b)
	})
	if err != nil {
		return 0, err
	}

	err = each(blocksToolCallsName, func(rows *sql.Rows) error {
		var b Block
		var t int64
		var turn, step sql.NullInt64
		var args string
		if err := rows.Scan(&b.Seq, &t, &turn, &step, &b.Tool, &args, &b.Surface); err != nil {
			return err
		}
		b.Kind, b.Role, b.Time, b.Turn, b.Step = BlockToolCall, "assistant", msTime(t), intPtr(turn), intPtr(step)
		b.Text = b.Tool + " " + args
		return emit(b)
	})
	if err != nil {
		return 0, err
	}

	err = each(blocksCompactionsName,
		func(rows *sql.Rows) error {
			var b Block
			var t int64
			var turn sql.NullInt64
			if err := rows.Scan(&b.Seq, &t, &turn, &b.Text); err != nil {
				return err
			}
			b.Kind, b.Role, b.Time, b.Turn, b.Surface = BlockCompaction, "system", msTime(t), intPtr(turn), "log-only"
			return emit(b)
		})
	if err != nil {
		return 0, err
	}

	err = each(blocksApprovalsName, func(rows *sql.Rows) error {
		var b Block
		var t int64
		var turn sql.NullInt64
		var reason, outcome string
		if err := rows.Scan(&b.Seq, &t, &turn, &b.Tool, &reason, &outcome); err != nil {
			return err
		}
		b.Kind, b.Role, b.Time, b.Turn, b.Surface = BlockApproval, "system", msTime(t), intPtr(turn), "log-only"
		b.IsError = outcome == "rejected" || outcome == "unavailable"
		b.Text = strings.TrimSpace(b.Tool + " " + reason + " " + outcome)
		return emit(b)
	})
	return rev, err
}

// eachRow runs a query with its arguments and calls fn for every row.
func eachRow(ctx context.Context, q querier, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	return eachOf(rows, err, fn)
}

// eachOf calls fn for every row of a query that returned rows and err.
func eachOf(rows *sql.Rows, err error, fn func(*sql.Rows) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// lazyStmts are statements prepared on a pool at their first use, once: the
// reader's are prepared on each of its connections as a transaction needs them
// (database/sql keeps one per connection).
type lazyStmts struct {
	queries map[string]string
	mu      sync.Mutex
	m       map[string]*sql.Stmt
}

// bind returns the statement name prepared on db, bound to tx: database/sql
// closes it when tx ends.
func (l *lazyStmts) bind(ctx context.Context, db *sql.DB, tx *sql.Tx, name string) (*sql.Stmt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.m[name]
	if st == nil {
		var err error
		if st, err = db.PrepareContext(ctx, l.queries[name]); err != nil {
			return nil, fmt.Errorf("prepare %s: %w", name, err)
		}
		if l.m == nil {
			l.m = map[string]*sql.Stmt{}
		}
		l.m[name] = st
	}
	return tx.StmtContext(ctx, st), nil
}

// close closes the statements prepared so far.
func (l *lazyStmts) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, st := range l.m {
		errs = append(errs, st.Close())
	}
	l.m = nil
	return errors.Join(errs...)
}
