package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/logbook/logbook/archive/format"
)

const sessionColumns = `s.id, s.agent, COALESCE(s.title, ''), COALESCE(s.title_source, ''), COALESCE(s.cwd, ''), s.project,
	COALESCE(s.parent_session, ''), s.seed_length, COALESCE(s.origin, ''), s.delegation_depth, COALESCE(s.agent_preset, ''),
	s.created_at, COALESCE(s.last_time, s.created_at), s.models, s.record_count, s.event_count, s.turn_count,
	s.message_count, s.tool_call_count, s.input_tokens, s.output_tokens, s.reasoning_tokens, s.cached_tokens,
	s.health, COALESCE(s.policy, ''), COALESCE(s.sandbox_mode, ''),
	COALESCE((SELECT path FROM files f WHERE f.session_pk = s.pk ORDER BY f.gone, f.id LIMIT 1), '')`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var created, updated int64
	var models string
	var seed sql.NullInt64
	err := row.Scan(&s.ID, &s.Agent, &s.Title, &s.TitleSource, &s.Cwd, &s.Project, &s.ParentSession, &seed,
		&s.Origin, &s.DelegationDepth, &s.AgentPreset, &created, &updated, &models, &s.Records, &s.Events,
		&s.Turns, &s.Messages, &s.ToolCalls, &s.Tokens.Input, &s.Tokens.Output, &s.Tokens.Reasoning,
		&s.Tokens.CacheRead, &s.Health, &s.Policy, &s.SandboxMode, &s.Path)
	if err != nil {
		return s, err
	}
	if seed.Valid {
		s.SeedLength = &seed.Int64
	}
	s.CreatedAt, s.UpdatedAt = msTime(created), msTime(updated)
	s.LastSeq = s.Events - 1
	_ = json.Unmarshal([]byte(models), &s.Models)
	if s.Models == nil {
		s.Models = []string{}
	}
	return s, nil
}

// msTime converts epoch milliseconds to a UTC time.
func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func msPtr(ms sql.NullInt64) *time.Time {
	if !ms.Valid {
		return nil
	}
	t := msTime(ms.Int64)
	return &t
}

func intPtr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

// ListSessions returns sessions, most recently active first.
func (s *Store) ListSessions(ctx context.Context, f SessionFilter) ([]Session, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions s
		WHERE (? = '' OR s.project = ?)
		ORDER BY COALESCE(s.last_time, s.created_at) DESC, s.id
		LIMIT ? OFFSET ?`, f.Project, f.Project, limit, f.Offset)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, rows.Err()
}

// Session returns one session by id (an unambiguous id prefix also matches).
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	sess, err := scanSession(s.read.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ?`, dashedID(id)))
	if errors.Is(err, sql.ErrNoRows) {
		var full string
		var n int
		err2 := s.read.QueryRowContext(ctx, `SELECT MIN(id), COUNT(*) FROM sessions WHERE substr(id, 1, ?) = ?`, len(id), id).Scan(&full, &n)
		if err2 == nil && n == 1 {
			return s.Session(ctx, full)
		}
		return sess, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return sess, err
}

