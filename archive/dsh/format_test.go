package dsh

import (
	"io/fs"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormatIsSource(t *testing.T) {
	fsys := fstest.MapFS{
		"p/s/session.jsonl":      {},
		"p/s/session.jsonl.zstd": {},
		"p/s/session.v1.jsonl":   {},
		"p/s/notes.txt":          {},
		"p/session.jsonl":        {Mode: fs.ModeDir},
	}
	got := map[string]bool{}
	require.NoError(t, fs.WalkDir(fsys, ".", func(path string, e fs.DirEntry, err error) error {
		got[path] = Format{}.IsSource(path, e)
		return err
	}))
	assert.True(t, got["p/s/session.jsonl"])
	assert.True(t, got["p/s/session.jsonl.zstd"])
	assert.False(t, got["p/s/session.v1.jsonl"], "a later format version is not V0")
	assert.False(t, got["p/s/notes.txt"])
	assert.False(t, got["p/session.jsonl"], "a folder is never a dsh source")
}

func TestFormatRoots(t *testing.T) {
	t.Setenv("DSH_HOME", "/opt/dsh")
	t.Setenv("HOME", "/home/u")
	assert.Equal(t, []string{filepath.Join("/opt/dsh", "sessions"), filepath.Join("/home/u", ".dsh", "sessions")}, Format{}.Roots())
	t.Setenv("DSH_HOME", "  ")
	assert.Equal(t, []string{filepath.Join("/home/u", ".dsh", "sessions")}, Format{}.Roots(), "a blank DSH_HOME is unset")
}
