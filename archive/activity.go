package archive

import (
	"context"
	"fmt"
)

// SessionActivity returns when each session was last active, in Unix
// milliseconds: its last event's time, else its creation. A derived store
// writes sessions oldest activity first, so its newest entries are the
// sessions worked on last (the search index reads the newest matches first).
func (s *Store) SessionActivity(ctx context.Context) (map[string]int64, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, COALESCE(last_time, created_at) FROM sessions`)
	if err != nil {
		return nil, fmt.Errorf("session activity: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var ms int64
		if err := rows.Scan(&id, &ms); err != nil {
			return nil, fmt.Errorf("session activity: %w", err)
		}
		out[id] = ms
	}
	return out, rows.Err()
}
