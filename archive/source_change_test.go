package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// lineStart returns the byte offset of 1-based line n.
func lineStart(b []byte, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		off += bytes.IndexByte(b[off:], '\n') + 1
	}
	return off
}

// sessionText joins every message text of a session, for "is it findable" checks.
func sessionText(t *testing.T, s *archive.Store, id string) string {
	t.Helper()
	var all bytes.Buffer
	_, err := s.SessionBlocks(context.Background(), id, func(b archive.Block) error {
		all.WriteString(b.Text)
		all.WriteByte('\n')
		return nil
	})
	require.NoError(t, err)
	return all.String()
}

// TestSameLengthEditInTheMiddleIsNotMissed edits one word in the middle of the real
// 3.5 MB log without changing its size: with a new mtime, and again with the mtime
// put back (only the ctime tells). Both times the import notices, reads the file
// again, and the new word is archived and exported.
func TestSameLengthEditInTheMiddleIsNotMissed(t *testing.T) {
	plain := realLog(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	require.NoError(t, os.WriteFile(path, plain, 0o644))
	s := archivetest.MustOpen(t)
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict)
	id := fr.SessionID

	// A word of a message text about halfway through the file, far from both the
	// header and the end (the old check hashed only those).
	mid := lineStart(plain, 2700)
	loc := regexp.MustCompile(`(?m)^\{"type":"assistant/message".*?"text":"[^"]*?\b([a-z]{6})\b`).FindSubmatchIndex(plain[mid:])
	require.NotNil(t, loc, "an assistant message after line 2700")

	for _, tc := range []struct {
		name        string
		marker      string
		restoreTime bool
	}{
		{"new mtime", "zqxjkv", false},
		{"mtime put back, ctime changed", "vkjxqz", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fi, err := os.Stat(path)
			require.NoError(t, err)
			edited := bytes.Clone(plain)
			copy(edited[mid+loc[2]:mid+loc[3]], tc.marker)
			require.NoError(t, os.WriteFile(path, edited, 0o644))
			if tc.restoreTime {
				require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
			} else {
				mt := fi.ModTime().Add(time.Second)
				require.NoError(t, os.Chtimes(path, mt, mt))
			}
			plain = edited

			fr := importOne(t, s, path)
			assert.Equal(t, "rewritten", fr.Action, "%+v", fr)
			assert.Equal(t, dsh.VerdictOK, fr.Verdict)
			assertSameBytes(t, edited, exportOf(t, s, id), "export holds the edited file")
			assert.True(t, strings.Contains(sessionText(t, s, id), tc.marker), "the new word %q is in the searchable text", tc.marker)
			assert.Equal(t, "unchanged", importOne(t, s, path).Action)
		})
	}
}

// TestDamagedSourceKeepsTheArchivedVersion flips one byte at line 1000 of an
// archived copy of the real log. The archive keeps serving the last good version
// (export, views, searchable text), flags the session, keeps the damaged bytes, and
// goes back to normal when the source is repaired.
func TestDamagedSourceKeepsTheArchivedVersion(t *testing.T) {
	ctx := context.Background()
	plain := realLog(t)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	writeFile(t, path, plain)
	s := archivetest.MustOpen(t)
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict)
	id := fr.SessionID
	textBefore := sessionText(t, s, id)
	sessBefore := sessionOf(t, s, id)
	revsBefore, err := s.Revisions(ctx)
	require.NoError(t, err)

	damaged := bytes.Clone(plain)
	at := lineStart(damaged, 1000) + 1 // the '"' of {"type": a flip makes the line bad JSON
	damaged[at] ^= 0x01
	writeFile(t, path, damaged)

	fr = importOne(t, s, path)
	assert.Equal(t, "kept", fr.Action)
	assert.Equal(t, dsh.VerdictCorrupt, fr.Verdict, "the report gives the source's new verdict")
	require.NotNil(t, fr.Error)
	assert.EqualValues(t, 1000, fr.Error.Line)
	assert.Equal(t, 1, countKind(fr.Warnings, archive.KindDamagedUpstream), "%+v", fr.Warnings)
	assert.EqualValues(t, 87208, fr.LogicalEvents, "the archive still holds every event")

	assertSameBytes(t, plain, exportOf(t, s, id), "export is the last good version, byte for byte")
	assert.Equal(t, textBefore, sessionText(t, s, id), "the searchable text is unchanged")
	sess := sessionOf(t, s, id)
	assert.Equal(t, archive.HealthDamaged, sess.Health)
	assert.Equal(t, sessBefore.Turns, sess.Turns)
	revs, err := s.Revisions(ctx)
	require.NoError(t, err)
	assert.Equal(t, revsBefore[id], revs[id], "nothing the index holds changed")
	kept, _ := blob(t, db(t, s), path, "upstream")
	assertSameBytes(t, damaged, kept, "the damaged bytes are kept too")
	page, err := s.Timeline(ctx, id, archive.TimelineQuery{})
	require.NoError(t, err)
	assert.NotEmpty(t, page.Items)

	// Re-running changes nothing and says the same.
	again := importOne(t, s, path)
	assert.Equal(t, "unchanged", again.Action)
	assert.Equal(t, dsh.VerdictCorrupt, again.Verdict)
	assert.Equal(t, 1, countKind(again.Warnings, archive.KindDamagedUpstream))

	// The source is repaired: back to normal, nothing read twice.
	writeFile(t, path, plain)
	fr = importOne(t, s, path)
	assert.Contains(t, []string{"unchanged", "appended"}, fr.Action)
	assert.Equal(t, dsh.VerdictOK, fr.Verdict)
	assert.Zero(t, countKind(fr.Warnings, archive.KindDamagedUpstream))
	assert.Equal(t, "ok", sessionOf(t, s, id).Health)
	assertSameBytes(t, plain, exportOf(t, s, id), "export unchanged")
	assert.EqualValues(t, 5349, sessionOf(t, s, id).Records, "no record stored twice")
}