// dashedID is a session id as the archive keeps it: OpenHands names a
// conversation by its UUID both with dashes (the archive's form) and without
// (folder names, the app's URLs), so 32 hex digits are looked up dashed. A dsh
// id is never 32 bare hex digits.
func dashedID(id string) string {
	if len(id) != 32 || strings.Trim(strings.ToLower(id), "0123456789abcdef") != "" {
		return id
	}
	h := strings.ToLower(id)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (s *Store) sessionPK(ctx context.Context, id string) (int64, error) {
	sess, err := s.Session(ctx, id)
	if err != nil {
		return 0, err
	}
	var pk int64
	err = s.read.QueryRowContext(ctx, `SELECT pk FROM sessions WHERE id = ?`, sess.ID).Scan(&pk)
	return pk, err
}

// Messages returns a session's messages in seq order, shadowed ones included and
// marked, so a viewer can show what a compaction replaced beside its summary.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]Message, error) {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT m.seq, m.time, m.turn, m.step, m.role, m.kind, COALESCE(m.source_kind, ''), COALESCE(m.plugin, ''),
		       m.text, m.reasoning, COALESCE(m.model, ''), m.interrupted, COALESCE(r.surface, 'current'), r.shadowed_by
		FROM messages m LEFT JOIN events r ON r.session_pk = m.session_pk AND r.seq = m.seq
		WHERE m.session_pk = ? ORDER BY m.seq`, pk)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Message{}
	for rows.Next() {
		var m Message
		var t int64
		var turn, step, by sql.NullInt64
		var text, reasoning any
		if err := rows.Scan(&m.Seq, &t, &turn, &step, &m.Role, &m.Kind, &m.SourceKind, &m.Plugin, &text,
			&reasoning, &m.Model, &m.Interrupted, &m.Surface, &by); err != nil {
			return nil, err
		}
		if m.Text, err = s.unpackText(text); err != nil {
			return nil, err
		}
		if m.Reasoning, err = s.unpackText(reasoning); err != nil {
			return nil, err
		}
		m.SessionID, m.Time, m.Turn, m.Step, m.ShadowedBy = sessionID, msTime(t), intPtr(turn), intPtr(step), intPtr(by)
		out = append(out, m)
	}
	return out, rows.Err()
}

// ToolCalls returns a session's tool calls paired with their results.
func (s *Store) ToolCalls(ctx context.Context, sessionID string) ([]ToolCall, error) {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT t.call_id, t.name, t.arguments, t.turn, t.step, t.call_seq, t.call_time, t.result_seq, t.result_time,
		       CASE WHEN t.result_seq IS NULL THEN NULL ELSE COALESCE(m.text, '') END, t.is_error,
		       COALESCE(t.error_name, ''), COALESCE(t.error_code, '')
		FROM tool_calls t
		LEFT JOIN messages m ON m.session_pk = t.session_pk AND m.seq = t.result_seq
		WHERE t.session_pk = ? ORDER BY t.call_seq`, pk)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ToolCall{}
	for rows.Next() {
		var c ToolCall
		var ct int64
		var turn, step, rseq, rtime sql.NullInt64
		var output any
		if err := rows.Scan(&c.CallID, &c.Name, &c.Arguments, &turn, &step, &c.CallSeq, &ct, &rseq, &rtime, &output,
			&c.IsError, &c.ErrorName, &c.ErrorCode); err != nil {
			return nil, err
		}
		if output != nil {
			text, err := s.unpackText(output)
			if err != nil {
				return nil, err
			}
			c.Output = &text
		}
		c.SessionID, c.CallTime, c.Turn, c.Step = sessionID, msTime(ct), intPtr(turn), intPtr(step)
		c.ResultSeq, c.ResultTime = intPtr(rseq), msPtr(rtime)
		out = append(out, c)
	}
	return out, rows.Err()
}

// ItemFilter narrows the archive-wide lists (approvals, compactions, schedules).
type ItemFilter struct {
	SessionID string
}

func (s *Store) filterPK(ctx context.Context, f ItemFilter) (int64, error) {
	if f.SessionID == "" {
		return 0, nil
	}
	return s.sessionPK(ctx, f.SessionID)
}

