package archive_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

func TestFiles(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	clock := time.UnixMilli(testCreated)
	s.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	root := t.TempDir()

	// ok, with warnings: a result without its call, an approval never decided.
	okLog := newConversation()
	okLog.b.asked("ap-open", "")
	okPath := sessionFile(t, root, "session-tl-1234", false)
	writeFile(t, okPath, okLog.b.plain())

	// corrupt: a bad line before later turn/ends.
	corrupt := twoTurns("session-bad")
	corruptLines := append(append(append([]string{}, corrupt.lines[:4]...), `{"type":"step/end","seq":4,`), corrupt.lines[4:]...)
	corruptPath := sessionFile(t, root, "session-bad", false)
	writeFile(t, corruptPath, plainOf(corrupt.header, corruptLines))

	// recovered: a bad line after the last turn/end (plain: in a zstd frame it is fatal).
	rec := twoTurns("session-rec")
	recPath := sessionFile(t, root, "session-rec", false)
	writeFile(t, recPath, plainOf(rec.header, append(append([]string{}, rec.lines...), `{not json}`)))

	// a copy of the ok session elsewhere, and a file of a newer format version.
	dupPath := sessionFile(t, t.TempDir(), "session-tl-1234", true)
	writeFile(t, dupPath, okLog.b.zstd(t, 5))
	newer := newLogVersion("session-v9", 9, "")
	newer.fullTurn("hi")
	newerPath := sessionFile(t, root, "session-v9", false)
	writeFile(t, newerPath, newer.plain())

	order := []string{okPath, corruptPath, recPath, dupPath, newerPath}
	for _, p := range order {
		importOne(t, s, p)
	}

	files, err := s.Files(ctx)
	require.NoError(t, err)
	require.Len(t, files, 5)
	byPath := map[string]archive.FileStatus{}
	for i, f := range files {
		byPath[f.Path] = f
		assert.Equal(t, order[len(order)-1-i], f.Path, "most recently imported first")
		if i > 0 {
			assert.True(t, f.LastImport.Before(files[i-1].LastImport))
		}
		assert.False(t, f.FirstSeen.IsZero())
		assert.False(t, f.Gone)
		fi, err := os.Stat(f.Path)
		require.NoError(t, err)
		assert.Equal(t, fi.Size(), f.Size)
	}

	t.Run("ok file", func(t *testing.T) {
		f := byPath[okPath]
		assert.Equal(t, "session-tl-1234", f.SessionID)
		assert.Equal(t, dsh.VerdictOK, f.Verdict)
		assert.Empty(t, f.ErrorKind)
		assert.False(t, f.Duplicate)
		assert.False(t, f.Compressed)
		assert.EqualValues(t, len(okLog.b.lines), f.Records)
		assert.EqualValues(t, okLog.b.seq, f.Events)
		assert.Positive(t, f.Warnings)
		problems, err := s.FileProblems(ctx, okPath)
		require.NoError(t, err)
		assert.Len(t, problems, int(f.Warnings), "no fatal problem, only warnings")
		for i := 1; i < len(problems); i++ {
			assert.LessOrEqual(t, problems[i-1].Line, problems[i].Line, "warnings in line order")
		}
	})
	t.Run("corrupt file", func(t *testing.T) {
		f := byPath[corruptPath]
		assert.Equal(t, "session-bad", f.SessionID)
		assert.Equal(t, dsh.VerdictCorrupt, f.Verdict)
		assert.Equal(t, string(dsh.KindBadJSON), f.ErrorKind)
		assert.EqualValues(t, 6, f.ErrorLine)
		assert.NotEmpty(t, f.ErrorMessage)
		assert.EqualValues(t, 4, f.Records)
		problems, err := s.FileProblems(ctx, corruptPath)
		require.NoError(t, err)
		require.NotEmpty(t, problems)
		assert.Equal(t, dsh.KindBadJSON, problems[0].Kind, "the fatal problem first")
		assert.EqualValues(t, 6, problems[0].Line)
		assert.Equal(t, f.ErrorMessage, problems[0].Message)
		assert.Len(t, problems, 1+int(f.Warnings))
	})
	t.Run("recovered file", func(t *testing.T) {
		f := byPath[recPath]
		assert.Equal(t, dsh.VerdictRecovered, f.Verdict)
		assert.Equal(t, string(dsh.KindBadJSON), f.ErrorKind)
		assert.EqualValues(t, len(rec.lines)+2, f.ErrorLine)
		assert.EqualValues(t, len(rec.lines), f.Records)
		problems, err := s.FileProblems(ctx, recPath)
		require.NoError(t, err)
		require.NotEmpty(t, problems)
		assert.Equal(t, dsh.KindBadJSON, problems[0].Kind)
	})
	t.Run("duplicate copy", func(t *testing.T) {
		f := byPath[dupPath]
		assert.True(t, f.Duplicate)
		assert.True(t, f.Compressed)
		assert.Equal(t, "session-tl-1234", f.SessionID, "named by its duplicate warning")
		assert.Equal(t, dsh.VerdictOK, f.Verdict)
		assert.Positive(t, f.Warnings)
		problems, err := s.FileProblems(ctx, dupPath)
		require.NoError(t, err)
		kinds := []dsh.Kind{}
		for _, p := range problems {
			kinds = append(kinds, p.Kind)
		}
		assert.Contains(t, kinds, dsh.Kind("duplicate-session"))
	})
	t.Run("unsupported file has no session", func(t *testing.T) {
		f := byPath[newerPath]
		assert.Empty(t, f.SessionID)
		assert.Equal(t, dsh.VerdictUnsupported, f.Verdict)
		assert.Equal(t, string(dsh.KindUnsupportedVersion), f.ErrorKind)
		assert.False(t, f.Duplicate)
	})
	t.Run("files of a session include its duplicate copies", func(t *testing.T) {
		got, err := s.SessionFiles(ctx, "session-tl")
		require.NoError(t, err)
		require.Len(t, got, 2)
		assert.Equal(t, byPath[dupPath], got[0])
		assert.Equal(t, byPath[okPath], got[1])
		got, err = s.SessionFiles(ctx, "session-bad")
		require.NoError(t, err)
		assert.Equal(t, []archive.FileStatus{byPath[corruptPath]}, got)
	})
	t.Run("unknown path", func(t *testing.T) {
		_, err := s.FileProblems(ctx, root+"/nope/session.jsonl")
		assert.ErrorIs(t, err, archive.ErrNotFound)
	})
	t.Run("a file gone upstream is kept and flagged", func(t *testing.T) {
		require.NoError(t, os.Remove(recPath))
		importPaths(t, s, archive.ImportOptions{}, root)
		got, err := s.SessionFiles(ctx, "session-rec")
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.True(t, got[0].Gone)
	})
}
