package archive_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// TestRealLogEveryProjectedEventDecodes imports the real log and requires that the
// projection read every event it projects: no undecodable-event warning, and the
// latest title (seq 21, from a provider whose source.model is an object) wins.
func TestRealLogEveryProjectedEventDecodes(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	path := archivetest.Corpus(t, archivetest.RealLog)
	rep, err := s.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Files, 1)
	for _, w := range rep.Files[0].Warnings {
		assert.NotEqual(t, archive.KindUndecodableEvent, w.Kind, "%+v", w)
	}
	sess, err := s.Session(ctx, rep.Files[0].SessionID)
	require.NoError(t, err)
	assert.Equal(t, "测试写入权限", sess.Title)

	chk := archive.CheckFile(path, archive.ImportOptions{})
	for _, w := range chk.Warnings {
		assert.NotEqual(t, archive.KindUndecodableEvent, w.Kind, "%+v", w)
	}
}

// TestProjectionNeverDropsSilently feeds events whose data has shapes the
// projection cannot read in full. Each is archived, what can be read is projected,
// and each problem is a warning naming the type, line, seq and field, in the import
// report, in check, and again after a later append.
func TestProjectionNeverDropsSilently(t *testing.T) {
	ctx := context.Background()
	b := newLog("session-shapes", "")
	b.startTurn()
	b.user("first prompt")
	// A title whose source.model is an object, as dsh's title provider writes it.
	titleSeq := b.ev("session/title", `{"title":"provider title","messageSeqs":[1],"source":{"kind":"provider","provider":"p","model":{"provider":"x","model":"y"}}}`, "")
	// An approval policy carrying the optional source string.
	b.ev("approval/policy", `{"policy":"never","source":"delegation"}`, "")
	// A tool call whose name is a number: the call is kept, the name is the problem.
	badSeq := b.ev("tool/call", `{"turn":1,"step":1,"callId":"c1","name":7,"arguments":"{}"}`, "")
	// A usage that is not an object: the message still projects.
	usageSeq := b.ev("assistant/message", `{"turn":1,"step":1,"message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hello there"}],"source":{"kind":"model","provider":"p","model":"m"}},"usage":"lots"}`, `,"surfaceOp":"append"`)
	b.endTurn()
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	writeFile(t, path, b.plain())

	s := archivetest.MustOpen(t)
	rep, err := s.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	f := rep.Files[0]
	got := undecodable(f.Warnings)
	require.Len(t, got, 2, "%+v", f.Warnings)
	assert.Equal(t, badSeq, got[0].Seq)
	assert.Contains(t, got[0].Message, "tool/call at seq")
	assert.Contains(t, got[0].Message, "data.name: expected a string, got a number")
	assert.Greater(t, got[0].Line, int64(1))
	assert.Greater(t, got[0].Offset, int64(0))
	assert.Equal(t, usageSeq, got[1].Seq)
	assert.Contains(t, got[1].Message, "data.usage")

	sess, err := s.Session(ctx, f.SessionID)
	require.NoError(t, err)
	assert.Equal(t, "provider title", sess.Title, "title seq %d must win", titleSeq)
	assert.EqualValues(t, 1, sess.ToolCalls, "the call with a bad name is still counted")
	assert.Equal(t, "never", sess.Policy, "an approval/policy with a source string is projected")
	state, err := s.SessionState(ctx, f.SessionID, -1)
	require.NoError(t, err)
	policy := ""
	for _, e := range state.Entries {
		if e.Type == "approval/policy" && e.Marker != nil {
			policy = e.Marker.Label
		}
	}
	assert.Contains(t, policy, "never")

	chk := archive.CheckFile(path, archive.ImportOptions{})
	assert.Equal(t, got, undecodable(chk.Warnings), "check counts the same problems")

	// An append keeps the warnings of the lines it does not read again.
	b.startTurn()
	b.user("second prompt")
	b.endTurn()
	writeFile(t, path, b.plain())
	rep, err = s.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, "appended", rep.Files[0].Action)
	assert.Equal(t, got, undecodable(rep.Files[0].Warnings))
}

func undecodable(ws []dsh.Problem) []dsh.Problem {
	var out []dsh.Problem
	for _, w := range ws {
		if w.Kind == archive.KindUndecodableEvent {
			out = append(out, w)
		}
	}
	return out
}
