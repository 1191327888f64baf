package main

// CLI contract tests: every test drives run() in-process with its own --data folder
// and decodes --json output into plain maps and slices, so what is checked is the wire
// shape scripts rely on, not the Go structs behind it. One test builds the binary to
// prove the process-level contract (stdout is only JSON, exit status 0).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
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

func TestCheckMalformations(t *testing.T) {
	cases := dshgen.Malformations()
	names := []string{
		"ok/base",
		"ok/base-zstd",
		"header/not-json",
		"header/version-1",
		"event/missing-seq/committed",
		"event/missing-seq/tail",
		"seq/forward-gap/committed",
		"torn-tail/partial-line",
		"zstd/empty-file",
		"zstd/checksum-mismatch",
		"zstd/torn-last-frame",
		"zstd/bad-json-in-last-frame",
		"zstd/header-version-1",
	}
	dir := t.TempDir()
	data := t.TempDir()
	for i, name := range names {
		c := malCase(t, cases, name)
		t.Run(name, func(t *testing.T) {
			p := writeCase(t, dir, "session-"+strconv.Itoa(i), c)
			r := cliData(t, data, "check", "--json", p)
			wantCode := 0
			if c.Verdict != "ok" {
				wantCode = 1
			}
			assert.Equal(t, wantCode, r.code, "stderr: %s", r.stderr)
			files := objs(t, decode[map[string]any](t, r.stdout)["files"])
			require.Len(t, files, 1)
			f := files[0]
			assertReportShape(t, f)
			assert.Equal(t, p, f["path"])
			assert.Equal(t, c.Verdict, f["verdict"])
			assert.Equal(t, false, f["changed"], "check never changes the archive")
			if c.Kind == "" {
				assert.Nil(t, f["error"])
				return
			}
			e := obj(t, f["error"])
			assert.Equal(t, c.Kind, e["kind"])
			if c.Line >= 0 { // -1: the catalogue leaves the line of container damage open
				assert.EqualValues(t, c.Line, e["line"])
			}
		})
	}

	t.Run("several files", func(t *testing.T) {
		ok := writeCase(t, t.TempDir(), "session-a", malCase(t, cases, "ok/base"))
		bad := writeCase(t, t.TempDir(), "session-b", malCase(t, cases, "header/not-json"))
		missing := filepath.Join(t.TempDir(), "nope", "session.jsonl")
		r := cliData(t, data, "check", "--json", ok, bad, missing)
		assert.Equal(t, 1, r.code)
		files := fileByPath(t, decode[map[string]any](t, r.stdout))
		require.Len(t, files, 3)
		assert.Equal(t, "ok", files[ok]["verdict"])
		assert.Equal(t, "corrupt", files[bad]["verdict"])
		assert.Equal(t, "io-error", obj(t, files[missing]["error"])["kind"])

		r = cliData(t, data, "check", ok)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "ok")

		// After "--" every argument is a path, even one that looks like a flag.
		r = cliData(t, data, "check", "--json", "--", ok, "-no-such-file")
		assert.Equal(t, 1, r.code, r.stderr)
		files = fileByPath(t, decode[map[string]any](t, r.stdout))
		require.Len(t, files, 2)
		dash, err := filepath.Abs("-no-such-file")
		require.NoError(t, err)
		assert.Equal(t, "io-error", obj(t, files[dash]["error"])["kind"])
	})

	// check never writes to the archive.
	list := mustJSON[[]any](t, data, "sessions", "--json")
	assert.Empty(t, list)
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

func TestApprovals(t *testing.T) {
	data, a, b := importGenerated(t)

	all := objs(t, mustJSON[any](t, data, "approvals", "--json"))
	assert.Equal(t, map[string]int{a.ID(): len(a.Facts().Approvals), b.ID(): len(b.Facts().Approvals)}, sessionIDs(all))
	assert.Positive(t, assertInstantsUTC(t, all))

	for _, l := range []*dshgen.Log{a, b} {
		t.Run(l.ID(), func(t *testing.T) {
			items := objs(t, mustJSON[any](t, data, "approvals", "--json", "--session", l.ID()))
			facts := l.Facts().Approvals
			require.Len(t, items, len(facts))
			byID := map[string]map[string]any{}
			for _, it := range items {
				assert.Equal(t, l.ID(), it["session_id"])
				assert.NotEmpty(t, it["toolName"])
				assert.Contains(t, it, "outcome")
				byID[it["id"].(string)] = it
			}
			outcomes := map[string]bool{}
			for _, f := range facts {
				it, ok := byID[f.ID]
				require.True(t, ok, "approval %s missing", f.ID)
				if f.DecidedSeq < 0 {
					assert.Nil(t, it["outcome"], "undecided approval %s", f.ID)
					assert.Nil(t, it["decided_at"])
				} else {
					assert.Equal(t, f.Outcome, it["outcome"])
					outcomes[f.Outcome] = true
				}
				assert.EqualValues(t, f.AskedSeq, it["asked_seq"])
			}
			assert.Len(t, outcomes, 4, "every outcome appears: %v", outcomes)
		})
	}

	r := cliData(t, data, "approvals")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(undecided)")
}

