package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// TestExportOpenHands imports a generated OpenHands conversation folder and
// exports it with --format openhands: the folder's files come back under their
// names, byte for byte, and a second export into the same folder is refused.
func TestExportOpenHands(t *testing.T) {
	data := t.TempDir()
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 9, Turns: 3})
	require.NoError(t, err)
	rep := mustJSON[archive.ImportReport](t, data, "import", "--json", facts.Unit.Path)
	require.Len(t, rep.Files, 1)
	fr := rep.Files[0]
	assert.Equal(t, "openhands", fr.Agent)
	assert.Equal(t, "sdk-eventlog", fr.Format)
	assert.Equal(t, archive.VerdictOK, fr.Verdict)

	out := filepath.Join(t.TempDir(), "conv")
	r := cliData(t, data, "export", fr.SessionID, "--format", "openhands", "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	for _, name := range facts.Files {
		want, err := os.ReadFile(filepath.Join(facts.Unit.Path, filepath.FromSlash(name)))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		require.NoError(t, err)
		assert.Equal(t, want, got, name)
	}
	r = cliData(t, data, "export", fr.SessionID, "--format", "openhands", "-o", out)
	assert.NotEqual(t, 0, r.code, "an existing file is never overwritten")
	r = cliData(t, data, "export", fr.SessionID, "--format", "openhands")
	assert.Equal(t, 2, r.code, "a folder must be named: %s", r.stderr)
}

// TestExportKeptKindIsAUsageError: an unknown --kept kind is refused with the other
// flags, exit 2, before -o FILE is made.
func TestExportKeptKindIsAUsageError(t *testing.T) {
	data := t.TempDir()
	out := filepath.Join(t.TempDir(), "out.jsonl")
	r := cliData(t, data, "export", "some-id", "--kept", "backup", "-o", out)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, `--kept must be upstream, original or tail, got "backup"`)
	assert.NoFileExists(t, out)
}

// TestExportRawFormatsRefuseRedact: jsonl and openhands write the archive's bytes, so
// --redact (or a flag that goes with it) there is a usage error, not ignored.
func TestExportRawFormatsRefuseRedact(t *testing.T) {
	data := t.TempDir()
	for _, args := range [][]string{
		{"export", "some-id", "--redact"},
		{"export", "some-id", "--format", "jsonl", "--redact", "--yes"},
		{"export", "some-id", "--format", "openhands", "--redact", "-o", filepath.Join(t.TempDir(), "conv")},
		{"export", "some-id", "--redact-names", "ann"},
	} {
		r := cliData(t, data, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "go with --format md, html or bundle", args)
	}
}
