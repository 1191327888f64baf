package archive

import (
	"context"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// TestEventSearchRunsOnIndexes: every search the events API makes walks an
// index of the event keys in the order asked, never sorting or scanning the
// conversation's events, and a count reads an index only.
func TestEventSearchRunsOnIndexes(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "logbook.db"))
	require.NoError(t, err)
	defer s.Close()
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 2, Turns: 3})
	require.NoError(t, err)
	_, err = s.Import(ctx, []string{facts.Unit.Path}, ImportOptions{})
	require.NoError(t, err)
	_, err = s.write.ExecContext(ctx, `ANALYZE`) // the planner's choice with statistics, as after PRAGMA optimize
	require.NoError(t, err)
	cursor := encodePageID(eventPos("2026-03-01T09:00:00.000000000", 4), false)
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	queries := map[string]EventQuery{
		"all":                  {Limit: 100},
		"desc":                 {Desc: true, Limit: 100},
		"kind":                 {Kind: "ActionEvent", Limit: 100},
		"kind desc":            {Kind: "ActionEvent", Desc: true, Limit: 100},
		"times":                {Since: day, Before: day.AddDate(0, 0, 2), Limit: 5},
		"kind and times page":  {Kind: "MessageEvent", Since: day, PageID: cursor, Limit: 5},
		"page":                 {PageID: cursor, Limit: 5},
		"times page":           {Since: day, Before: day.AddDate(0, 0, 2), PageID: cursor, Limit: 5},
		"times page desc":      {Since: day, Before: day.AddDate(0, 0, 2), PageID: encodePageID(eventPos("2026-03-01T09:00:00.000000000", 4), true), Desc: true, Limit: 5},
		"kind times page desc": {Kind: "ActionEvent", Since: day, Before: day.AddDate(0, 0, 2), PageID: encodePageID(eventPos("2026-03-01T09:00:00.000000000", 4), true), Desc: true, Limit: 5},
		"kind before page":     {Kind: "ActionEvent", Before: day.AddDate(0, 0, 2), PageID: cursor, Limit: 5},
	}
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			query, args, err := q.search(1)
			require.NoError(t, err)
			plan := explain(t, s, query, args)
			want := "events_api_ts"
			if q.Kind != "" {
				want = "events_api_kind"
			}
			assert.Contains(t, plan, "USING INDEX "+want, plan)
			assert.NotContains(t, plan, "TEMP B-TREE", "sorted by the index: %s", plan)
			assert.Contains(t, plan, "sf USING PRIMARY KEY", plan)
		})
	}
	t.Run("count", func(t *testing.T) {
		where, args := EventQuery{Kind: "ActionEvent", Since: day}.filter()
		plan := explain(t, s, `SELECT COUNT(*) FROM events e WHERE e.session_pk = ? AND e.pos IS NOT NULL`+where, append([]any{1}, args...))
		assert.Contains(t, plan, "USING COVERING INDEX events_api_kind", plan)
	})
	t.Run("get", func(t *testing.T) {
		plan := explain(t, s, `SELECT e.seq FROM events e WHERE e.session_pk = ? AND e.pos IS NOT NULL AND e.event_id IN (?, ?)`, []any{1, "a", "b"})
		assert.Contains(t, plan, "events_api_id", plan)
	})
}

func explain(t *testing.T, s *Store, query string, args []any) string {
	t.Helper()
	rows, err := s.read.Query(`EXPLAIN QUERY PLAN `+query, args...)
	require.NoError(t, err)
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
		lines = append(lines, detail)
	}
	require.NoError(t, rows.Err())
	return strings.Join(lines, "\n")
}

// TestEventKeysLeaveDshAlone: dsh events get no keys, so the events API's
// indexes hold no dsh row and a dsh import writes none.
func TestEventKeysLeaveDshAlone(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "logbook.db"))
	require.NoError(t, err)
	defer s.Close()
	root := t.TempDir()
	l := dshgen.Generate(dshgen.Options{Seed: 5, Turns: 3})
	_, err = l.WriteFile(root, false)
	require.NoError(t, err)
	facts, err := openhandsgen.Generate(root, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 3, Turns: 2})
	require.NoError(t, err)
	_, err = s.Import(ctx, []string{root}, ImportOptions{})
	require.NoError(t, err)
	var dshKeyed, dshEvents, ohKeyed int
	require.NoError(t, s.read.QueryRow(`SELECT COUNT(e.pos), COUNT(*) FROM events e JOIN sessions s ON s.pk = e.session_pk WHERE s.format = 'dsh'`).Scan(&dshKeyed, &dshEvents))
	require.NoError(t, s.read.QueryRow(`SELECT COUNT(e.pos) FROM events e JOIN sessions s ON s.pk = e.session_pk WHERE s.format = 'openhands'`).Scan(&ohKeyed))
	assert.Positive(t, dshEvents)
	assert.Zero(t, dshKeyed)
	assert.Equal(t, facts.Events, ohKeyed)
	_, err = s.EventLog(ctx, l.ID())
	assert.ErrorIs(t, err, ErrNotFound, "a dsh session is not served")
}

func TestPageIDs(t *testing.T) {
	p := eventPos("2026-03-01T09:00:00.123456000", 42)
	for _, desc := range []bool{false, true} {
		id := encodePageID(p, desc)
		assert.True(t, IsPageID(id))
		got, err := decodePageID(id, desc)
		require.NoError(t, err)
		assert.Equal(t, p, got)
		_, err = decodePageID(id, !desc)
		assert.ErrorIs(t, err, ErrBadPageID, "the other order")
	}
	none := eventPos("", 0)
	got, err := decodePageID(encodePageID(none, false), false)
	require.NoError(t, err)
	assert.Equal(t, none, got, "an event with no time")
	assert.Less(t, none, eventPos("0001-01-01T00:00:00.000000000", 0), "an event of no time sorts first")
	assert.Less(t, eventPos("2026-03-01T09:00:00.000000000", 99), eventPos("2026-03-01T09:00:00.000000001", 1), "time first")
	for _, bad := range []string{"", "100", "lb1.", "lb1.!!", "lb1.YQ", "lb1." + encode("a12"), "lb1." + encode("a 12"),
		"lb1." + encode("a2026 000000000012"), "lb1." + encode("x 000000000012"), "lb1." + encode("a -00000000012")} {
		_, err := decodePageID(bad, false)
		assert.ErrorIs(t, err, ErrBadPageID, bad)
	}
}

func encode(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
