package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// Revisions returns every session's revision: a counter bumped by each import that
// changes the session. A derived store (the search index) records the revision it
// indexed and re-derives a session whose revision moved on.
func (s *Store) Revisions(ctx context.Context) (map[string]int64, error) {
	rows, err := s.read.QueryContext(ctx, revisionsSQL)
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

// revisionsSQL and changeStampSQL read every session's revision, from the index
// sessions_revision alone (migration 0011), not from the wide session rows.
const (
	revisionsSQL   = `SELECT id, revision FROM sessions`
	changeStampSQL = `SELECT COUNT(*) + COALESCE(SUM(revision), 0) FROM sessions`
)

// ChangeStamp returns a number that grows whenever an import changes the archive's
// sessions (the sum of their revisions plus their count), so a long-running process
// that did not do the import (the standalone scheduler) can notice it cheaply.
func (s *Store) ChangeStamp(ctx context.Context) (int64, error) {
	var stamp int64
	err := s.read.QueryRowContext(ctx, changeStampSQL).Scan(&stamp)
	if err != nil {
		return 0, fmt.Errorf("change stamp: %w", err)
	}
	return stamp, nil
}

// Names of the statements SessionBlocks and SessionsBlocks run, among the
// reader's prepared statements (blocksSQL).
const (
	blocksSessionName     = "blocksSession"
	blocksMessagesName    = "blocksMessages"
	blocksToolCallsName   = "blocksToolCalls"
	blocksCompactionsName = "blocksCompactions"
	blocksApprovalsName   = "blocksApprovals"
)

// blocksKinds are the statements that read a session's blocks after its title,
// in the order SessionBlocks passes them on, with what makes a block of a row.
var blocksKinds = []struct {
	name string
	scan blockScan
}{
	{blocksMessagesName, scanMessageBlocks},
	{blocksToolCallsName, scanToolCallBlock},
	{blocksCompactionsName, scanCompactionBlock},
	{blocksApprovalsName, scanApprovalBlock},
}

// blocksSQL holds the statements SessionBlocks and SessionsBlocks run, by name:
// an index build reads every session with them, and preparing five statements
// per session cost more than running them on a small one. Each statement has
// two forms: for one session, whose pk (or ID) is its argument, and for a
// batch (the name with blocksBatch after it), whose argument is a JSON array of
// them. Every block statement returns the session's pk first and its rows in
// session_pk order, so one statement reads a whole batch (see blockRows).
var blocksSQL = blocksStatements(map[string]string{
	blocksSessionName: `SELECT pk, id, revision, project, COALESCE(title, ''), created_at, last_time, agent
		FROM sessions WHERE id %s ORDER BY pk`,
	blocksMessagesName: `
		SELECT m.session_pk, m.seq, m.time, m.turn, m.step, m.role, m.kind, m.text, m.reasoning, COALESCE(r.surface, 'current'),
		       COALESCE(t.name, ''), COALESCE(t.is_error, 0)
		FROM messages m
		LEFT JOIN events r ON r.session_pk = m.session_pk AND r.seq = m.seq
		LEFT JOIN tool_calls t ON t.session_pk = m.session_pk AND t.call_id = m.call_id
		WHERE m.session_pk %s ORDER BY m.session_pk, m.seq`,
	blocksToolCallsName: `
		SELECT t.session_pk, t.call_seq, t.call_time, t.turn, t.step, t.name, t.arguments, COALESCE(e.surface, 'log-only')
		FROM tool_calls t LEFT JOIN events e ON e.session_pk = t.session_pk AND e.seq = t.call_seq
		WHERE t.session_pk %s AND t.name != '' ORDER BY t.session_pk, t.call_seq`,
	blocksCompactionsName: `
		SELECT session_pk, COALESCE(summary_seq, start_seq, end_seq), COALESCE(ended_at, started_at, 0), turn, summary
		FROM compactions WHERE session_pk %s AND kind = 'compaction' AND summary != ''
		ORDER BY 1, 2`,
	blocksApprovalsName: `
		SELECT session_pk, COALESCE(asked_seq, decided_seq), COALESCE(asked_at, decided_at, 0), turn, COALESCE(tool_name, ''),
		       COALESCE(reason, ''), COALESCE(outcome, 'undecided')
		FROM approvals WHERE session_pk %s ORDER BY 1, 2`,
})

// blocksBatch ends the name of a blocks statement's batch form (see blocksSQL).
const blocksBatch = "Batch"

// blocksStatements gives each statement of forms its form for one session and
// its form for a batch.
func blocksStatements(forms map[string]string) map[string]string {
	out := make(map[string]string, 2*len(forms))
	for name, q := range forms {
		out[name] = fmt.Sprintf(q, "= ?")
		out[name+blocksBatch] = fmt.Sprintf(q, "IN (SELECT value FROM json_each(?))")
	}
	return out
}

// SessionBlocks calls fn for every searchable block of a session, in seq order within
// each kind, and returns the session revision the blocks were read at. Raw stream
// chunks are not blocks: the assembled messages are.
func (s *Store) SessionBlocks(ctx context.Context, sessionID string, fn func(Block) error) (int64, error) {
	rev, found := int64(0), false
	err := s.SessionsBlocks(ctx, []string{sessionID}, func(_ string, r int64, each func(func(Block) error) error) error {
		rev, found = r, true
		return each(fn)
	})
	if err == nil && !found {
		err = fmt.Errorf("session %q: %w", sessionID, ErrNotFound)
	}
	return rev, err
}

// SessionsBlocks reads the blocks of many sessions at once: for each session of
// ids in the archive (in the archive's order, those not in it skipped), it calls
// fn with the session's ID as given, its revision, and each, which passes the
// session's blocks to its argument as SessionBlocks does. The sessions are read
// in one read transaction, five statements in all, so every revision is that of
// the blocks; each streams the rows, so a batch holds no more than one row of
// each kind in memory. An index fed along an import reads thousands of small
// sessions: five statements and a transaction per session cost it more than
// their rows.
func (s *Store) SessionsBlocks(ctx context.Context, ids []string, fn func(sessionID string, rev int64, each func(func(Block) error) error) error) error {
	if len(ids) == 0 {
		return nil
	}
	given := make(map[string]string, len(ids)) // the archive's ID -> the caller's
	for _, id := range ids {
		given[dashedID(id)] = id
	}
	// One session (SessionBlocks, and Sync through it) by its ID and pk, a batch by
	// JSON arrays of them.
	form := ""
	arg := func(v any) (any, error) { return v, nil }
	var keys any = dashedID(ids[0])
	if len(given) > 1 {
		form = blocksBatch
		arg = func(v any) (any, error) {
			b, err := json.Marshal(v)
			return string(b), err
		}
		keys = slices.Collect(maps.Keys(given))
	}
	keysArg, err := arg(keys)
	if err != nil {
		return err
	}
	// One read transaction, so the blocks and the revisions are one consistent snapshot.
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	type session struct {
		pk, rev, created   int64
		id, project, title string
		agent              string
		last               sql.NullInt64
	}
	var sessions []session
	err = s.eachBlocksRow(ctx, tx, blocksSessionName+form, keysArg, func(rows *sql.Rows) error {
		var ss session
		if err := rows.Scan(&ss.pk, &ss.id, &ss.rev, &ss.project, &ss.title, &ss.created, &ss.last, &ss.agent); err != nil {
			return err
		}
		sessions = append(sessions, ss)
		return nil
	})
	if err != nil || len(sessions) == 0 {
		return err
	}
	var pks any = sessions[0].pk
	if form != "" {
		all := make([]int64, len(sessions))
		for i, ss := range sessions {
			all[i] = ss.pk
		}
		pks = all
	}
	pksArg, err := arg(pks)
	if err != nil {
		return err
	}
	kinds := make([]*blockRows, 0, len(blocksKinds))
	defer func() {
		for _, c := range kinds {
			c.rows.Close()
		}
	}()
	for _, k := range blocksKinds {
		st, err := s.readStmts.bind(ctx, s.read, tx, k.name+form)
		if err != nil {
			return err
		}
		rows, err := st.QueryContext(ctx, pksArg)
		if err != nil {
			return err
		}
		c := &blockRows{rows: rows, scan: k.scan, s: s}
		kinds = append(kinds, c)
		if err := c.advance(); err != nil {
			return err
		}
	}
	for _, ss := range sessions {
		id := given[ss.id]
		if id == "" {
			id = ss.id
		}
		each := func(fn func(Block) error) error {
			emit := func(b Block) error {
				b.SessionID, b.Project, b.Agent = id, ss.project, ss.agent
				if b.ID == "" {
					b.ID = fmt.Sprintf("%s:%d:%s", id, b.Seq, b.Kind)
				}
				return fn(b)
			}
			if ss.title != "" {
				t := ss.created
				if ss.last.Valid {
					t = ss.last.Int64
				}
				if err := emit(Block{ID: id + ":title", Kind: BlockTitle, Role: "system", Time: msTime(t), Seq: -1, Surface: "log-only", Text: ss.title}); err != nil {
					return err
				}
			}
			for _, c := range kinds {
				if err := c.session(ss.pk, emit); err != nil {
					return err
				}
			}
			return nil
		}
		if err := fn(id, ss.rev, each); err != nil {
			return err
		}
	}
	return nil
}

// eachBlocksRow runs one of blocksSQL in tx with arg and calls fn for every row.
func (s *Store) eachBlocksRow(ctx context.Context, tx *sql.Tx, name string, arg any, fn func(*sql.Rows) error) error {
	st, err := s.readStmts.bind(ctx, s.read, tx, name)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, arg)
	return eachOf(rows, err, fn)
}

