package index

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sessions finds exactly the sessions a search's hits name, for every kind of
// query the language has.
func TestSessionsOfAQuery(t *testing.T) {
	f := fixture(t)
	now := time.Date(2026, 8, 20, 0, 0, 0, 0, time.UTC)
	for _, q := range []string{
		"write permission",
		`"write permission"`,
		"kind:tool_result",
		"tool:pwsh -error",
		"since:30d",
		"写入权限",
		"no_such_word_anywhere",
		"", // everything
	} {
		want := map[string]bool{}
		for _, id := range searchAll(t, f.ix, Query{Text: q, Now: now, Exhaustive: true}) {
			want[f.byID[id].SessionID] = true
		}
		got, err := f.ix.Sessions(context.Background(), q, now)
		require.NoError(t, err, q)
		gotSet := map[string]bool{}
		for _, id := range got {
			assert.False(t, gotSet[id], "%q: %s twice", q, id)
			gotSet[id] = true
		}
		assert.Equal(t, want, gotSet, q)
	}
	_, err := f.ix.Sessions(context.Background(), `"unclosed`, now)
	assert.Error(t, err)
}
