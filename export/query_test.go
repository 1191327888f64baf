package export_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/index"
)

// TestQuerySessions: every session a search finds, past the first page of its
// hits, none it does not; more sessions than the bound is
// refused, never cut short.
func TestQuerySessions(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var logs []*dshgen.Log
	for i := range 12 {
		logs = append(logs, dshgen.Generate(dshgen.Options{Seed: uint64(100 + i), Turns: 6, Cwd: "/home/dev/many", ASCII: true}))
	}
	other := dshgen.Generate(dshgen.Options{Seed: 99, Turns: 2, Cwd: "/home/dev/other", ASCII: true})
	ids := importLogs(t, s, append(logs, other)...)
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ix.Close() })
	_, err = ix.Sync(ctx, s, nil)
	require.NoError(t, err)

	const q = "project:/home/dev/many"
	first, err := ix.Search(ctx, index.Query{Text: q, Sort: index.SortRecent, Limit: index.MaxLimit})
	require.NoError(t, err)
	require.NotEmpty(t, first.NextCursor, "the hits take more than one page")

	got, err := export.QuerySessions(ctx, s, ix, q, export.MaxQuerySessions)
	require.NoError(t, err)
	assert.ElementsMatch(t, ids[:12], got)

	got, err = export.QuerySessions(ctx, s, ix, `project:/home/dev/other OR project:/home/dev/nowhere`, export.MaxQuerySessions)
	require.NoError(t, err)
	assert.Equal(t, []string{other.ID()}, got)
	got, err = export.QuerySessions(ctx, s, ix, `project:/home/dev/nowhere`, export.MaxQuerySessions)
	require.NoError(t, err)
	assert.Empty(t, got)

	_, err = export.QuerySessions(ctx, s, ix, q, 5)
	var many *export.TooManySessionsError
	require.ErrorAs(t, err, &many)
	assert.Contains(t, err.Error(), "more than 5 sessions")

	_, err = export.QuerySessions(ctx, s, ix, "(", export.MaxQuerySessions)
	var qe *index.QueryError
	assert.ErrorAs(t, err, &qe)
}
