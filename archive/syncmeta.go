package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// SyncVersion is one machine's version of a session whose versions
// diverged between machines (a sync conflict). Every version is kept; the
// archive holds the Local one until the user picks another.
type SyncVersion struct {
	Machine string `json:"machine"`
	Local   bool   `json:"local,omitempty"`
	Length  int64  `json:"length"`
	SHA256  string `json:"sha256"`
	// Path is the file a pulled version is kept in (not imported).
	Path string `json:"path,omitempty"`
}

// SessionSync is a session's sync provenance: the machine its bytes came
// from, and its diverged versions when it is in conflict.
type SessionSync struct {
	SessionID string        `json:"session_id"`
	Machine   string        `json:"machine"`
	Conflict  []SyncVersion `json:"conflict,omitempty"`
}

// SetSyncOrigins records, for each session id, the machine its bytes came
// from, leaving recorded conflicts as they are.
func (s *Store) SetSyncOrigins(ctx context.Context, machines map[string]string) error {
	if len(machines) == 0 {
		return nil
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sync origins: %w", err)
	}
	defer tx.Rollback()
	for id, m := range machines {
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_sync (session_id, machine) VALUES (?, ?)
			ON CONFLICT (session_id) DO UPDATE SET machine = excluded.machine`, id, m); err != nil {
			return fmt.Errorf("sync origins: %w", err)
		}
	}
	return tx.Commit()
}

// SetSyncConflicts replaces every recorded conflict with conflicts (by
// session id); local is the machine recorded for a session not seen before.
func (s *Store) SetSyncConflicts(ctx context.Context, local string, conflicts map[string][]SyncVersion) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sync conflicts: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE session_sync SET conflict = NULL WHERE conflict IS NOT NULL`); err != nil {
		return fmt.Errorf("sync conflicts: %w", err)
	}
	for id, vs := range conflicts {
		js, err := json.Marshal(vs)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_sync (session_id, machine, conflict) VALUES (?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET conflict = excluded.conflict`, id, local, string(js)); err != nil {
			return fmt.Errorf("sync conflicts: %w", err)
		}
	}
	return tx.Commit()
}

// SyncInfo is every session's sync provenance, by session id; sessions
// never synced are absent.
func (s *Store) SyncInfo(ctx context.Context) (map[string]SessionSync, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT session_id, machine, conflict FROM session_sync`)
	if noSyncTable(err) {
		return map[string]SessionSync{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sync info: %w", err)
	}
	defer rows.Close()
	out := map[string]SessionSync{}
	for rows.Next() {
		ss, err := scanSync(rows)
		if err != nil {
			return nil, fmt.Errorf("sync info: %w", err)
		}
		out[ss.SessionID] = ss
	}
	return out, rows.Err()
}

// SyncOf is session id's sync provenance; nil when it never synced.
func (s *Store) SyncOf(ctx context.Context, id string) (*SessionSync, error) {
	ss, err := scanSync(s.read.QueryRowContext(ctx, `SELECT session_id, machine, conflict FROM session_sync WHERE session_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) || noSyncTable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sync of %s: %w", id, err)
	}
	return &ss, nil
}

// scanSync reads one session_sync row (session_id, machine, conflict).
func scanSync(row interface{ Scan(...any) error }) (SessionSync, error) {
	var ss SessionSync
	var conflict sql.NullString
	if err := row.Scan(&ss.SessionID, &ss.Machine, &conflict); err != nil {
		return ss, err
	}
	if conflict.Valid {
		if err := json.Unmarshal([]byte(conflict.String), &ss.Conflict); err != nil {
			return ss, fmt.Errorf("session %s: conflict: %w", ss.SessionID, err)
		}
	}
	return ss, nil
}

// noSyncTable reports whether err is the missing session_sync table of an
// archive opened read-only (no migrations) before migration 0008: such an
// archive has no sync provenance.
func noSyncTable(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such table: session_sync")
}
