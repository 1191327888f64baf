package app

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

func TestSessionTurns(t *testing.T) {
	ta := newTestApp(t)
	ta.generate(t, 5, "/home/u/turns")
	ta.importNow(t)
	ss, err := ta.Sessions()
	require.NoError(t, err)
	require.Len(t, ss, 1)
	id := ss[0].ID
	sess, err := ta.Session(id)
	require.NoError(t, err)

	t.Run("OK", func(t *testing.T) {
		ts, err := ta.SessionTurns(id)
		require.NoError(t, err)
		assert.Len(t, ts, int(sess.Session.Turns), "one summary per turn the session counts")
		var tools int64
		for i, tu := range ts {
			assert.Equal(t, int64(i+1), tu.Turn)
			assert.LessOrEqual(t, tu.StartSeq, tu.EndSeq)
			tools += tu.Tools
		}
		assert.Equal(t, sess.Session.ToolCalls, tools, "the turns hold every tool call")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := ta.SessionTurns("session-nope")
		require.ErrorIs(t, err, archive.ErrNotFound)
	})
	t.Run("Invalid", func(t *testing.T) {
		_, err := ta.SessionTurns("")
		require.Error(t, err)
		assert.Contains(t, FormatError(err), "session id")
	})
}
