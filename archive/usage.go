package archive

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// UsageRow is the token usage of one group (a day, a project, a turn) for one
// model: the frontend prices each model separately.
type UsageRow struct {
	// Key names the group: a day (YYYY-MM-DD), a project, or a turn number.
	Key string `json:"key"`
	// Model is the model the usage was reported for ("" when the log names none).
	Model  string `json:"model"`
	Tokens Tokens `json:"tokens"`
	// Events is how many usage reports were summed (model calls, mostly).
	Events int64 `json:"events"`
}

// ToolUse counts one tool's calls and failed calls.
type ToolUse struct {
	Name   string `json:"name"`
	Calls  int64  `json:"calls"`
	Errors int64  `json:"errors"`
}

// SessionSpan is a session as the dashboard's longest-sessions list shows it.
type SessionSpan struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Project    string `json:"project"`
	DurationMs int64  `json:"duration_ms"`
	Turns      int64  `json:"turns"`
	ToolCalls  int64  `json:"tool_calls"`
	Tokens     Tokens `json:"tokens"`
}

// UsageFilter narrows the usage dashboard.
type UsageFilter struct {
	// Project keeps one project's sessions ("" = all).
	Project string `json:"project"`
	// SinceMs keeps usage at or after this instant (epoch ms; 0 = all).
	SinceMs int64 `json:"since_ms"`
	// TZOffsetMinutes is added to UTC to tell which day an instant falls on
	// (the viewer's zone: UTC+2 is 120).
	TZOffsetMinutes int `json:"tz_offset_minutes"`
}

// UsageReport is the usage dashboard across sessions and projects.
type UsageReport struct {
	// Days and Projects are per model, for pricing; days in order.
	Days     []UsageRow `json:"days"`
	Projects []UsageRow `json:"projects"`
	// Totals are the sessions' own totals (every session, including ones imported
	// before usage was kept per event); Dated is what Days add up to.
	Totals Tokens `json:"totals"`
	Dated  Tokens `json:"dated"`

	Sessions   int64 `json:"sessions"`
	Turns      int64 `json:"turns"`
	ToolCalls  int64 `json:"tool_calls"`
	ToolErrors int64 `json:"tool_errors"`
	// Approvals asked, and how many were allowed or refused (rejected,
	// cancelled, unavailable); the rest are undecided.
	Approvals       int64 `json:"approvals"`
	ApprovalsOK     int64 `json:"approvals_allowed"`
	ApprovalsDenied int64 `json:"approvals_denied"`

	Tools   []ToolUse     `json:"tools"`
	Longest []SessionSpan `json:"longest"`
}

// usageModel is the model a usage row is priced as: the model of the message
// logged at the same event (dsh's assistant/message), else the session's first.
const usageModel = `COALESCE(NULLIF(m.model, ''), json_extract(s.models, '$[0]'), '')`

// Usage builds the usage dashboard.
func (s *Store) Usage(ctx context.Context, f UsageFilter) (UsageReport, error) {
	r := UsageReport{Days: []UsageRow{}, Projects: []UsageRow{}, Tools: []ToolUse{}, Longest: []SessionSpan{}}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return r, fmt.Errorf("usage: %w", err)
	}
	defer tx.Rollback()
	if r.Days, r.Projects, err = usageByDayAndProject(ctx, tx, f); err != nil {
		return r, err
	}
	for _, d := range r.Days {
		r.Dated = r.Dated.Add(d.Tokens)
	}
	// Session-level figures count the sessions active since SinceMs.
	sessWhere := `(? = '' OR s.project = ?) AND COALESCE(s.last_time, s.created_at) >= ?`
	sessArgs := []any{f.Project, f.Project, f.SinceMs}
	err = tx.QueryRowContext(ctx, `
		SELECT COUNT(*), COALESCE(SUM(s.turn_count), 0), COALESCE(SUM(s.input_tokens), 0), COALESCE(SUM(s.output_tokens), 0),
		       COALESCE(SUM(s.reasoning_tokens), 0), COALESCE(SUM(s.cached_tokens), 0)
		FROM sessions s
		WHERE `+sessWhere, sessArgs...).Scan(&r.Sessions, &r.Turns, &r.Totals.Input, &r.Totals.Output, &r.Totals.Reasoning, &r.Totals.CacheRead)
	if err != nil {
		return r, fmt.Errorf("usage sessions: %w", err)
	}
	if r.Tools, err = toolUse(ctx, tx, sessWhere, sessArgs); err != nil {
		return r, err
	}
	for _, t := range r.Tools {
		r.ToolCalls += t.Calls
		r.ToolErrors += t.Errors
	}
	err = tx.QueryRowContext(ctx, `
		SELECT COUNT(*),
		       COALESCE(SUM(a.outcome LIKE 'allowed%' OR a.outcome LIKE 'approved%'), 0),
		       COALESCE(SUM(a.outcome IN ('rejected', 'cancelled', 'unavailable', 'denied')), 0)
		FROM approvals a
		JOIN sessions s ON s.pk = a.session_pk
		WHERE `+sessWhere, sessArgs...).Scan(&r.Approvals, &r.ApprovalsOK, &r.ApprovalsDenied)
	if err != nil {
		return r, fmt.Errorf("usage approvals: %w", err)
	}
	r.Longest, err = longestSessions(ctx, tx, sessWhere, sessArgs)
	return r, err
}

