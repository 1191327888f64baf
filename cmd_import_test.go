package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

func TestImportDirectoryMixed(t *testing.T) {
	root := t.TempDir()
	data := t.TempDir()
	good, goodPath := genLog(t, root, 1, "/home/u/proj", true)
	cases := dshgen.Malformations()
	corrupt := malCase(t, cases, "seq/forward-gap/committed")
	unsupported := malCase(t, cases, "zstd/header-version-1")
	corruptPath := writeCase(t, root, "session-corrupt", corrupt)
	unsupportedPath := writeCase(t, root, "session-unsupported", unsupported)

	r := cliData(t, data, "import", "--json", root)
	assert.Equal(t, 1, r.code, "a corrupt or unsupported file makes import exit 1: %s", r.stderr)
	rep := decode[map[string]any](t, r.stdout)
	files := fileByPath(t, rep)
	require.Len(t, files, 3, "%v", files)
	onlyGood := cliData(t, t.TempDir(), "import", "--json", goodPath)
	assert.Equal(t, 0, onlyGood.code, "every file ok: exit 0: %s", onlyGood.stderr)

	tests := []struct {
		name    string
		path    string
		verdict string
		kind    string
		line    int64
	}{
		{"good", goodPath, "ok", "", 0},
		{"corrupt", corruptPath, corrupt.Verdict, corrupt.Kind, corrupt.Line},
		{"unsupported", unsupportedPath, unsupported.Verdict, unsupported.Kind, unsupported.Line},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := files[tt.path]
			require.True(t, ok, "no report for %s", tt.path)
			assertReportShape(t, f)
			assert.Equal(t, tt.verdict, f["verdict"])
			if tt.kind == "" {
				assert.Nil(t, f["error"])
				return
			}
			e := obj(t, f["error"])
			assert.Equal(t, tt.kind, e["kind"])
			assert.EqualValues(t, tt.line, e["line"])
			assert.NotEmpty(t, e["message"])
		})
	}

	g := files[goodPath]
	assert.Equal(t, good.ID(), g["session_id"])
	assert.EqualValues(t, good.Events(), g["logical_events"])
	assert.EqualValues(t, good.LastSeq(), g["last_seq"])
	assert.Equal(t, true, g["changed"])
	assert.Equal(t, "corrupt", corrupt.Verdict) // the catalogue still means what this test assumes
	assert.Equal(t, "unsupported", unsupported.Verdict)

	sum := obj(t, rep["summary"])
	assert.EqualValues(t, 3, sum["files"])
	assert.EqualValues(t, 1, sum["ok"])
	assert.EqualValues(t, 1, sum["corrupt"])
	assert.EqualValues(t, 1, sum["unsupported"])

	// The good log is archived despite its bad neighbours.
	ids := map[string]map[string]any{}
	for _, s := range objs(t, mustJSON[any](t, data, "sessions", "--json")) {
		ids[s["id"].(string)] = s
	}
	require.Contains(t, ids, good.ID())
	assert.Equal(t, "ok", ids[good.ID()]["health"])
	assert.EqualValues(t, good.Events(), ids[good.ID()]["events"])

	// The text report names each verdict too.
	r = cliData(t, data, "import", root)
	require.Equal(t, 1, r.code, r.stderr)
	for _, v := range []string{"ok", "corrupt", "unsupported"} {
		assert.Contains(t, r.stdout, v)
	}
	assert.Contains(t, r.stdout, "3 files: 1 ok, 0 recovered, 1 corrupt, 1 unsupported, 0 failed")
}

