package export_test

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/export"
)

// TestSalvage: a bundle cut short gives the sessions whose entries all came
// before the cut, byte for byte; the session the cut falls in gives nothing.
func TestSalvage(t *testing.T) {
	s := openStore(t)
	ids := importLogs(t, s, dshgen.Generate(dshgen.Options{Seed: 5, Turns: 2, Cwd: "/w/a"}),
		dshgen.Generate(dshgen.Options{Seed: 6, Turns: 2, Cwd: "/w/b"}), dshgen.Generate(dshgen.Options{Seed: 7, Turns: 2, Cwd: "/w/c"}))
	var buf bytes.Buffer
	bw := export.NewBundleWriter(&buf, "test", nil)
	require.NoError(t, bw.AddSessions(context.Background(), s, ids))
	require.NoError(t, bw.Close())
	raw := buf.Bytes()
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	at := func(prefix string) int64 { // the middle of the first entry named prefix…
		for _, f := range zr.File {
			if strings.HasPrefix(f.Name, prefix) {
				off, err := f.DataOffset()
				require.NoError(t, err)
				return off + int64(f.CompressedSize64)/2
			}
		}
		t.Fatalf("no entry %s", prefix)
		return 0
	}
	want := map[int][]byte{} // session number → its log
	for _, f := range zr.File {
		if n := strings.TrimPrefix(f.Name, "sessions/"); n != f.Name && strings.Contains(f.Name, "/source/") {
			rc, err := f.Open()
			require.NoError(t, err)
			var b bytes.Buffer
			_, err = b.ReadFrom(rc)
			require.NoError(t, err)
			rc.Close()
			want[int(n[0]-'0')] = b.Bytes()
		}
	}
	tests := []struct {
		name string
		cut  int64
		kept int
		lost string
	}{
		{"InSource3", at("sessions/3/source/"), 2, "sessions/3: cut short"},
		{"InCopy2", at("sessions/2/session.html"), 1, "sessions/2: cut short"},
		{"InManifest", at("manifest.json"), 3, ""},
		{"InDirectory", int64(len(raw)) - 30, 3, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cut.logbook")
			require.NoError(t, os.WriteFile(p, raw[:tc.cut], 0o644))
			_, err := export.OpenBundle(p)
			require.ErrorIs(t, err, zip.ErrFormat, "a bundle cut short does not open")
			dir := filepath.Join(t.TempDir(), "salvaged")
			got, err := export.Salvage(p, dir)
			require.NoError(t, err)
			require.Len(t, got.Sources, tc.kept)
			for i, src := range got.Sources {
				b, err := os.ReadFile(src)
				require.NoError(t, err)
				assert.True(t, bytes.Equal(want[i+1], b), "session %d's log is whole", i+1)
			}
			if tc.lost == "" {
				assert.Empty(t, got.Lost)
			} else {
				require.Len(t, got.Lost, 1)
				assert.Contains(t, got.Lost[0], tc.lost)
				_, err := os.Stat(filepath.Join(dir, "sessions", tc.lost[len("sessions/"):len("sessions/")+1]))
				assert.ErrorIs(t, err, os.ErrNotExist, "nothing of the session cut is left")
			}
		})
	}
	t.Run("LocalFault", func(t *testing.T) {
		// The salvage cannot be written (here sessions/ is a file): a fault of
		// this machine, returned as an error, never a session lost to the bundle.
		p := filepath.Join(t.TempDir(), "cut.logbook")
		require.NoError(t, os.WriteFile(p, raw[:at("sessions/3/source/")], 0o644))
		dir := filepath.Join(t.TempDir(), "salvaged")
		require.NoError(t, os.MkdirAll(dir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "sessions"), nil, 0o600))
		got, err := export.Salvage(p, dir)
		require.Error(t, err)
		assert.NotErrorIs(t, err, export.ErrNotBundle)
		if got != nil {
			assert.Empty(t, got.Lost, "a local fault is no damage in the bundle")
		}
	})
	text := filepath.Join(t.TempDir(), "text.logbook")
	require.NoError(t, os.WriteFile(text, []byte("hello\n"), 0o644))
	_, err = export.Salvage(text, filepath.Join(t.TempDir(), "x"))
	assert.ErrorIs(t, err, export.ErrNotBundle)
}
