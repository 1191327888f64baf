package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCLIDamagedUpstream damages an archived source: import keeps the archived
// session (exit 1, verdict corrupt, action kept, a damaged-upstream warning), every
// view still serves it, the damaged bytes come out with export --kept upstream, and
// import --replace-damaged takes the damaged version when the person asks.
func TestCLIDamagedUpstream(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	l, path := genLog(t, root, 7, "/home/u/proj", false)
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	r := cliData(t, data, "import", root)
	require.Equal(t, 0, r.code, r.stderr)

	lines := bytes.SplitAfter(good, []byte("\n"))
	require.Greater(t, len(lines), 20)
	damaged := bytes.Join(lines[:10], nil)
	damaged = append(damaged, []byte("{not json\n")...)
	damaged = append(damaged, bytes.Join(lines[11:], nil)...)
	require.NoError(t, os.WriteFile(path, damaged, 0o644))

	r = cliData(t, data, "import", "--json", root)
	assert.Equal(t, 1, r.code, r.stderr)
	f := objs(t, decode[map[string]any](t, r.stdout)["files"])[0]
	assert.Equal(t, "corrupt", f["verdict"])
	assert.Equal(t, "kept", f["action"])
	kinds := []string{}
	for _, w := range objs(t, f["warnings"]) {
		kinds = append(kinds, w["kind"].(string))
	}
	assert.Contains(t, kinds, "damaged-upstream")

	r = cliData(t, data, "export", l.ID())
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, bytes.Equal(good, []byte(r.stdout)), "export still serves the last good version")
	r = cliData(t, data, "sessions")
	assert.Contains(t, r.stdout, "damaged")

	out := filepath.Join(t.TempDir(), "upstream.jsonl")
	r = cliData(t, data, "export", l.ID(), "--kept", "upstream", "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(damaged, got), "the damaged bytes are kept and can be taken out")

	r = cliData(t, data, "import", "--json", "--replace-damaged", root)
	assert.Equal(t, 1, r.code, "the source is still corrupt")
	f = objs(t, decode[map[string]any](t, r.stdout)["files"])[0]
	assert.Equal(t, "rewritten", f["action"])
	r = cliData(t, data, "export", l.ID())
	assert.True(t, bytes.Equal(bytes.Join(lines[:10], nil), []byte(r.stdout)), "the person chose the damaged version: its valid prefix")
}

// TestDataFilesAreOwnerOnly imports and searches, then checks that no file or folder
// in the data directory can be read by another local user, whatever the umask.
func TestDataFilesAreOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root, data := t.TempDir(), t.TempDir()
	genLog(t, root, 9, "/home/u/proj", false)
	r := cliData(t, data, "import", root)
	require.Equal(t, 0, r.code, r.stderr)
	r = cliData(t, data, "search", "the")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if p == data {
			return nil
		}
		fi, err := d.Info()
		require.NoError(t, err)
		assert.Zero(t, fi.Mode().Perm()&0o077, "%s is %v", p, fi.Mode().Perm())
		return nil
	}))
}
