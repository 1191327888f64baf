package archive_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// allEvents pages through a conversation's events, oldest first.
func allEvents(t *testing.T, l *archive.EventLog, q archive.EventQuery) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for {
		p, err := l.Search(context.Background(), q)
		require.NoError(t, err)
		out = append(out, p.Items...)
		if p.NextPageID == "" {
			return out
		}
		q.PageID = p.NextPageID
	}
}

// TestEventLogKeysEventsArchivedBefore: events archived before their keys were
// kept (migration 0006) get them on the first request for their conversation,
// and are then served as if they had been imported with them.
func TestEventLogKeysEventsArchivedBefore(t *testing.T) {
	ctx := context.Background()
	for _, layout := range []openhands.Layout{openhands.LayoutSDK, openhands.LayoutAppB, openhands.LayoutJSONL} {
		t.Run(string(layout), func(t *testing.T) {
			s := archivetest.MustOpen(t)
			facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: layout, Seed: 31, Turns: 5})
			require.NoError(t, err)
			_, err = s.Import(ctx, []string{facts.Unit.Path}, archive.ImportOptions{})
			require.NoError(t, err)
			l, err := s.EventLog(ctx, facts.Unit.SessionID)
			require.NoError(t, err)
			q := archive.EventQuery{Limit: 9, Desc: true}
			want := allEvents(t, l, q)
			require.Len(t, want, facts.Events)
			wantFiles := keyColumns(t, s)

			// As an archive written before migration 0006 holds them.
			db, err := sql.Open("sqlite", s.Path)
			require.NoError(t, err)
			defer db.Close()
			_, err = db.Exec(`UPDATE events SET event_id = NULL, pos = NULL, file = NULL`)
			require.NoError(t, err)
			require.Empty(t, allEvents(t, l, q), "unkeyed events are not served")

			l, err = s.EventLog(ctx, facts.Unit.SessionID)
			require.NoError(t, err)
			assert.Equal(t, want, allEvents(t, l, q))
			assert.Equal(t, wantFiles, keyColumns(t, s), "the same keys as an import gives")
			n, err := l.Count(ctx, archive.EventQuery{Kind: "MessageEvent"})
			require.NoError(t, err)
			assert.Positive(t, n)
		})
	}
}

// keyColumns are the event keys of every archived event, in seq order.
func keyColumns(t *testing.T, s *archive.Store) []string {
	t.Helper()
	db, err := sql.Open("sqlite", s.Path)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT coalesce(event_id, '-') || '|' || coalesce(pos, '-') || '|' || coalesce(file, '-') FROM events ORDER BY session_pk, seq`)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		require.NoError(t, rows.Scan(&k))
		out = append(out, k)
	}
	require.NoError(t, rows.Err())
	return out
}