// usageByDayAndProject sums the usage table per day and model and per project and
// model, in one pass over the table: SQLite groups by (day, project, model), a
// number of groups far below the rows summed, and Go folds those groups both ways.
// Both lists are in key, then model, order.
func usageByDayAndProject(ctx context.Context, tx *sql.Tx, f UsageFilter) (days, projects []UsageRow, err error) {
	offsetMs := int64(f.TZOffsetMinutes) * 60_000
	rows, err := tx.QueryContext(ctx, `
		SELECT strftime('%Y-%m-%d', (u.time + ?) / 1000, 'unixepoch') AS d, s.project, `+usageModel+` AS model,
		       SUM(u.input), SUM(u.output), SUM(u.reasoning), SUM(u.cache_read), COUNT(*)
		FROM usage u
		JOIN sessions s ON s.pk = u.session_pk
		LEFT JOIN messages m ON m.session_pk = u.session_pk AND m.seq = u.seq
		WHERE (? = '' OR s.project = ?) AND u.time >= ?
		GROUP BY d, s.project, model`, offsetMs, f.Project, f.Project, f.SinceMs)
	if err != nil {
		return nil, nil, fmt.Errorf("usage rows: %w", err)
	}
	defer rows.Close()
	type group struct{ key, model string }
	byDay, byProject := map[group]*UsageRow{}, map[group]*UsageRow{}
	add := func(m map[group]*UsageRow, key string, u UsageRow) {
		g := group{key, u.Model}
		if r, ok := m[g]; ok {
			r.Tokens = r.Tokens.Add(u.Tokens)
			r.Events += u.Events
			return
		}
		u.Key = key
		m[g] = &u
	}
	for rows.Next() {
		var u UsageRow
		var day, project string
		if err := rows.Scan(&day, &project, &u.Model, &u.Tokens.Input, &u.Tokens.Output, &u.Tokens.Reasoning, &u.Tokens.CacheRead, &u.Events); err != nil {
			return nil, nil, fmt.Errorf("usage rows: %w", err)
		}
		add(byDay, day, u)
		add(byProject, project, u)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("usage rows: %w", err)
	}
	return sortedGroups(byDay), sortedGroups(byProject), nil
}

// sortedGroups lists grouped usage rows by key, then model.
func sortedGroups[K comparable](m map[K]*UsageRow) []UsageRow {
	out := make([]UsageRow, 0, len(m))
	for _, r := range m {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b UsageRow) int {
		return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Model, b.Model))
	})
	return out
}

func scanUsageRows(rows *sql.Rows) ([]UsageRow, error) {
	out := []UsageRow{}
	for rows.Next() {
		var u UsageRow
		if err := rows.Scan(&u.Key, &u.Model, &u.Tokens.Input, &u.Tokens.Output, &u.Tokens.Reasoning, &u.Tokens.CacheRead, &u.Events); err != nil {
			return nil, fmt.Errorf("usage rows: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func toolUse(ctx context.Context, tx *sql.Tx, sessWhere string, sessArgs []any) ([]ToolUse, error) {
	rows, err := tx.QueryContext(ctx, `
		SELECT t.name, COUNT(*), SUM(t.is_error)
		FROM tool_calls t
		JOIN sessions s ON s.pk = t.session_pk
		WHERE t.name != '' AND `+sessWhere+`
		GROUP BY t.name
		ORDER BY COUNT(*) DESC, t.name`, sessArgs...)
	if err != nil {
		return nil, fmt.Errorf("usage tools: %w", err)
	}
	defer rows.Close()
	out := []ToolUse{}
	for rows.Next() {
		var u ToolUse
		if err := rows.Scan(&u.Name, &u.Calls, &u.Errors); err != nil {
			return nil, fmt.Errorf("usage tools: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// longestSessions are the ten sessions that ran longest, first event to last.
func longestSessions(ctx context.Context, tx *sql.Tx, sessWhere string, sessArgs []any) ([]SessionSpan, error) {
	rows, err := tx.QueryContext(ctx, `
		SELECT s.id, COALESCE(s.title, ''), s.project, COALESCE(s.last_time - s.first_time, 0) AS d, s.turn_count,
		       s.tool_call_count, s.input_tokens, s.output_tokens, s.reasoning_tokens, s.cached_tokens
		FROM sessions s
		WHERE `+sessWhere+`
		ORDER BY d DESC, s.id
		LIMIT 10`, sessArgs...)
	if err != nil {
		return nil, fmt.Errorf("usage longest: %w", err)
	}
	defer rows.Close()
	out := []SessionSpan{}
	for rows.Next() {
		var p SessionSpan
		if err := rows.Scan(&p.ID, &p.Title, &p.Project, &p.DurationMs, &p.Turns, &p.ToolCalls,
			&p.Tokens.Input, &p.Tokens.Output, &p.Tokens.Reasoning, &p.Tokens.CacheRead); err != nil {
			return nil, fmt.Errorf("usage longest: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SessionUsage returns one session's usage per turn and model (Key is the turn
// number, "" for usage outside a turn), in turn order.
func (s *Store) SessionUsage(ctx context.Context, sessionID string) ([]UsageRow, error) {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT COALESCE(u.turn, -1) AS k, `+usageModel+` AS model,
		       SUM(u.input), SUM(u.output), SUM(u.reasoning), SUM(u.cache_read), COUNT(*)
		FROM usage u
		JOIN sessions s ON s.pk = u.session_pk
		LEFT JOIN messages m ON m.session_pk = u.session_pk AND m.seq = u.seq
		WHERE u.session_pk = ?
		GROUP BY k, model
		ORDER BY k, model`, pk)
	if err != nil {
		return nil, fmt.Errorf("session usage %s: %w", sessionID, err)
	}
	defer rows.Close()
	out, err := scanUsageRows(rows)
	for i := range out {
		if out[i].Key == "-1" {
			out[i].Key = ""
		}
	}
	return out, err
}

// Add returns the sum of two usages.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{Input: t.Input + o.Input, Output: t.Output + o.Output, Reasoning: t.Reasoning + o.Reasoning,
		CacheRead: t.CacheRead + o.CacheRead}
}
