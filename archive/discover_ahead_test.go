//go:build unix

package archive

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiscoverListsAhead: the folders a walk lists ahead, concurrently, give
// the walk of one folder at a time: the same sessions, in the same order, with
// the same problems, whether each listing is kept or (past listAheadEntries)
// read again in its turn.
func TestDiscoverListsAhead(t *testing.T) {
	root := t.TempDir()
	var want []string
	for p := range 3 {
		for s := range listAhead + 7 { // more than one window of listings
			dir := filepath.Join(root, fmt.Sprintf("project-%d", p), fmt.Sprintf("session-%03d", s))
			require.NoError(t, os.MkdirAll(dir, 0o755))
			name := "session.jsonl"
			if s%5 == 0 {
				name = "session.jsonl.zstd"
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644))
			want = append(want, filepath.Join(dir, name))
			if s%9 == 0 {
				// A deeper session, and a folder with nothing in it.
				deep := filepath.Join(dir, "sub", "session-deep")
				require.NoError(t, os.MkdirAll(deep, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(deep, "session.jsonl"), []byte("{}\n"), 0o644))
				want = append(want, filepath.Join(deep, "session.jsonl"))
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))
			}
		}
	}
	locked := filepath.Join(root, "project-1", "session-010", "locked")
	require.NoError(t, os.MkdirAll(locked, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(locked, "session.jsonl"), []byte("{}\n"), 0o644))
	require.NoError(t, os.Chmod(locked, 0o000))
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	_, err := os.ReadDir(locked)
	lockable := err != nil // not as root, who reads any folder
	if !lockable {
		want = append(want, filepath.Join(locked, "session.jsonl"))
	}

	for _, budget := range []int64{listAheadEntries, 5, 0} {
		t.Run(fmt.Sprint("budget-", budget), func(t *testing.T) {
			old := listAheadEntries
			listAheadEntries = budget
			t.Cleanup(func() { listAheadEntries = old })
			d := Discover([]string{root})
			assert.ElementsMatch(t, want, d.Files)
			assert.IsNonDecreasing(t, d.Files)
			if !lockable {
				assert.Empty(t, d.Problems)
				return
			}
			require.Contains(t, d.Problems, locked, "the folder that could not be listed is reported")
			assert.Equal(t, KindPermissionDenied, d.Problems[locked].Kind)
			assert.Len(t, d.Problems, 1)
		})
	}
}
