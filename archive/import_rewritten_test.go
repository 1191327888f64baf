package archive_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

func TestImportRewritten(t *testing.T) {
	old := twoTurns("session-x")
	oldPlain := old.plain()

	// A rewrite of the same size: the first prompt differs but keeps its length.
	same := newLog("session-x", "")
	same.fullTurn("HELLO")
	same.fullTurn("again")
	require.Len(t, same.plain(), len(oldPlain))

	// A longer rewrite with different earlier content.
	longer := newLog("session-x", "")
	longer.fullTurn("bye")
	longer.fullTurn("again")
	longer.fullTurn("and again")

	// A shorter rewrite with different earlier content.
	shorter := newLog("session-x", "")
	shorter.fullTurn("bye")

	// A plain truncation below the cursor: the first turn only.
	truncated := plainOf(old.header, old.lines[:11])

	oldZstd := old.zstd(t, 4)

	for _, tc := range []struct {
		name       string
		compressed bool
		next       []byte
		logical    []byte
		recs       int
		// less: the new version holds fewer events, so it is kept aside unless the
		// import is told to replace it.
		less bool
	}{
		{"same-size rewrite is rewritten", false, same.plain(), same.plain(), 22, false},
		{"longer rewrite is rewritten", false, longer.plain(), longer.plain(), 33, false},
		{"zstd longer rewrite is rewritten", true, longer.zstd(t, 4), longer.plain(), 33, false},
		{"shorter rewrite is kept aside", false, shorter.plain(), shorter.plain(), 11, true},
		{"truncation below the cursor is kept aside", false, truncated, truncated, 11, true},
		{"zstd shorter rewrite is kept aside", true, shorter.zstd(t, 4), shorter.plain(), 11, true},
		{"zstd truncation to whole frames is kept aside", true, zstdOf(t, old.header, old.lines[:12], 4), plainOf(old.header, old.lines[:12]), 12, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := archivetest.MustOpen(t)
			path := sessionFile(t, t.TempDir(), "session-x", tc.compressed)
			if tc.compressed {
				writeFile(t, path, oldZstd)
			} else {
				writeFile(t, path, oldPlain)
			}
			require.Equal(t, dsh.VerdictOK, importOne(t, s, path).Verdict)

			writeFile(t, path, tc.next)
			fr := importOne(t, s, path)
			if tc.less {
				// Nothing is replaced by less: the archive keeps serving the old
				// version, flags the session and keeps the new bytes too.
				assert.Equal(t, "kept", fr.Action)
				assert.Equal(t, dsh.VerdictOK, fr.Verdict, "the new version itself reads fine: %+v", fr.Error)
				assert.Equal(t, 1, countKind(fr.Warnings, archive.KindDamagedUpstream), "%+v", fr.Warnings)
				assert.EqualValues(t, len(old.lines), fr.Records, "the report gives what the archive serves")
				assertSameBytes(t, oldPlain, exportOf(t, s, "session-x"), "export still holds the archived version")
				sess, err := s.Session(ctx, "session-x")
				require.NoError(t, err)
				assert.Equal(t, archive.HealthDamaged, sess.Health)
				kept, _ := blob(t, db(t, s), path, "upstream")
				assertSameBytes(t, tc.next, kept, "the new bytes are kept")

				again := importOne(t, s, path)
				assert.Equal(t, "unchanged", again.Action, "a kept version is not read again until it changes")
				assert.Equal(t, 1, countKind(again.Warnings, archive.KindDamagedUpstream))

				// The person chooses: replace it after all.
				fr = s.ImportFile(ctx, path, archive.ImportOptions{ReplaceDamaged: true})
			}
			assert.Equal(t, "rewritten", fr.Action)
			assert.True(t, fr.Changed)
			assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
			assert.EqualValues(t, tc.recs, fr.Records)
			assert.Zero(t, countKind(fr.Warnings, archive.KindDamagedUpstream))
			assertSameBytes(t, tc.logical, exportOf(t, s, "session-x"), "export holds the new content")
			sess, err := s.Session(ctx, "session-x")
			require.NoError(t, err)
			assert.Equal(t, "ok", sess.Health)

			d := db(t, s)
			assert.Equal(t, strings.Join(old.lines, "\n")+"\n", string(superseded(t, s)), "every old line is kept verbatim")
			assert.EqualValues(t, tc.recs, sessionOf(t, s, "session-x").Records)
			assert.EqualValues(t, 2, queryInt(t, d, `SELECT generation FROM files WHERE path = ?`, path), "the rewrite starts a new generation")

			msgs, err := s.Messages(ctx, "session-x")
			require.NoError(t, err)
			assert.Len(t, msgs, 3*(tc.recs/11), "derived rows are rebuilt from the new content")
		})
	}
}

func countKind(ps []dsh.Problem, k dsh.Kind) int {
	n := 0
	for _, p := range ps {
		if p.Kind == k {
			n++
		}
	}
	return n
}
