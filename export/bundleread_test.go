package export_test

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/export"
)

// writeZip writes a zip of files to a new file named name.
func writeZip(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for n, body := range files {
		w, err := zw.Create(n)
		require.NoError(t, err)
		_, err = w.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return p
}

// TestLooksLikeBundle: a .logbook file is a bundle whatever it holds; another
// zip only with a Logbook manifest, so an OpenHands export zip stays a source.
func TestLooksLikeBundle(t *testing.T) {
	text := filepath.Join(t.TempDir(), "x.logbook")
	require.NoError(t, os.WriteFile(text, []byte("cut"), 0o644))
	assert.True(t, export.LooksLikeBundle(text), "a .logbook file, even a damaged one")
	assert.True(t, export.LooksLikeBundle(writeZip(t, "renamed.zip", map[string]string{"manifest.json": `{"logbook_export": 2}`})))
	assert.False(t, export.LooksLikeBundle(writeZip(t, "conversation_abc.zip", map[string]string{"meta.json": `{}`, "events/0.json": `{}`})))
	assert.False(t, export.LooksLikeBundle(writeZip(t, "other.zip", map[string]string{"manifest.json": `{"name": "x"}`})))
	assert.False(t, export.LooksLikeBundle(t.TempDir()), "a folder")
	assert.False(t, export.LooksLikeBundle(filepath.Join(t.TempDir(), "missing.logbook")))
}
