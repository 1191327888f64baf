package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRevisionsReadTheIndexAlone: the revisions the search index reads whole
// before every search from the command line come from the index
// sessions_revision, not from the session rows (65-70 ms against 17-21 for
// 10,000 sessions read cold).
func TestRevisionsReadTheIndexAlone(t *testing.T) {
	s := openTestStore(t)
	for _, q := range []string{revisionsSQL, changeStampSQL} {
		rows, err := s.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q)
		require.NoError(t, err)
		var plan string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
			plan += detail + "\n"
		}
		require.NoError(t, rows.Err())
		rows.Close()
		assert.Contains(t, plan, "COVERING INDEX sessions_revision", "%s", q)
	}
}
