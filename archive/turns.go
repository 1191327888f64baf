package archive

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// TurnSummary is one turn of a session as a map of a long run shows it: where it
// starts and ends, what the person asked, and how much happened in it.
type TurnSummary struct {
	Turn     int64     `json:"turn"`
	StartSeq int64     `json:"start_seq"` // the first event of the turn
	EndSeq   int64     `json:"end_seq"`   // the last event of the turn
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	// Prompt is the first line of the turn's first prompt (human message), at most
	// promptRunes characters; "" when the turn has none.
	Prompt    string `json:"prompt"`
	Tools     int64  `json:"tools"`     // tool calls
	Errors    int64  `json:"errors"`    // tool calls whose result is an error
	Approvals int64  `json:"approvals"` // approvals asked
	Denied    int64  `json:"denied"`    // approvals denied or rejected
	// Items is about how many conversation items (timeline rows) the turn holds:
	// its events less those shown inside another item (a tool result in its call).
	// The conversation sizes the room of unloaded turns by it.
	Items int64 `json:"items"`
}

// promptRunes bounds TurnSummary.Prompt.
const promptRunes = 160

// Turns returns the turns of a session in order, each summarized from the
// events, tool calls, approvals and prompts that carry its number. It reads each
// of those tables once for the session, so a session of 100,000 events costs one
// pass, not one query per turn. sessionID may be an unambiguous prefix.
func (s *Store) Turns(ctx context.Context, sessionID string) ([]TurnSummary, error) {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := []TurnSummary{}
	at := map[int64]int{} // turn number → index in out
	rows, err := s.read.QueryContext(ctx, `
		SELECT turn, MIN(seq), MAX(seq), MIN(time), MAX(time), SUM(type NOT IN `+skippedList+`)
		FROM events
		WHERE session_pk = ? AND turn IS NOT NULL
		GROUP BY turn
		ORDER BY MIN(seq)`, pk)
	if err != nil {
		return nil, fmt.Errorf("turns of %s: %w", sessionID, err)
	}
	for rows.Next() {
		var t TurnSummary
		var start, end int64
		if err := rows.Scan(&t.Turn, &t.StartSeq, &t.EndSeq, &start, &end, &t.Items); err != nil {
			rows.Close()
			return nil, fmt.Errorf("turns of %s: %w", sessionID, err)
		}
		t.Start, t.End = msTime(start), msTime(end)
		at[t.Turn] = len(out)
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("turns of %s: %w", sessionID, err)
	}
	if len(out) == 0 {
		return out, nil
	}
	err = s.eachTurnCount(ctx, `
		SELECT turn, COUNT(*), SUM(is_error <> 0) FROM tool_calls
		WHERE session_pk = ? AND turn IS NOT NULL AND name <> ''
		GROUP BY turn`, pk, func(turn, n, bad int64) {
		if i, ok := at[turn]; ok {
			out[i].Tools, out[i].Errors = n, bad
		}
	})
	if err != nil {
		return nil, fmt.Errorf("turns of %s: tool calls: %w", sessionID, err)
	}
	// A result shown in its call's card is no item of its own.
	err = s.eachTurnCount(ctx, `
		SELECT turn, COUNT(*), 0 FROM tool_calls
		WHERE session_pk = ? AND turn IS NOT NULL AND name <> '' AND result_seq IS NOT NULL AND call_seq <> result_seq
		GROUP BY turn`, pk, func(turn, n, _ int64) {
		if i, ok := at[turn]; ok {
			out[i].Items = max(0, out[i].Items-n)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("turns of %s: results: %w", sessionID, err)
	}
	err = s.eachTurnCount(ctx, `
		SELECT turn, COUNT(*),
		       SUM(lower(COALESCE(outcome, '')) LIKE '%den%' OR lower(COALESCE(outcome, '')) LIKE '%reject%')
		FROM approvals
		WHERE session_pk = ? AND turn IS NOT NULL AND asked_seq IS NOT NULL
		GROUP BY turn`, pk, func(turn, n, denied int64) {
		if i, ok := at[turn]; ok {
			out[i].Approvals, out[i].Denied = n, denied
		}
	})
	if err != nil {
		return nil, fmt.Errorf("turns of %s: approvals: %w", sessionID, err)
	}
	if err := s.turnPrompts(ctx, pk, out, at); err != nil {
		return nil, fmt.Errorf("turns of %s: prompts: %w", sessionID, err)
	}
	var name string
	if err := s.read.QueryRowContext(ctx, `SELECT format FROM sessions WHERE pk = ?`, pk).Scan(&name); err != nil {
		return nil, fmt.Errorf("turns of %s: %w", sessionID, err)
	}
	if formatNamed(name).Timeline().PromptTurns {
		// The timeline shows a turn start of its own before each prompt.
		for i := range out {
			out[i].Items++
		}
	}
	return out, nil
}

// eachTurnCount runs a query of (turn, count, count) rows for session pk.
func (s *Store) eachTurnCount(ctx context.Context, q string, pk int64, fn func(turn, a, b int64)) error {
	rows, err := s.read.QueryContext(ctx, q, pk)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var turn, a int64
		var b sql.NullInt64
		if err := rows.Scan(&turn, &a, &b); err != nil {
			return err
		}
		fn(turn, a, b.Int64)
	}
	return rows.Err()
}

// turnPrompts fills in each turn's first prompt line.
func (s *Store) turnPrompts(ctx context.Context, pk int64, out []TurnSummary, at map[int64]int) error {
	rows, err := s.read.QueryContext(ctx, `
		SELECT turn, text FROM messages
		WHERE session_pk = ? AND kind = 'human' AND turn IS NOT NULL
		ORDER BY seq`, pk)
	if err != nil {
		return err
	}
	defer rows.Close()
	done := map[int64]bool{}
	for rows.Next() {
		var turn int64
		var raw any
		if err := rows.Scan(&turn, &raw); err != nil {
			return err
		}
		i, ok := at[turn]
		if !ok || done[turn] {
			continue
		}
		text, err := s.unpackText(raw)
		if err != nil {
			return err
		}
		if line := promptLine(text); line != "" {
			out[i].Prompt = line
			done[turn] = true
		}
	}
	return rows.Err()
}

// promptLine is the first non-blank line of a prompt, cut to promptRunes characters.
func promptLine(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > promptRunes {
			return string(r[:promptRunes-1]) + "…"
		}
		return line
	}
	return ""
}
