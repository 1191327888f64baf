// Package faults is the fault-injection suite: it runs the real logbook binary the
// way a person's machine fails it (kill -9 in the middle of an import, a disk that
// fills up, a data directory that cannot be written) and checks that nothing the
// archive held is ever lost or changed, and that every command answers truly.
package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

// bin is the logbook binary built for the suite (the headless build).
var bin string

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "logbook-faults-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "logbook")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = filepath.Join("..", "..")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build logbook:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
	maxRSS         int64 // bytes
}

// logbook runs the binary with args against data and waits for it.
func logbook(t *testing.T, data string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--data", data}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DSH_HOME=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.maxRSS = ru.Maxrss << 10
		}
	} else {
		require.NoError(t, err)
	}
	return r
}

// importReport is the part of `import --json` the suite reads.
type importReport struct {
	Files []struct {
		Path      string `json:"path"`
		SessionID string `json:"session_id"`
		Verdict   string `json:"verdict"`
		Action    string `json:"action"`
		Error     *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"files"`
}

func parseReport(t *testing.T, r result) importReport {
	t.Helper()
	var rep importReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), "import --json printed: %s\nstderr: %s", r.stdout, r.stderr)
	return rep
}

// logical returns a session file's logical bytes (zstd frames decoded).
func logical(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	if !strings.HasSuffix(path, ".zstd") {
		return raw
	}
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	out, err := dec.DecodeAll(raw, nil)
	require.NoError(t, err)
	return out
}

// corpus writes generated sessions (plain and zstd) and a copy of the real log,
// and returns the root and every session's logical bytes by id.
func corpus(t *testing.T, mb int64) (string, map[string][]byte) {
	t.Helper()
	root := t.TempDir()
	for i, compressed := range []bool{false, true} {
		_, err := dshgen.WriteCorpus(filepath.Join(root, fmt.Sprintf("gen%d", i)), dshgen.CorpusOptions{
			Seed: uint64(11 + i), Sessions: 12, TargetBytes: mb << 19, Compressed: compressed, Workers: 2})
		require.NoError(t, err)
	}
	if real := filepath.Join("..", "..", "..", "shared", "corpus", "dsh", "wzx123188-deepseekharness", "session.jsonl.zstd"); fileExists(real) {
		dst := filepath.Join(root, "real", "session.jsonl.zstd")
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		b, err := os.ReadFile(real)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	} else if os.Getenv("CI") != "" {
		t.Fatalf("CI has the shared corpus beside the checkout: %s is missing", real)
	}
	want := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(d.Name(), ".jsonl") {
			return err
		}
		b := logical(t, p)
		var h struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &h))
		want[h.ID] = b
		return nil
	}))
	return root, want
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// archived opens the archive in data and returns every session's export.
func archived(t *testing.T, data string) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	s := archive.New(filepath.Join(data, "logbook.db"))
	require.NoError(t, s.Open(ctx))
	defer s.Close()
	list, err := s.ListSessions(ctx, archive.SessionFilter{})
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, sess := range list {
		var b bytes.Buffer
		require.NoError(t, s.ExportJSONL(ctx, sess.ID, &b))
		out[sess.ID] = b.Bytes()
	}
	return out
}

// searchTotal is `logbook search --json q`'s total.
func searchTotal(t *testing.T, data, q string) int {
	t.Helper()
	r := logbook(t, data, "search", "--json", "--exhaustive", q)
	require.Equal(t, 0, r.code, "search %q: %s", q, r.stderr)
	var res struct {
		Total int `json:"total"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	return res.Total
}

// TestKillNineNeverLosesOrChangesAnything kills `logbook import` with SIGKILL at
// random moments, over and over. After every kill, each archived session is a
// prefix of its source (nothing half-written, nothing altered) and no session
// archived whole before a kill has changed; the import that finally completes
// leaves every session byte-identical to its source, and search totals equal those
// of an archive built without a single crash.
func TestKillNineNeverLosesOrChangesAnything(t *testing.T) {
	root, want := corpus(t, 24)
	data := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	whole := map[string][]byte{}
	kills := 0
	for round := 0; round < 25 && kills < 12; round++ {
		cmd := exec.Command(bin, "--data", data, "import", "--json", root)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DSH_HOME=")
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			// It finished before the kill: a full run.
		case <-time.After(time.Duration(20+rng.IntN(480)) * time.Millisecond):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			kills++
		}
		for id, got := range archived(t, data) {
			src, ok := want[id]
			require.True(t, ok, "the archive holds a session no source has: %s", id)
			require.True(t, bytes.HasPrefix(src, got), "round %d: session %s is not a prefix of its source (%d of %d bytes)", round, id, len(got), len(src))
			if prev, ok := whole[id]; ok {
				require.True(t, bytes.Equal(prev, got), "round %d: session %s changed after it was archived whole", round, id)
			}
			if bytes.Equal(src, got) {
				whole[id] = got
			}
		}
	}
	require.GreaterOrEqual(t, kills, 4, "the imports were killed mid-way")
	t.Logf("%d imports killed", kills)

	r := logbook(t, data, "import", "--json", root)
	require.Equal(t, 0, r.code, "the import after the kills: %s", r.stderr)
	for _, f := range parseReport(t, r).Files {
		assert.Contains(t, []string{"ok", "recovered"}, f.Verdict, "%s: %+v", f.Path, f.Error)
	}
	got := archived(t, data)
	require.Len(t, got, len(want))
	for id, src := range want {
		assert.True(t, bytes.Equal(src, got[id]), "session %s exports byte for byte", id)
	}

	clean := t.TempDir()
	r = logbook(t, clean, "import", "--json", root)
	require.Equal(t, 0, r.code, r.stderr)
	for _, q := range []string{"error", "the", "写入权限", `"tool call"`, "kind:tool_result"} {
		assert.Equal(t, searchTotal(t, clean, q), searchTotal(t, data, q), "search %q after the kills equals a clean archive's", q)
	}
}

