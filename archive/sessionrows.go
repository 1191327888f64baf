package archive

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SessionGist is what the sessions list says of what happened in a session: the
// last thing the person asked, the files the agent changed and the tool calls
// that failed.
type SessionGist struct {
	ID string `json:"id"`
	// LastPrompt is the start of the last human prompt ("" when none).
	LastPrompt string `json:"last_prompt"`
	// FilesChanged counts the distinct paths the agent's successful edits and
	// writes touched.
	FilesChanged int64 `json:"files_changed"`
	// ToolErrors counts the tool calls whose result was an error.
	ToolErrors int64 `json:"tool_errors"`
}

// gistPromptChars bounds LastPrompt: a row shows one line of it.
const gistPromptChars = 240

// editPathSQL is the path an edit tool call's arguments name; the JSON shapes
// are those ParseFileEdits reads.
const editPathSQL = `COALESCE(json_extract(t.arguments, '$.file_path'), json_extract(t.arguments, '$.path'),
	json_extract(t.arguments, '$.action.path'))`

// editCommandSQL is an OpenHands editor command ("" for dsh's edit and write).
const editCommandSQL = `COALESCE(json_extract(t.arguments, '$.command'), json_extract(t.arguments, '$.action.command'), '')`

// SessionGists returns the gist of every session, keyed by session id.
func (s *Store) SessionGists(ctx context.Context) (map[string]SessionGist, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("session gists: %w", err)
	}
	defer tx.Rollback()
	out := map[string]SessionGist{}
	ids := map[int64]string{}
	if err := eachRow(ctx, tx, `SELECT pk, id FROM sessions`, nil, func(r *sql.Rows) error {
		var pk int64
		var id string
		if err := r.Scan(&pk, &id); err != nil {
			return err
		}
		ids[pk] = id
		out[id] = SessionGist{ID: id}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("session gists: %w", err)
	}
	in, args := inArgs(0, editToolNames)
	counts := []struct {
		query string
		args  []any
		set   func(g *SessionGist, n int64)
	}{
		{`SELECT t.session_pk, COUNT(*) FROM tool_calls t WHERE t.is_error = 1 GROUP BY t.session_pk`, nil,
			func(g *SessionGist, n int64) { g.ToolErrors = n }},
		{`SELECT t.session_pk, COUNT(DISTINCT ` + editPathSQL + `)
			FROM tool_calls t
			WHERE t.name IN (` + in + `) AND t.is_error = 0 AND json_valid(t.arguments)
			  AND ` + editCommandSQL + ` IN ('', 'create', 'str_replace', 'insert')
			GROUP BY t.session_pk`, args[1:], // inArgs leads with a pk
			func(g *SessionGist, n int64) { g.FilesChanged = n }},
	}
	for _, c := range counts {
		if err := eachRow(ctx, tx, c.query, c.args, func(r *sql.Rows) error {
			var pk, n int64
			if err := r.Scan(&pk, &n); err != nil {
				return err
			}
			if id, ok := ids[pk]; ok {
				g := out[id]
				c.set(&g, n)
				out[id] = g
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("session gists: %w", err)
		}
	}
	err = eachRow(ctx, tx, `
		SELECT m.session_pk, m.text
		FROM messages m
		JOIN (SELECT session_pk, MAX(seq) AS seq FROM messages WHERE kind = 'human' GROUP BY session_pk) l
		  ON l.session_pk = m.session_pk AND l.seq = m.seq`, nil, func(r *sql.Rows) error {
		var pk int64
		var raw any
		if err := r.Scan(&pk, &raw); err != nil {
			return err
		}
		text, err := s.unpackText(raw)
		if err != nil {
			return err
		}
		if id, ok := ids[pk]; ok {
			g := out[id]
			g.LastPrompt = gistText(text)
			out[id] = g
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("session gists: %w", err)
	}
	return out, nil
}

// gistText is the start of a prompt on one line.
func gistText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > gistPromptChars {
		s = string(r[:gistPromptChars-1]) + "…"
	}
	return s
}