// blockScan reads one row of a block statement: the row's session pk and up to
// two blocks, returning how many it filled in.
type blockScan func(s *Store, rows *sql.Rows, pk *int64, out *[2]Block) (int, error)

// blockRows reads one kind of block of a batch of sessions, a row ahead: the
// blocks of the row read last wait in held until their session's turn.
type blockRows struct {
	rows *sql.Rows
	scan blockScan
	s    *Store
	pk   int64 // the session of the held row; math.MaxInt64 past the last row
	held [2]Block
	n    int
}

// advance reads the next row.
func (c *blockRows) advance() error {
	c.n = 0
	if !c.rows.Next() {
		c.pk = math.MaxInt64
		return c.rows.Err()
	}
	var err error
	c.n, err = c.scan(c.s, c.rows, &c.pk, &c.held)
	return err
}

// session passes the blocks of session pk to emit, in row order, and skips the
// rows of sessions before it whose blocks were not asked for.
func (c *blockRows) session(pk int64, emit func(Block) error) error {
	for c.pk <= pk {
		if c.pk == pk {
			for _, b := range c.held[:c.n] {
				if err := emit(b); err != nil {
					return err
				}
			}
		}
		if err := c.advance(); err != nil {
			return err
		}
	}
	return nil
}

func scanMessageBlocks(s *Store, rows *sql.Rows, pk *int64, out *[2]Block) (int, error) {
	var b Block
	var t int64
	var turn, step sql.NullInt64
	var text, reasoning any
	var isErr int
	if err := rows.Scan(pk, &b.Seq, &t, &turn, &step, &b.Role, &b.Kind, &text, &reasoning, &b.Surface, &b.Tool, &isErr); err != nil {
		return 0, err
	}
	b.Time, b.Turn, b.Step, b.IsError = msTime(t), intPtr(turn), intPtr(step), isErr != 0
	var err error
	if b.Text, err = s.unpackText(text); err != nil {
		return 0, err
	}
	r, err := s.unpackText(reasoning)
	if err != nil {
		return 0, err
	}
	n := 0
	if r != "" {
		rb := b
		rb.Kind, rb.Text, rb.Tool = BlockReasoning, r, ""
		out[n] = rb
		n++
	}
	if strings.TrimSpace(b.Text) != "" {
		out[n] = b
		n++
	}
	return n, nil
}

