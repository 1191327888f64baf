package demodata_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/app/demodata"
	"github.com/logbook/logbook/app/internal/demogen"
)

// TestEmbeddedIsTheGenerators: what is committed here (and so embedded) is what
// the generator makes today; when the generator changes, `go generate
// ./app/demodata` brings it level.
func TestEmbeddedIsTheGenerators(t *testing.T) {
	want, data, err := demogen.Embedded()
	require.NoError(t, err)
	got, err := demodata.ReadManifest()
	require.NoError(t, err)
	require.Equal(t, want, got, "manifest.json is stale: run go generate ./app/demodata")

	stored, err := filepath.Glob("*.jsonl.zst")
	require.NoError(t, err)
	assert.Len(t, stored, len(data), "only the generated logs are embedded")
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	for name, b := range data {
		z, err := os.ReadFile(name)
		require.NoError(t, err)
		plain, err := dec.DecodeAll(z, nil)
		require.NoError(t, err)
		assert.True(t, string(b) == string(plain), "%s is stale: run go generate ./app/demodata", name)
	}
}

// TestWriteIsTheGeneratorsDemo: the demo written from the embedded logs is, byte
// for byte, the one the generator writes for the same day, whatever the day.
func TestWriteIsTheGeneratorsDemo(t *testing.T) {
	for _, now := range []time.Time{
		time.Now(),
		time.Date(2025, 3, 30, 1, 30, 0, 0, time.UTC),        // before the stored dates
		time.Date(2031, 10, 26, 23, 59, 59, 999e6, time.UTC), // years after them
	} {
		t.Run(now.Format(time.DateOnly), func(t *testing.T) {
			got, want := t.TempDir(), t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(got, "left-over"), nil, 0o644))
			require.NoError(t, demodata.Write(got, now))
			require.NoError(t, demogen.WriteTree(want, now))
			assert.Equal(t, tree(t, want), tree(t, got))
		})
	}
}

// tree maps each file under root to its content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		m[rel] = string(b)
		return err
	}))
	require.NotEmpty(t, m)
	return m
}

func TestShift(t *testing.T) {
	const base, delta = int64(1767225600000), int64(86_400_000)
	for _, tc := range []struct{ name, in, want string }{
		{"epoch ms", `{"time":1767225600123}`, `{"time":1767312000123}`},
		{"ISO instant", `"scheduledAt":"2026-01-01T00:10:00.000Z"`, `"scheduledAt":"2026-01-02T00:10:00.000Z"`},
		{"before base", `{"time":1767225599999}`, `{"time":1767225599999}`},
		{"long after base", `{"time":1799999999999}`, `{"time":1799999999999}`},
		{"a fraction", `0.1767225600123`, `0.1767225600123`},
		{"more digits", `17672256001234`, `17672256001234`},
		{"a date without milliseconds", `"2026-01-01T00:10:00Z"`, `"2026-01-01T00:10:00Z"`},
		{"at the end", `1767225600000`, `1767312000000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.in)
			demodata.Shift(b, base, delta)
			assert.Equal(t, tc.want, string(b))
		})
	}
}

// TestProductDoesNotLinkTheGenerator: the binary embeds the demo; the test-log
// generator is for tests and go generate only.
func TestProductDoesNotLinkTheGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil { // go test was started by its full path
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	for _, tags := range []string{"", "desktop,production"} {
		out, err := exec.Command(goCmd, "list", "-deps", "-tags", tags, "github.com/logbook/logbook").CombinedOutput()
		require.NoError(t, err, "%s", out)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, "github.com/logbook/logbook/app/demodata", "tags %q", tags)
		for _, d := range deps {
			assert.False(t, strings.HasPrefix(d, "github.com/logbook/logbook/archive/dshgen") ||
				strings.HasSuffix(d, "/internal/demogen"), "tags %q: the product links %s", tags, d)
		}
	}
}
