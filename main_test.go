package main

// CLI contract tests: every test drives run() in-process with its own --data folder
// and decodes --json output into plain maps and slices, so what is checked is the wire
// shape scripts rely on, not the Go structs behind it. One test (cmd_import_test.go)
// builds the binary to prove the process-level contract (stdout is only JSON, exit
// status 0). This file holds the shared helpers and the tests of the top level
// (errors, help, the data directory); each command's are in cmd_NAME_test.go.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

const (
	corpusRel       = "../shared/corpus/dsh/wzx123188-deepseekharness/session.jsonl.zstd"
	corpusSessionID = "session-2d7d25bf-c4f9-4dcd-911b-f75be0cc8885"
)

// result is what one CLI invocation produced.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs the command line in-process and returns its exit status and output.
func cli(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// cliData runs the command line against the archive in data.
func cliData(t *testing.T, data string, args ...string) result {
	t.Helper()
	return cli(t, append([]string{"--data", data}, args...)...)
}

// mustJSON runs a --json command that must succeed and decodes its stdout.
func mustJSON[T any](t *testing.T, data string, args ...string) T {
	t.Helper()
	r := cliData(t, data, args...)
	require.Equal(t, 0, r.code, "logbook %v: stderr: %s", args, r.stderr)
	return decode[T](t, r.stdout)
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(s))
	require.NoError(t, dec.Decode(&v), "stdout is not one JSON value: %q", clip(s, 400))
	_, err := dec.Token()
	require.Error(t, err, "stdout holds more than one JSON value")
	return v
}

// obj and arr narrow decoded JSON values, failing the test on a shape mismatch.
func obj(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	require.True(t, ok, "want a JSON object, got %T: %v", v, v)
	return m
}

func arr(t *testing.T, v any) []any {
	t.Helper()
	a, ok := v.([]any)
	require.True(t, ok, "want a JSON array, got %T: %v", v, v)
	return a
}

func objs(t *testing.T, v any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range arr(t, v) {
		out = append(out, obj(t, e))
	}
	return out
}

var instantRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}`)

// assertInstantsUTC walks decoded JSON and checks that every string that looks like an
// RFC 3339 instant is in UTC ("Z"), naming the path of any that is not. It returns how
// many instants it saw so callers can make sure the walk was not vacuous.
func assertInstantsUTC(t *testing.T, v any) int {
	t.Helper()
	n := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case []map[string]any:
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		case map[string]any:
			for k, e := range x {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		case string:
			if instantRE.MatchString(x) {
				n++
				assert.True(t, strings.HasSuffix(x, "Z"), "%s = %q is not an RFC 3339 UTC instant", path, x)
			}
		}
	}
	walk("$", v)
	return n
}

// assertSameInstant checks that got is an RFC 3339 string naming the instant want.
func assertSameInstant(t *testing.T, want string, got any, msgAndArgs ...any) {
	t.Helper()
	s, ok := got.(string)
	if !assert.True(t, ok, msgAndArgs...) {
		return
	}
	w, err := time.Parse(time.RFC3339Nano, want)
	require.NoError(t, err)
	g, err := time.Parse(time.RFC3339Nano, s)
	if assert.NoError(t, err, msgAndArgs...) {
		assert.True(t, w.Equal(g), "want %s, got %s", want, s)
	}
}

// corpusPath returns the real corpus log, skipping the test when it is absent.
func corpusPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(corpusRel)
	require.NoError(t, err)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared corpus not available at %s", p)
	}
	return p
}

// genLog generates a log with every event family and writes it under root.
func genLog(t *testing.T, root string, seed uint64, cwd string, compressed bool) (*dshgen.Log, string) {
	t.Helper()
	l := dshgen.Generate(dshgen.Options{Seed: seed, Turns: 8, Cwd: cwd})
	p, err := l.WriteFile(root, compressed)
	require.NoError(t, err)
	return l, p
}

// malCase returns the named dshgen malformation.
func malCase(t *testing.T, cases []dshgen.Case, name string) dshgen.Case {
	t.Helper()
	for _, c := range cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("dshgen.Malformations has no case %q", name)
	return dshgen.Case{}
}

// writeCase writes a malformation as a session file in its own session folder.
func writeCase(t *testing.T, root, folder string, c dshgen.Case) string {
	t.Helper()
	name := "session.jsonl"
	if c.Compressed {
		name += ".zstd"
	}
	p := filepath.Join(root, "proj", folder, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, c.Data, 0o644))
	return p
}

// fileByPath indexes a report's files by path.
func fileByPath(t *testing.T, report any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, f := range objs(t, obj(t, report)["files"]) {
		out[f["path"].(string)] = f
	}
	return out
}

// assertReportShape checks the stable keys of one file report.
func assertReportShape(t *testing.T, f map[string]any) {
	t.Helper()
	for _, k := range []string{"path", "session_id", "verdict", "error", "records", "logical_events", "last_seq", "changed"} {
		assert.Contains(t, f, k, "file report lacks %q", k)
	}
	if e, ok := f["error"].(map[string]any); ok {
		for _, k := range []string{"kind", "line", "offset", "message"} {
			assert.Contains(t, e, k, "error lacks %q", k)
		}
	}
}

// importGenerated imports two generated logs with every family into a fresh archive.
func importGenerated(t *testing.T) (data string, a, b *dshgen.Log) {
	t.Helper()
	root := t.TempDir()
	data = t.TempDir()
	a, _ = genLog(t, root, 1, "/home/u/alpha", true)
	b, _ = genLog(t, root, 2, "/home/u/beta", false)
	rep := mustJSON[map[string]any](t, data, "import", "--json", root)
	for _, f := range objs(t, rep["files"]) {
		require.Equal(t, "ok", f["verdict"], "%v", f["error"])
	}
	return data, a, b
}

// sessionIDs collects the session_id of every item.
func sessionIDs(items []map[string]any) map[string]int {
	out := map[string]int{}
	for _, it := range items {
		id, _ := it["session_id"].(string)
		out[id]++
	}
	return out
}

func TestErrors(t *testing.T) {
	data := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		msg  string // stderr must contain it
	}{
		{"no command", nil, 2, "usage: logbook"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown global flag", []string{"--bogus", "sessions"}, 2, "unknown global flag --bogus"},
		{"unknown flag", []string{"sessions", "--bogus"}, 2, "bogus"},
		{"show without session", []string{"show"}, 2, "name one session"},
		{"show two sessions", []string{"show", "a", "b"}, 2, "name one session"},
		{"export without session", []string{"export", "--format", "jsonl"}, 2, "name one session"},
		{"export bad format", []string{"export", "x", "--format", "csv"}, 2, `unknown format "csv"`},
		{"check without path", []string{"check", "--json"}, 2, "name at least one file"},
		{"bad --now", []string{"schedules", "--now", "tomorrow"}, 2, "--now must be an RFC 3339 instant"},
		{"date-only --now", []string{"schedules", "--now", "2026-11-29"}, 2, "--now"},
		{"unknown session: show", []string{"show", "session-nosuch"}, 1, "session-nosuch"},
		{"unknown session: show --json", []string{"show", "--json", "session-nosuch"}, 1, "session-nosuch"},
		{"unknown session: export", []string{"export", "session-nosuch", "--format", "jsonl"}, 1, "session-nosuch"},
		{"unknown session: approvals", []string{"approvals", "--session", "session-nosuch"}, 1, "session-nosuch"},
		{"unknown session: compactions", []string{"compactions", "--json", "--session", "session-nosuch"}, 1, "session-nosuch"},
		{"unknown session: schedules", []string{"schedules", "--session", "session-nosuch"}, 1, "session-nosuch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cliData(t, data, tt.args...)
			assert.Equal(t, tt.code, r.code, "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, tt.msg)
			assert.Empty(t, r.stdout, "errors go to stderr")
		})
	}

	t.Run("--data without a value", func(t *testing.T) {
		r := cli(t, "--data")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "--data needs a directory")
	})

	t.Run("export -o of an unknown session keeps the target", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "keep.txt")
		require.NoError(t, os.WriteFile(out, []byte("precious"), 0o644))
		r := cliData(t, data, "export", "session-nosuch", "-o", out)
		assert.Equal(t, 1, r.code)
		got, err := os.ReadFile(out)
		require.NoError(t, err, "export of an unknown session must not delete -o FILE")
		assert.Equal(t, "precious", string(got))
	})
}

func TestHelpAndVersion(t *testing.T) {
	r := cli(t, "--help")
	assert.Equal(t, 0, r.code)
	for _, name := range []string{"import", "check", "sessions", "show", "export", "approvals", "compactions", "schedules"} {
		assert.Contains(t, r.stdout, name)
	}
	r = cli(t, "--version")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "logbook")

	r = cli(t, "--data", t.TempDir(), "schedules", "-h")
	assert.Equal(t, 0, r.code, "subcommand help is not an error: %s", r.stderr)
	assert.Contains(t, r.stdout+r.stderr, "--now")
}

func TestLogbookDataEnv(t *testing.T) {
	root := t.TempDir()
	envData := t.TempDir()
	flagData := t.TempDir()
	l, _ := genLog(t, root, 3, "/home/u/env", false)
	t.Setenv("LOGBOOK_DATA", envData)

	r := cli(t, "import", "--json", root)
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(envData, "logbook.db"))

	r = cli(t, "sessions", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	list := objs(t, decode[any](t, r.stdout))
	require.Len(t, list, 1)
	assert.Equal(t, l.ID(), list[0]["id"])

	// --data wins over the environment.
	assert.Empty(t, mustJSON[[]any](t, flagData, "sessions", "--json"))
	assert.NoFileExists(t, filepath.Join(flagData, "missing"))
	r = cli(t, "--data="+flagData, "sessions", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, decode[[]any](t, r.stdout))
}