func TestImportCorpus(t *testing.T) {
	path := corpusPath(t)
	data := t.TempDir()

	for i, wantChanged := range []bool{true, false} {
		rep := mustJSON[map[string]any](t, data, "import", "--json", path)
		files := objs(t, rep["files"])
		require.Len(t, files, 1, "run %d", i+1)
		f := files[0]
		assertReportShape(t, f)
		assert.Equal(t, path, f["path"])
		assert.Equal(t, corpusSessionID, f["session_id"])
		assert.Equal(t, "ok", f["verdict"])
		assert.Nil(t, f["error"])
		assert.Contains(t, f, "error", "error must be present as null")
		assert.EqualValues(t, 87208, f["logical_events"])
		assert.EqualValues(t, 87207, f["last_seq"])
		assert.EqualValues(t, 5349, f["records"])
		assert.Equal(t, wantChanged, f["changed"], "run %d", i+1)
		assert.Equal(t, []any{}, rep["gone"], "gone is a list, never null")
		sum := obj(t, rep["summary"])
		assert.EqualValues(t, 1, sum["files"])
		assert.EqualValues(t, 1, sum["ok"])
	}

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	want, err := dec.DecodeAll(raw, nil) // what `zstd -dc` prints
	require.NoError(t, err)

	t.Run("sessions", func(t *testing.T) {
		list := objs(t, mustJSON[any](t, data, "sessions", "--json"))
		require.Len(t, list, 1)
		s := list[0]
		assert.Equal(t, corpusSessionID, s["id"])
		assert.Equal(t, "ok", s["health"])
		assert.EqualValues(t, 87208, s["events"])
		assert.EqualValues(t, 87207, s["last_seq"])
		assert.EqualValues(t, 8, s["turns"])
		assert.EqualValues(t, 136, s["tool_calls"])
		assert.Equal(t, "2026-08-16T17:36:49.409Z", s["created_at"])
		assert.Positive(t, assertInstantsUTC(t, list))

		r := cliData(t, data, "sessions")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, corpusSessionID)
	})

	t.Run("show", func(t *testing.T) {
		// An unambiguous prefix names the session too.
		v := mustJSON[map[string]any](t, data, "show", corpusSessionID[:16], "--json")
		assert.Equal(t, corpusSessionID, obj(t, v["session"])["id"])
		msgs := objs(t, v["messages"])
		assert.NotEmpty(t, msgs)
		for _, m := range msgs {
			assert.Equal(t, corpusSessionID, m["session_id"])
		}
		calls := objs(t, v["tool_calls"])
		assert.Len(t, calls, 136)
		assert.Greater(t, assertInstantsUTC(t, v), len(msgs))

		r := cliData(t, data, "show", corpusSessionID)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, corpusSessionID)
		assert.Contains(t, r.stdout, "── turn 8 ──")
	})

	t.Run("export -o", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "export.jsonl")
		r := cliData(t, data, "export", corpusSessionID, "--format", "jsonl", "-o", out)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, r.stdout, "export -o writes nothing to stdout")
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "export differs from zstd -dc: got %d bytes, want %d", len(got), len(want))
	})

	t.Run("export -o never overwrites or writes through a link without --force", func(t *testing.T) {
		dir := t.TempDir()
		existing := filepath.Join(dir, "existing.jsonl")
		require.NoError(t, os.WriteFile(existing, []byte("precious"), 0o644))
		r := cliData(t, data, "export", corpusSessionID, "-o", existing)
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "already exists: add --force")
		got, _ := os.ReadFile(existing)
		assert.Equal(t, "precious", string(got))

		target := filepath.Join(dir, "target.txt")
		require.NoError(t, os.WriteFile(target, []byte("link target"), 0o644))
		link := filepath.Join(dir, "link.jsonl")
		require.NoError(t, os.Symlink(target, link))
		r = cliData(t, data, "export", corpusSessionID, "-o", link)
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "symbolic link")
		got, _ = os.ReadFile(target)
		assert.Equal(t, "link target", string(got), "nothing is written through the link")

		r = cliData(t, data, "export", corpusSessionID, "-o", link, "--force")
		require.Equal(t, 0, r.code, r.stderr)
		got, _ = os.ReadFile(target)
		assert.Equal(t, "link target", string(got), "--force replaces the link, not its target")
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular(), "the link became the exported file")
		got, _ = os.ReadFile(link)
		assert.True(t, bytes.Equal(want, got))

		r = cliData(t, data, "export", corpusSessionID, "-o", existing, "--force")
		require.Equal(t, 0, r.code, r.stderr)
		got, _ = os.ReadFile(existing)
		assert.True(t, bytes.Equal(want, got))
		left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*"))
		assert.Empty(t, left, "no temporary file is left behind")

		r = cliData(t, data, "export", corpusSessionID, "-o", "/dev/null")
		assert.Equal(t, 0, r.code, "a device is written directly: %s", r.stderr)
	})

	t.Run("export stdout", func(t *testing.T) {
		r := cliData(t, data, "export", "--format", "jsonl", corpusSessionID)
		require.Equal(t, 0, r.code, r.stderr)
		assert.True(t, r.stdout == string(want), "export differs from zstd -dc: got %d bytes, want %d", len(r.stdout), len(want))
	})
}

func TestImportDefaultRoots(t *testing.T) {
	home, dshHome := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DSH_HOME", dshHome)
	data := t.TempDir()

	r := cliData(t, data, "import")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "No dsh session roots found")

	rep := mustJSON[map[string]any](t, data, "import", "--json")
	assert.Equal(t, []any{}, rep["files"])
	assert.Equal(t, []any{}, rep["gone"])

	// Once $DSH_HOME/sessions exists, a bare import reads it.
	l, _ := genLog(t, filepath.Join(dshHome, "sessions"), 4, "/home/u/roots", true)
	rep = mustJSON[map[string]any](t, data, "import", "--json")
	files := objs(t, rep["files"])
	require.Len(t, files, 1)
	assert.Equal(t, l.ID(), files[0]["session_id"])
	assert.Equal(t, "ok", files[0]["verdict"])
}

func TestBinaryImportJSON(t *testing.T) {
	bin := buildBinary(t)

	root := t.TempDir()
	l, _ := genLog(t, root, 5, "/home/u/bin", true)
	cmd := exec.Command(bin, "--data", t.TempDir(), "import", "--json", root)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
	assert.True(t, json.Valid(stdout.Bytes()), "stdout is only JSON: %q", clip(stdout.String(), 400))
	rep := decode[map[string]any](t, stdout.String())
	files := objs(t, rep["files"])
	require.Len(t, files, 1)
	assert.Equal(t, l.ID(), files[0]["session_id"])
	assert.Equal(t, "ok", files[0]["verdict"])
}

// buildBinary builds the logbook binary into a temporary directory (skipped
// with -short, or without the go tool).
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	bin := filepath.Join(t.TempDir(), "logbook")
	out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}
