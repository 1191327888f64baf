package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/logbook/logbook/archive/format"
)

// StateEntry is the latest event of one state type at or before the asked seq.
type StateEntry struct {
	Type   string  `json:"type"`
	Seq    int64   `json:"seq"`
	Time   int64   `json:"time"` // epoch ms
	Marker *Marker `json:"marker"`
}

// SessionState is a session's working state just after one event: the todo list,
// plan mode, goal, permissions, sandbox, approval policy, model, preset and title in
// force then (one entry per type that had been set, in the order of its format's StateTypes), and the
// session's own scheduled prompts as dsh's fold had them at that point.
type SessionState struct {
	SessionID string       `json:"session_id"`
	Seq       int64        `json:"seq"`
	Entries   []StateEntry `json:"entries"`
	Schedules []Schedule   `json:"schedules"`
}

// SessionState folds a session's state up to and including seq (a negative seq means
// the end of the session). Each part costs one indexed probe and one line read, so
// asking at any point of a long session stays cheap.
func (s *Store) SessionState(ctx context.Context, sessionID string, seq int64) (SessionState, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return SessionState{}, err
	}
	defer tx.Rollback()
	sess, err := resolveSession(ctx, tx, sessionID)
	if err != nil {
		return SessionState{}, err
	}
	if seq < 0 {
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), -1) FROM events WHERE session_pk = ?`, sess.pk).Scan(&seq); err != nil {
			return SessionState{}, err
		}
	}
	st := SessionState{SessionID: sess.id, Seq: seq, Entries: []StateEntry{}, Schedules: []Schedule{}}
	type latest struct {
		typ             string
		seq, line, time int64
		turn            sql.NullInt64
	}
	var found []latest
	for _, typ := range formatOf(sess).StateTypes() {
		var l latest
		err := tx.QueryRowContext(ctx, `
			SELECT seq, line, time, turn FROM events
			WHERE session_pk = ? AND type = ? AND seq <= ?
			ORDER BY seq DESC LIMIT 1`, sess.pk, typ, seq).Scan(&l.seq, &l.line, &l.time, &l.turn)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return st, fmt.Errorf("session state %s: %w", typ, err)
		}
		l.typ = typ
		found = append(found, l)
	}
	lines := make([]int64, len(found))
	for i, l := range found {
		lines[i] = l.line
	}
	slices.Sort(lines) // rawLines reads forward through the blocks
	lines = slices.Compact(lines)
	raw, err := s.rawLines(ctx, tx, sess.pk, lines)
	if err != nil {
		return st, err
	}
	for _, l := range found {
		m := formatOf(sess).Marker(l.typ, raw[l.line], format.MarkerInfo{Seq: l.seq, Turn: intPtr(l.turn), SeedLength: sess.seedLength})
		st.Entries = append(st.Entries, StateEntry{Type: l.typ, Seq: l.seq, Time: l.time, Marker: m})
	}
	if st.Schedules, err = foldSchedulesAt(ctx, tx, sess, seq); err != nil {
		return st, err
	}
	return st, nil
}

// foldSchedulesAt folds the session's own schedule changes (from its seed length
// on) up to seq, with its format's fold.
func foldSchedulesAt(ctx context.Context, tx *sql.Tx, sess timelineSession, seq int64) ([]Schedule, error) {
	var from int64
	if sess.seedLength != nil {
		from = *sess.seedLength
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT line, raw FROM schedule_changes
		WHERE session_pk = ? AND seq >= ? AND seq <= ?
		ORDER BY seq`, sess.pk, from, seq)
	if err != nil {
		return nil, fmt.Errorf("session state schedules: %w", err)
	}
	defer rows.Close()
	fold := formatOf(sess).ScheduleFold()
	for rows.Next() {
		var line int64
		var raw []byte
		if err := rows.Scan(&line, &raw); err != nil {
			return nil, err
		}
		_ = fold.Apply(line, raw) // the import reported the problems
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := fold.Schedules()
	if out == nil {
		out = []Schedule{}
	}
	return out, nil
}