// TestFullDiskIsAFaultNotAVerdict fills the disk of a data directory that already
// holds an archive and its index, then imports more. The import exits 1 and reports
// the files that did not fit as failed with the cause disk-full (never corrupt);
// search still answers; and once there is room the next import archives them, every
// session byte for byte.
func TestFullDiskIsAFaultNotAVerdict(t *testing.T) {
	root, want := corpus(t, 16)
	data := archivetest.Tmpfs(t, "96m")

	first := filepath.Join(root, "gen0")
	r := logbook(t, data, "import", "--json", first)
	require.Equal(t, 0, r.code, r.stderr)
	before := archived(t, data)
	// Fill the disk but for 2 MiB, as a big download or a build would.
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(data, &st))
	free := int64(st.Bavail) * st.Bsize
	ballast := filepath.Join(data, "ballast")
	require.NoError(t, os.WriteFile(ballast, make([]byte, free-2<<20), 0o600))

	r = logbook(t, data, "import", "--json", root)
	assert.Equal(t, 1, r.code, "a run that could not archive every file exits 1: %s", r.stderr)
	failed := 0
	for _, f := range parseReport(t, r).Files {
		assert.NotEqual(t, "corrupt", f.Verdict, "a full disk is never a verdict on %s: %+v", f.Path, f.Error)
		if f.Verdict == "failed" {
			failed++
			require.NotNil(t, f.Error)
			assert.Equal(t, "disk-full", f.Error.Kind, f.Error.Message)
		}
	}
	require.Greater(t, failed, 0, "the disk is too small for the corpus")
	s := logbook(t, data, "search", "--json", "error")
	assert.Equal(t, 0, s.code, "search still answers on a full disk: %s", s.stderr)
	after := archived(t, data)
	for id, got := range before {
		assert.True(t, bytes.Equal(got, after[id]), "session %s archived before the disk filled is unchanged", id)
	}
	for id, got := range after {
		assert.True(t, bytes.HasPrefix(want[id], got), "session %s is a prefix of its source", id)
	}

	require.NoError(t, os.Remove(ballast))
	r = logbook(t, data, "import", "--json", root)
	require.Equal(t, 0, r.code, r.stderr)
	got := archived(t, data)
	for id, src := range want {
		assert.True(t, bytes.Equal(src, got[id]), "session %s exports byte for byte", id)
	}
}

// TestReadOnlyDataDirectory reads an archive on a read-only mount: sessions, show,
// export and search work, import says why it cannot, and nothing in the directory
// changes.
func TestReadOnlyDataDirectory(t *testing.T) {
	root, want := corpus(t, 4)
	data := t.TempDir()
	r := logbook(t, data, "import", "--json", root)
	require.Equal(t, 0, r.code, r.stderr)
	wantErrors := searchTotal(t, data, "error")
	ro := archivetest.ReadOnlyView(t, data)
	before := archivetest.TreeState(t, data)

	r = logbook(t, ro, "sessions", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var list []struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	assert.Len(t, list, len(want))
	id := list[0].ID
	r = logbook(t, ro, "show", id)
	assert.Equal(t, 0, r.code, r.stderr)
	r = logbook(t, ro, "export", id, "--format", "jsonl")
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, bytes.Equal(want[id], []byte(r.stdout)), "export from a read-only directory is byte for byte")
	assert.Equal(t, wantErrors, searchTotal(t, ro, "error"), "search answers read-only")

	r = logbook(t, ro, "import", root)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "cannot be written")
	assert.Equal(t, before, archivetest.TreeState(t, data), "nothing in the data directory changed")
}

