package export_test

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
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

// TestUnpack: each entry is checked as it is unpacked; a session with an entry
// at fault gives nothing while the others are unpacked whole, and a file
// unpacked before that was changed since is written again.
func TestUnpack(t *testing.T) {
	s := openStore(t)
	ids := importLogs(t, s, dshgen.Generate(dshgen.Options{Seed: 3, Turns: 2, Cwd: "/w/a"}), dshgen.Generate(dshgen.Options{Seed: 4, Turns: 2, Cwd: "/w/b"}))
	ctx := context.Background()
	good := filepath.Join(t.TempDir(), "good.logbook")
	f, err := os.Create(good)
	require.NoError(t, err)
	bw := export.NewBundleWriter(f, "test", nil)
	require.NoError(t, bw.AddSessions(ctx, s, ids))
	require.NoError(t, bw.Close())
	require.NoError(t, f.Close())

	// Session 2's log changed inside the zip, its manifest left as it was.
	src, err := zip.OpenReader(good)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range src.File {
		rc, err := e.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		if strings.HasPrefix(e.Name, "sessions/2/source/") {
			b = append(b[:len(b)-2], '!', '\n')
		}
		files[e.Name] = string(b)
	}
	require.NoError(t, src.Close())
	bad := writeZip(t, "bad.logbook", files)

	dir := filepath.Join(t.TempDir(), "unpacked")
	bd, err := export.OpenBundle(bad)
	require.NoError(t, err)
	u, err := bd.Unpack(ctx, dir)
	require.NoError(t, err)
	require.NoError(t, bd.Close())
	require.Len(t, u.Faults, 1)
	assert.True(t, strings.HasPrefix(u.Faults[0].Entry, "sessions/2/source/"), u.Faults[0].Entry)
	assert.Contains(t, u.Faults[0].Error(), "SHA-256")
	require.Len(t, u.Damaged, 1)
	assert.Equal(t, u.Faults[0], u.Damaged[ids[1]])
	_, err = os.Stat(filepath.Join(dir, "sessions", "2"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing of the damaged session is left, not even a folder")
	src1 := bd.Manifest.Sessions[0].Source
	log1, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(src1)))
	require.NoError(t, err)
	assert.Equal(t, files[src1], string(log1), "the whole session is unpacked")

	// The whole bundle into the same folder: the missing session comes, and a
	// file changed on disk since is the entry again.
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(src1)), []byte("changed\n"), 0o644))
	bd, err = export.OpenBundle(good)
	require.NoError(t, err)
	defer bd.Close()
	u, err = bd.Unpack(ctx, dir)
	require.NoError(t, err)
	assert.Empty(t, u.Faults)
	assert.Empty(t, u.Damaged)
	for _, sess := range bd.Manifest.Sessions {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(sess.Source)))
		require.NoError(t, err)
		assert.Equal(t, files[sess.Source] != string(b), sess.ID == ids[1], "session %s", sess.ID)
	}
	left, err := filepath.Glob(filepath.Join(dir, "sessions", "*", "source", "*", "*", ".*partial*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left")
}
