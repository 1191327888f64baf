package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// A file of a session that another existing file archives takes it over
// with TakeOver (the person chose that version): the local file's lines stay
// archived as superseded, the local file is never written, and importing it
// again, unchanged or grown, does not take the session back.
func TestImportTakeOver(t *testing.T) {
	s := archiveWithTwoSources(t)
	local, other := s.local, s.other

	fr := importOne(t, s.Store, other)
	require.Equal(t, "duplicate", fr.Action, "without TakeOver a second source is a duplicate")
	assertSameBytes(t, s.localLog.plain(), exportOf(t, s.Store, "session-x"), "export unchanged")

	rep := importPaths(t, s.Store, archive.ImportOptions{TakeOver: true}, other)
	require.Len(t, rep.Files, 1)
	assert.Equal(t, "rewritten", rep.Files[0].Action)
	assert.Equal(t, dsh.VerdictOK, rep.Files[0].Verdict)
	assert.Equal(t, other, sessionOf(t, s.Store, "session-x").Path)
	assertSameBytes(t, s.otherLog.plain(), exportOf(t, s.Store, "session-x"), "the other version is served")
	assert.Equal(t, strings.Join(s.localLog.lines, "\n")+"\n", string(superseded(t, s.Store)), "every local line stays archived, superseded")

	t.Run("UnchangedLocalFileStaysReleased", func(t *testing.T) {
		fr := importOne(t, s.Store, local)
		assert.Equal(t, "unchanged", fr.Action)
		assert.Equal(t, other, sessionOf(t, s.Store, "session-x").Path)
		assertSameBytes(t, s.otherLog.plain(), exportOf(t, s.Store, "session-x"), "the choice holds")
	})
	t.Run("GrownLocalFileIsADuplicate", func(t *testing.T) {
		before := len(s.localLog.plain())
		s.localLog.fullTurn("more")
		appendFile(t, local, s.localLog.plain()[before:])
		fr := importOne(t, s.Store, local)
		assert.Equal(t, "duplicate", fr.Action)
		assert.Contains(t, warningKinds(fr), dsh.Kind("duplicate-session"))
		assertSameBytes(t, s.otherLog.plain(), exportOf(t, s.Store, "session-x"), "the choice holds")
	})
}

type twoSources struct {
	*archive.Store
	local, other       string
	localLog, otherLog *logB
}

// archiveWithTwoSources archives session-x from a local file, and writes a
// diverged version of it to another file, not imported.
func archiveWithTwoSources(t *testing.T) twoSources {
	t.Helper()
	s := twoSources{Store: archivetest.MustOpen(t), localLog: twoTurns("session-x"), otherLog: newLog("session-x", "")}
	s.otherLog.fullTurn("elsewhere")
	s.otherLog.fullTurn("and on")
	s.otherLog.fullTurn("and on again")
	s.local = sessionFile(t, t.TempDir(), "session-x", false)
	s.other = sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, s.local, s.localLog.plain())
	writeFile(t, s.other, s.otherLog.plain())
	require.Equal(t, "new", importOne(t, s.Store, s.local).Action)
	return s
}

// superseded is every superseded line the archive keeps, in order.
func superseded(t *testing.T, s *archive.Store) []byte {
	t.Helper()
	rows, err := db(t, s).Query(`SELECT data FROM superseded_blocks ORDER BY first_line`)
	require.NoError(t, err)
	defer rows.Close()
	zd, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer zd.Close()
	var kept bytes.Buffer
	for rows.Next() {
		var data []byte
		require.NoError(t, rows.Scan(&data))
		plain, err := zd.DecodeAll(data, nil)
		require.NoError(t, err)
		kept.Write(plain)
	}
	require.NoError(t, rows.Err())
	return kept.Bytes()
}

// The same for a source read whole (an OpenHands conversation folder): the
// copy taking over serves its files, and the released folder imported again
// does not take the conversation back.
func TestImportTakeOverOpenHands(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 41, Turns: 3})
	require.NoError(t, err)
	local := facts.Unit.Path
	other := filepath.Join(t.TempDir(), filepath.Base(local)) // the same folder name: the same conversation
	require.NoError(t, os.CopyFS(other, os.DirFS(local)))
	state := filepath.Join(other, "base_state.json")
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(state, append(data, '\n'), 0o644)) // a diverged version
	id := facts.Unit.SessionID

	rep := importPaths(t, s, archive.ImportOptions{}, local, other)
	require.Len(t, rep.Files, 2)
	assert.Equal(t, "duplicate", rep.Files[1].Action, "without TakeOver a second source is a duplicate")
	rep = importPaths(t, s, archive.ImportOptions{TakeOver: true}, other)
	require.Len(t, rep.Files, 1)
	assert.Equal(t, "rewritten", rep.Files[0].Action)
	assert.Equal(t, archive.VerdictOK, rep.Files[0].Verdict)
	exported := filepath.Join(t.TempDir(), "x")
	require.NoError(t, s.ExportOriginal(ctx, id, exported))
	assert.Equal(t, openhandstest.ReadTree(t, other), openhandstest.ReadTree(t, exported), "the copy's files are served")

	rep = importPaths(t, s, archive.ImportOptions{}, local)
	require.Len(t, rep.Files, 1)
	assert.Contains(t, []string{"unchanged", "duplicate"}, rep.Files[0].Action)
	exported2 := filepath.Join(t.TempDir(), "x")
	require.NoError(t, s.ExportOriginal(ctx, id, exported2))
	assert.Equal(t, openhandstest.ReadTree(t, other), openhandstest.ReadTree(t, exported2), "the choice holds")
}
