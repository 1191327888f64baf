package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
)

// TestReadOnlyArchive opens an archive on a read-only mount: closed cleanly (no WAL
// files), and while a writer still has it open elsewhere (WAL and shm present). Every
// read works, export is byte for byte, a write says read-only, and nothing in the
// folder changes.
func TestReadOnlyArchive(t *testing.T) {
	ctx := context.Background()
	b := twoTurns("session-ro")
	path := sessionFile(t, t.TempDir(), "session-ro", false)
	writeFile(t, path, b.plain())

	dir := t.TempDir()
	w := archive.New(filepath.Join(dir, "logbook.db"))
	require.NoError(t, w.Open(ctx))
	importOne(t, w, path)

	for _, tc := range []struct {
		name       string
		writerOpen bool
	}{{"archive a writer holds open", true}, {"closed archive", false}} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.writerOpen {
				require.NoError(t, w.Close())
			}
			ro := archivetest.ReadOnlyView(t, dir)
			if tc.writerOpen {
				_, err := os.Stat(filepath.Join(dir, "logbook.db-wal"))
				require.NoError(t, err, "the writer's WAL is there")
			}
			before := archivetest.TreeState(t, dir)
			assert.False(t, archive.Writable(filepath.Join(ro, "logbook.db")))

			s := archive.New(filepath.Join(ro, "logbook.db"))
			require.NoError(t, s.OpenReadOnly(ctx))
			defer s.Close()
			assert.True(t, s.ReadOnly())
			list, err := s.ListSessions(ctx, archive.SessionFilter{})
			require.NoError(t, err)
			require.Len(t, list, 1)
			assertSameBytes(t, b.plain(), exportOf(t, s, "session-ro"), "export from a read-only archive")
			msgs, err := s.Messages(ctx, "session-ro")
			require.NoError(t, err)
			assert.NotEmpty(t, msgs)

			_, err = s.Import(ctx, []string{path}, archive.ImportOptions{})
			assert.ErrorIs(t, err, archive.ErrReadOnly)
			fr := s.ImportFile(ctx, path, archive.ImportOptions{})
			assert.Equal(t, archive.VerdictFailed, fr.Verdict)
			assert.Equal(t, archive.KindReadOnly, fr.Error.Kind)
			require.NoError(t, s.Close())
			after := archivetest.TreeState(t, dir)
			if tc.writerOpen {
				// In one process SQLite shares the writer's shared-memory map with
				// every connection to the same file, the read-only one's read marks
				// included: another process would have only the read-only map.
				shm := filepath.Join(dir, "logbook.db-shm")
				delete(before, shm)
				delete(after, shm)
			}
			assert.Equal(t, before, after, "nothing in the folder changed")
		})
	}
}
