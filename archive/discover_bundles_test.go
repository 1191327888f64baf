//go:build unix

package archive

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiscoverBundles: the walk that finds the sessions also lists the files
// named like bundles (any case, or links to such files), for logbook import to
// unpack without walking the folders a second time; folders, pipes and dangling
// links so named are not listed, and none of them is taken for a session.
func TestDiscoverBundles(t *testing.T) {
	root := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("PK"), 0o644))
		return p
	}
	session := write("a/session.jsonl")
	top := write("shared.logbook")
	deep := write("x/y/Deep.LOGBOOK")
	write("x/notes.zip")
	link := filepath.Join(root, "link.logbook")
	require.NoError(t, os.Symlink(deep, link))
	require.NoError(t, os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "dangling.logbook")))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "folder.logbook"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "pipe.logbook"), 0o644))

	d := discoverWithin(t, root)
	assert.Equal(t, []string{session}, d.Files)
	assert.Equal(t, []string{link, top, deep}, d.Bundles, "sorted")
	assert.Empty(t, d.Problems)

	// A bundle named on the command line is the caller's to tell: a file named
	// is a source whatever its name, as before.
	named := discoverWithin(t, top)
	assert.Empty(t, named.Bundles)
	assert.Equal(t, []string{top}, named.Files)

	// Merge: what a second walk found joins the first, once.
	other := t.TempDir()
	otherSession := filepath.Join(other, "b", "session.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(otherSession), 0o755))
	require.NoError(t, os.WriteFile(otherSession, nil, 0o644))
	d.Merge(discoverWithin(t, other, root))
	assert.Equal(t, []string{session, otherSession}, d.Files)
	assert.Equal(t, []string{link, top, deep}, d.Bundles, "sorted")
	assert.Equal(t, "dsh", d.Formats[otherSession])
	assert.Contains(t, d.Roots, other)
}