func scanToolCallBlock(_ *Store, rows *sql.Rows, pk *int64, out *[2]Block) (int, error) {
	var b Block
	var t int64
	var turn, step sql.NullInt64
	var args string
	if err := rows.Scan(pk, &b.Seq, &t, &turn, &step, &b.Tool, &args, &b.Surface); err != nil {
		return 0, err
	}
	b.Kind, b.Role, b.Time, b.Turn, b.Step = BlockToolCall, "assistant", msTime(t), intPtr(turn), intPtr(step)
	b.Text = b.Tool + " " + args
	out[0] = b
	return 1, nil
}

func scanCompactionBlock(_ *Store, rows *sql.Rows, pk *int64, out *[2]Block) (int, error) {
	var b Block
	var t int64
	var turn sql.NullInt64
	if err := rows.Scan(pk, &b.Seq, &t, &turn, &b.Text); err != nil {
		return 0, err
	}
	b.Kind, b.Role, b.Time, b.Turn, b.Surface = BlockCompaction, "system", msTime(t), intPtr(turn), "log-only"
	out[0] = b
	return 1, nil
}

func scanApprovalBlock(_ *Store, rows *sql.Rows, pk *int64, out *[2]Block) (int, error) {
	var b Block
	var t int64
	var turn sql.NullInt64
	var reason, outcome string
	if err := rows.Scan(pk, &b.Seq, &t, &turn, &b.Tool, &reason, &outcome); err != nil {
		return 0, err
	}
	b.Kind, b.Role, b.Time, b.Turn, b.Surface = BlockApproval, "system", msTime(t), intPtr(turn), "log-only"
	b.IsError = outcome == "rejected" || outcome == "unavailable"
	b.Text = strings.TrimSpace(b.Tool + " " + reason + " " + outcome)
	out[0] = b
	return 1, nil
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