// Approvals lists approvals across the archive (or one session), oldest first.
func (s *Store) Approvals(ctx context.Context, f ItemFilter) ([]Approval, error) {
	pk, err := s.filterPK(ctx, f)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT s.id, s.agent, a.approval_id, COALESCE(a.tool_name, ''), COALESCE(a.call_id, ''), COALESCE(a.reason, ''), a.turn,
		       a.asked_seq, a.asked_at, a.decided_seq, a.decided_at, a.outcome,
		       COALESCE(a.policy, ''), COALESCE(a.sandbox_mode, ''), COALESCE(a.permission_preset, '')
		FROM approvals a JOIN sessions s ON s.pk = a.session_pk
		WHERE (? = 0 OR a.session_pk = ?)
		ORDER BY COALESCE(a.asked_at, a.decided_at), s.id, a.asked_seq`, pk, pk)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Approval{}
	for rows.Next() {
		var a Approval
		var turn, aseq, aat, dseq, dat sql.NullInt64
		var outcome sql.NullString
		if err := rows.Scan(&a.SessionID, &a.Agent, &a.ID, &a.ToolName, &a.CallID, &a.Reason, &turn, &aseq, &aat, &dseq, &dat,
			&outcome, &a.Policy, &a.SandboxMode, &a.PermissionPreset); err != nil {
			return nil, err
		}
		a.Turn, a.AskedSeq, a.AskedAt, a.DecidedSeq, a.DecidedAt = intPtr(turn), intPtr(aseq), msPtr(aat), intPtr(dseq), msPtr(dat)
		if outcome.Valid {
			a.Outcome = &outcome.String
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// compactionColumns selects a compaction as scanCompaction reads it, from
// compactions aliased c joined with compactionPruneJoin.
const compactionColumns = `c.compaction_id, c.kind, COALESCE(c.turn, p.turn), c.status,
		       COALESCE(c.started_at, p.time), COALESCE(c.ended_at, p.time), c.start_seq, c.summary_seq,
		       c.replace_seq, c.end_seq, COALESCE(c.summary, ''), c.shadowed_start, c.shadowed_end, c.shadowed_seqs,
		       c.shadowed_tokens, COALESCE(c.provider, ''), COALESCE(c.model, ''), c.error`

// compactionPruneJoin joins a prune's own event: a prune is one instantaneous event,
// so its time and turn are that event's.
const compactionPruneJoin = `LEFT JOIN events p ON c.kind = 'prune' AND p.session_pk = c.session_pk AND p.seq = c.summary_seq`

// scanCompaction reads one row of compactionColumns into c; lead are the
// destinations of columns selected before them.
func scanCompaction(rows *sql.Rows, c *Compaction, lead ...any) error {
	var turn, sat, eat, sseq, sumseq, rseq, eseq, shs, she, toks sql.NullInt64
	var seqs string
	var errText sql.NullString
	dest := append(lead, &c.CompactionID, &c.Kind, &turn, &c.Status, &sat, &eat, &sseq, &sumseq,
		&rseq, &eseq, &c.Summary, &shs, &she, &seqs, &toks, &c.Provider, &c.Model, &errText)
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	c.Turn, c.StartedAt, c.EndedAt, c.StartSeq, c.SummarySeq = intPtr(turn), msPtr(sat), msPtr(eat), intPtr(sseq), intPtr(sumseq)
	c.ReplaceSeq, c.EndSeq, c.ShadowedStart, c.ShadowedEnd, c.ShadowedTokens = intPtr(rseq), intPtr(eseq), intPtr(shs), intPtr(she), intPtr(toks)
	_ = json.Unmarshal([]byte(seqs), &c.ShadowedSeqs)
	if c.ShadowedSeqs == nil {
		c.ShadowedSeqs = []int64{}
	}
	if errText.Valid {
		c.Error = &errText.String
	}
	return nil
}

// Compactions lists compactions (and tool-result prunes) across the archive.
func (s *Store) Compactions(ctx context.Context, f ItemFilter) ([]Compaction, error) {
	pk, err := s.filterPK(ctx, f)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT s.id, s.agent, `+compactionColumns+`
		FROM compactions c JOIN sessions s ON s.pk = c.session_pk
		`+compactionPruneJoin+`
		WHERE (? = 0 OR c.session_pk = ?)
		ORDER BY s.id, COALESCE(c.start_seq, c.summary_seq, c.end_seq)`, pk, pk)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Compaction{}
	for rows.Next() {
		var c Compaction
		if err := scanCompaction(rows, &c, &c.SessionID, &c.Agent); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Schedules lists folded schedules across the archive with their state at now.
func (s *Store) Schedules(ctx context.Context, f ItemFilter, now time.Time) ([]ScheduleItem, error) {
	pk, err := s.filterPK(ctx, f)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT s.id, c.schedule_id, c.kind, c.prompt, c.after_seconds, c.every_seconds, c.scheduled_at, c.status,
		       c.created_seq, c.created_at, c.dispatch_count, c.last_accepted_at
		FROM schedules c JOIN sessions s ON s.pk = c.session_pk
		WHERE (? = 0 OR c.session_pk = ?)
		ORDER BY c.scheduled_at, s.id, c.created_seq`, pk, pk)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ScheduleItem{}
	for rows.Next() {
		var it ScheduleItem
		var at, created int64
		var after, every, accepted sql.NullInt64
		if err := rows.Scan(&it.SessionID, &it.ID, &it.Kind, &it.Prompt, &after, &every, &at, &it.Status,
			&it.CreatedSeq, &created, &it.DispatchCount, &accepted); err != nil {
			return nil, err
		}
		it.AfterSeconds, it.EverySeconds, it.LastAcceptedAt = intPtr(after), intPtr(every), msPtr(accepted)
		it.ScheduledAt, it.CreatedAt = msTime(at), msTime(created)
		sc := Schedule{ID: it.ID, Kind: it.Kind, Status: it.Status, ScheduledAt: it.ScheduledAt}
		if every.Valid {
			sc.EverySeconds = every.Int64
		}
		it.State = sc.StateAt(now)
		if next, ok := format.NextFire(sc, now); ok {
			next = next.UTC()
			it.NextFire = &next
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.addLogbookState(ctx, pk, out, now)
}

// ExportJSONL writes a session's logical JSONL: the header line and every archived
// storage line, each followed by '\n' — byte-identical to the decompressed original
// (minus any torn or uncommitted tail, which is kept apart in file_blobs).
func (s *Store) ExportJSONL(ctx context.Context, sessionID string, w io.Writer) error {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return err
	}
	var header string
	if err := s.read.QueryRowContext(ctx, `SELECT header_raw FROM sessions WHERE pk = ?`, pk).Scan(&header); err != nil {
		return err
	}
	if _, err := io.WriteString(w, header+"\n"); err != nil {
		return err
	}
	nl := []byte{'\n'}
	return eachLine(ctx, s.read, s.zdec, pk, 2, -1, func(_ int64, raw []byte) error {
		if _, err := w.Write(raw); err != nil {
			return err
		}
		_, err := w.Write(nl)
		return err
	})
}