// peakRSS runs the binary under GNU time and returns its result and true peak RSS in
// bytes. (A Go parent's rusage of its child is no use: the child is started with
// vfork and inherits the parent's high-water mark.)
func peakRSS(t *testing.T, data string, args ...string) (result, int64) {
	t.Helper()
	gnuTime := "/usr/bin/time"
	if !fileExists(gnuTime) {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs GNU time (scripts/setup.sh): %s is missing", gnuTime)
		}
		t.Skip("GNU time is not installed (apt-get install time)")
	}
	out := filepath.Join(t.TempDir(), "rss")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gnuTime, append([]string{"-f", "%M", "-o", out, bin, "--data", data}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DSH_HOME=")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	_ = cmd.Run()
	r := result{stdout: so.String(), stderr: se.String(), code: cmd.ProcessState.ExitCode()}
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	// GNU time puts "Command exited with non-zero status N" before the figure.
	fields := strings.Fields(string(b))
	require.NotEmpty(t, fields, "GNU time printed nothing")
	var kb int64
	_, err = fmt.Sscan(fields[len(fields)-1], &kb)
	require.NoError(t, err, "GNU time printed %q", b)
	return r, kb << 10
}

// letters reads n bytes of lowercase letters: JSON-safe string content.
type letters struct{ n int64 }

func (l *letters) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), l.n)
	for i := range p[:n] {
		p[i] = 'a' + byte(i%26)
	}
	l.n -= n
	return int(n), nil
}

// writeFrom writes the readers' bytes to path, making its folder.
func writeFrom(t *testing.T, path string, rs ...io.Reader) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = io.Copy(f, io.MultiReader(rs...))
	require.NoError(t, err)
}