func TestCompactions(t *testing.T) {
	data, a, b := importGenerated(t)

	all := objs(t, mustJSON[any](t, data, "compactions", "--json"))
	assert.Len(t, sessionIDs(all), 2)
	assert.Positive(t, assertInstantsUTC(t, all))

	for _, l := range []*dshgen.Log{a, b} {
		t.Run(l.ID(), func(t *testing.T) {
			items := objs(t, mustJSON[any](t, data, "compactions", "--json", "--session", l.ID()))
			byID := map[string]map[string]any{}
			for _, it := range items {
				assert.Equal(t, l.ID(), it["session_id"])
				arr(t, it["shadowedSeqs"]) // always a list
				if id, _ := it["compactionId"].(string); id != "" {
					byID[id] = it
				}
			}
			failed := 0
			for _, f := range l.Facts().Compactions {
				it, ok := byID[f.ID]
				require.True(t, ok, "compaction %s missing from %v", f.ID, items)
				seqs := []int64{}
				for _, s := range arr(t, it["shadowedSeqs"]) {
					seqs = append(seqs, int64(s.(float64)))
				}
				want := append([]int64{}, f.ShadowedSeqs...)
				sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
				sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
				assert.Equal(t, want, seqs, "shadowedSeqs of %s", f.ID)
				if f.Failed {
					failed++
					assert.Equal(t, "failed", it["status"])
					msg, _ := it["error"].(string)
					assert.NotEmpty(t, msg, "a failed compaction carries its error text")
				} else {
					assert.Nil(t, it["error"])
				}
			}
			assert.Equal(t, 1, failed)
		})
	}

	r := cliData(t, data, "compactions", "--session", a.ID())
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "error: ")
	assert.NotContains(t, r.stdout, b.ID())
}

func TestSchedules(t *testing.T) {
	data, a, b := importGenerated(t)

	all := objs(t, mustJSON[any](t, data, "schedules", "--json"))
	assert.Equal(t, map[string]int{a.ID(): len(a.Facts().Schedules), b.ID(): len(b.Facts().Schedules)}, sessionIDs(all))

	const early, late = "2000-01-01T00:00:00Z", "2200-01-01T00:00:00Z"
	tests := []struct {
		name       string
		now        string
		wantActive string
	}{
		{"early", early, "scheduled"},
		{"late", late, "overdue"},
		{"late with offset", "2200-01-01T09:00:00+09:00", "overdue"},
	}
	for _, l := range []*dshgen.Log{a, b} {
		facts := l.Facts().Schedules
		kinds := map[string]bool{}
		for _, f := range facts {
			kinds[f.Kind] = true
		}
		require.Len(t, kinds, 3, "the generator covers at, after and every")
		for _, tt := range tests {
			t.Run(l.ID()+"/"+tt.name, func(t *testing.T) {
				items := objs(t, mustJSON[any](t, data, "schedules", "--json", "--session", l.ID(), "--now", tt.now))
				require.Len(t, items, len(facts))
				assert.Positive(t, assertInstantsUTC(t, items))
				byID := map[string]map[string]any{}
				for _, it := range items {
					assert.Equal(t, l.ID(), it["session_id"])
					byID[it["id"].(string)] = it
				}
				active := 0
				for _, f := range facts {
					it, ok := byID[f.ID]
					require.True(t, ok, "schedule %s missing", f.ID)
					assert.Equal(t, f.Kind, it["kind"])
					assert.Equal(t, f.Prompt, it["prompt"])
					if f.Active {
						active++
						assert.Equal(t, tt.wantActive, it["state"], "schedule %s", f.ID)
						assertSameInstant(t, f.NextAt, it["next_fire"], "next_fire of %s", f.ID)
					} else {
						assert.Contains(t, []any{"deleted", "completed"}, it["state"], "schedule %s", f.ID)
						assert.Nil(t, it["next_fire"])
					}
				}
				assert.Positive(t, active, "at least one active schedule")
			})
		}
	}

	r := cliData(t, data, "schedules", "--now", early)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "scheduled")
}

func TestShowAndExportGenerated(t *testing.T) {
	data, a, _ := importGenerated(t)

	r := cliData(t, data, "show", a.ID())
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, a.ID())
	assert.Contains(t, r.stdout, "shadowed by compaction")

	v := mustJSON[map[string]any](t, data, "show", "--json", a.ID())
	assert.Equal(t, a.ID(), obj(t, v["session"])["id"])
	assert.Positive(t, assertInstantsUTC(t, v))

	r = cliData(t, data, "export", a.ID())
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, r.stdout == string(a.JSONL()), "export differs from the generated JSONL")
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
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	bin := filepath.Join(t.TempDir(), "logbook")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

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
