package archive_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// readOnlyView bind-mounts dir read-only at a new path and returns it (the mount is
// undone at cleanup). It needs root; CI runs as root, so there it must work.
func readOnlyView(t *testing.T, dir string) string {
	t.Helper()
	ro := t.TempDir()
	mount := func(args ...string) error { return exec.Command("mount", args...).Run() }
	if err := mount("--bind", dir, ro); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the read-only tests (as root): mount --bind: %v", err)
		}
		t.Skipf("a read-only mount needs root: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", ro).Run() })
	require.NoError(t, mount("-o", "remount,ro,bind", ro))
	return ro
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		fi, err := e.Info()
		require.NoError(t, err)
		out = append(out, e.Name()+":"+fi.ModTime().String())
	}
	return out
}

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
			ro := readOnlyView(t, dir)
			if tc.writerOpen {
				_, err := os.Stat(filepath.Join(dir, "logbook.db-wal"))
				require.NoError(t, err, "the writer's WAL is there")
			}
			before := listDir(t, dir)
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
			assert.True(t, slices.Equal(before, listDir(t, dir)), "nothing in the folder changed")
		})
	}
}