// TestHostileFilesBoundedMemory imports, in one run beside a good copy of the real
// log, the inputs that used to crash or balloon an import: /dev/zero named as a
// path, a FIFO named like a session, a 24 MiB line in the middle of a session, a
// 40 MiB file without a newline, and a zstd bomb (a few hundred KiB decoding to 1
// GiB). Each gets its own specific error, the good file is archived whole, the run
// ends, and its peak RSS stays under 300 MB.
func TestHostileFilesBoundedMemory(t *testing.T) {
	root := t.TempDir()
	const header = `{"type":"session","version":0,"id":%q,"createdAt":1786901809409,"cwd":"/home/u/p","delegationDepth":0}` + "\n"
	turn := func(seq int, n int) string {
		return fmt.Sprintf(`{"type":"turn/start","seq":%d,"time":1,"data":{"turn":%d}}`+"\n"+
			`{"type":"turn/end","seq":%d,"time":2,"data":{"turn":%d,"reason":{"kind":"completed"}}}`+"\n", seq, n, seq+1, n)
	}
	fifo := filepath.Join(root, "pipe", "session-fifo", "session.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(fifo), 0o755))
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	long := filepath.Join(root, "long", "session-long", "session.jsonl")
	writeFrom(t, long, strings.NewReader(fmt.Sprintf(header, "session-long")+turn(0, 1)+
		`{"type":"turn/start","seq":2,"time":3,"data":{"turn":2}}`+"\n"+
		`{"type":"user/message","seq":3,"time":4,"data":{"content":[{"type":"text","text":"`),
		&letters{n: 24 << 20}, strings.NewReader(`"}]},"surfaceOp":"append"}`+"\n"+turn(4, 3)))
	nonl := filepath.Join(root, "nonl", "session-nonl", "session.jsonl")
	writeFrom(t, nonl, &letters{n: 40 << 20})
	bomb := filepath.Join(root, "bomb", "session-bomb", "session.jsonl.zstd")
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	require.NoError(t, err)
	frames := enc.EncodeAll([]byte(fmt.Sprintf(header, "session-bomb")), nil)
	enc.Close()
	var zb bytes.Buffer
	zw, err := zstd.NewWriter(&zb, zstd.WithEncoderLevel(zstd.SpeedFastest))
	require.NoError(t, err)
	_, err = io.Copy(zw, io.LimitReader(zeroReader{}, 1<<30))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	writeFrom(t, bomb, bytes.NewReader(frames), &zb)
	good, want := corpusReal(t, root)

	data := t.TempDir()
	r, rss := peakRSS(t, data, "import", "--json", root, "/dev/zero")
	t.Logf("hostile import: peak RSS %.1f MB, exit %d", float64(rss)/1e6, r.code)
	assert.Less(t, rss, int64(300<<20), "peak RSS of the import")
	assert.Equal(t, 1, r.code, r.stderr)
	byPath := map[string]string{}
	for _, f := range parseReport(t, r).Files {
		kind := ""
		if f.Error != nil {
			kind = f.Error.Kind
		}
		byPath[f.Path] = f.Verdict + " " + kind
	}
	assert.Equal(t, "failed not-regular-file", byPath["/dev/zero"])
	assert.Equal(t, "failed not-regular-file", byPath[fifo])
	assert.Equal(t, "corrupt line-too-long", byPath[long])
	assert.Equal(t, "corrupt line-too-long", byPath[nonl])
	assert.Equal(t, "corrupt frame-too-large", byPath[bomb])
	if good != "" {
		assert.Equal(t, "ok ", byPath[good])
		got := archived(t, data)
		for id, b := range want {
			assert.True(t, bytes.Equal(b, got[id]), "the good session %s is archived whole", id)
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// corpusReal copies the real log under root, if the shared corpus is there, and
// returns its path and logical bytes by session id.
func corpusReal(t *testing.T, root string) (string, map[string][]byte) {
	t.Helper()
	real := filepath.Join("..", "..", "..", "shared", "corpus", "dsh", "wzx123188-deepseekharness", "session.jsonl.zstd")
	if !fileExists(real) {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI has the shared corpus beside the checkout: %s is missing", real)
		}
		return "", nil
	}
	dst := filepath.Join(root, "real", "session-real", "session.jsonl.zstd")
	b, err := os.ReadFile(real)
	require.NoError(t, err)
	writeFrom(t, dst, bytes.NewReader(b))
	l := logical(t, dst)
	var h struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(l[:bytes.IndexByte(l, '\n')], &h))
	return dst, map[string][]byte{h.ID: l}
}

// TestWindowHandsOverToTheDesktopBinary checks the two-binary build: bin/logbook (no
// GUI libraries) hands `logbook` alone and `logbook window` over to the window binary
// beside it, with the data directory and options.
func TestWindowHandsOverToTheDesktopBinary(t *testing.T) {
	dir := t.TempDir()
	cli := filepath.Join(dir, "logbook")
	b, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cli, b, 0o755))
	got := filepath.Join(dir, "args")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "logbook-desktop"),
		[]byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > '"+got+"'\n"), 0o755))
	data := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--data\n" + data + "\nwindow\n"},
		{[]string{"window", "--no-import"}, "--data\n" + data + "\nwindow\n--no-import\n"},
	} {
		_ = os.Remove(got)
		out, err := exec.Command(cli, append([]string{"--data", data}, tc.args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		b, err := os.ReadFile(got)
		require.NoError(t, err, "the window binary ran")
		assert.Equal(t, tc.want, string(b))
	}
	// Without the window binary beside it, it says what to do instead.
	require.NoError(t, os.Remove(filepath.Join(dir, "logbook-desktop")))
	out, err := exec.Command(cli, "--data", data, "window").CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "no desktop window")
}

// BenchmarkCLISearch times `logbook search --json` end to end as a person runs it:
// a new process of bin/logbook (the binary `make run` builds for the CLI), over an
// archive holding the real log. Target: under 150 ms. (`go test -run '^$' -bench
// CLISearch ./e2e/faults/`)
func BenchmarkCLISearch(b *testing.B) {
	root := b.TempDir()
	real := filepath.Join("..", "..", "..", "shared", "corpus", "dsh", "wzx123188-deepseekharness", "session.jsonl.zstd")
	if !fileExists(real) {
		b.Skip("the shared corpus is not beside the checkout")
	}
	raw, err := os.ReadFile(real)
	if err != nil {
		b.Fatal(err)
	}
	dst := filepath.Join(root, "real", "session-real", "session.jsonl.zstd")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	data := b.TempDir()
	if out, err := exec.Command(bin, "--data", data, "import", root).CombinedOutput(); err != nil {
		b.Fatalf("import: %v %s", err, out)
	}
	for _, q := range []string{"写入权限", "the", "approval policy"} {
		b.Run(q, func(b *testing.B) {
			for range b.N {
				if out, err := exec.Command(bin, "--data", data, "search", "--json", q).CombinedOutput(); err != nil {
					b.Fatalf("search: %v %s", err, out)
				}
			}
		})
	}
}
