package app

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInterruptedSessions(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		ta := newTestApp(t)
		done := ta.generate(t, 1, "/home/u/done")
		cut := ta.generate(t, 2, "/home/u/cut")
		// The agent stopped before its last turn ended: the log ends just before its
		// final turn/end line, cleanly (no torn write, so its health stays ok).
		path, err := cut.WriteFile(ta.root, false)
		require.NoError(t, err)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		end := bytes.LastIndex(data, []byte(`{"type":"turn/end"`))
		require.Positive(t, end)
		require.NoError(t, os.WriteFile(path, data[:end], 0o644))
		ta.importNow(t)

		ids, err := ta.InterruptedSessions()
		require.NoError(t, err)
		assert.Equal(t, []string{cut.ID()}, ids)
		s, err := ta.deps.Archive.Session(ta.ctx, cut.ID())
		require.NoError(t, err)
		assert.Equal(t, "ok", s.Health, "an interrupted session is healthy: only the mark tells")
		assert.NotContains(t, ids, done.ID())
	})

	t.Run("ResumedLifetimeNotCounted", func(t *testing.T) {
		// The demo's fork inherits a prefix that ends mid-activity, then goes on and
		// ends its turns; only the torn log ends mid-activity.
		ta := newTestApp(t)
		require.NoError(t, ta.CreateDemo())
		ids, err := ta.InterruptedSessions()
		require.NoError(t, err)
		ss, err := ta.Sessions()
		require.NoError(t, err)
		var torn []string
		for _, s := range ss {
			if s.Health == "recovered" {
				torn = append(torn, s.ID)
			}
		}
		assert.Equal(t, torn, ids)
	})
}
