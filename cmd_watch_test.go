package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

// startWatch runs `logbook watch` in the background on data with args and
// returns its output and a channel with its exit status; cancel stops it as
// Ctrl-C does.
func startWatch(t *testing.T, ctx context.Context, data string, args ...string) (*lockedBuffer, *lockedBuffer, <-chan int) {
	t.Helper()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"--data", data, "watch"}, args...), &out, &errOut) }()
	return &out, &errOut, done
}

// watchLines decodes the JSON lines printed so far.
func watchLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "line %q", l)
		got = append(got, m)
	}
	return got
}

// lastOf is the last line about path, or nil.
func lastOf(lines []map[string]any, path string) map[string]any {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i]["path"] == path {
			return lines[i]
		}
	}
	return nil
}

// TestWatch follows two roots (--root repeated; a third is not there) while a
// generated log is appended to in pieces that cut its lines: every JSON line is
// a file report with exactly import --json's fields, nothing is taken as damage,
// the session is searchable while watch still runs, and once stopped (as Ctrl-C
// does: exit 0) the archive holds what a fresh import of the finished file holds.
func TestWatch(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DSH_HOME", "")
	root, second, missing := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "missing")
	data := t.TempDir()
	log := dshgen.Generate(dshgen.Options{Seed: 41, Turns: 6, Cwd: "/home/u/watched"})
	rel, err := log.RelPath(false)
	require.NoError(t, err)
	path := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	body := log.JSONL()
	head := len(log.Header()) + 1
	require.NoError(t, os.WriteFile(path, body[:head], 0o644))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errOut, done := startWatch(t, ctx, data, "--json", "--root", root, "--root", second, "--root", missing)
	require.Eventually(t, func() bool { return lastOf(watchLines(t, out.String()), path) != nil }, 10*time.Second, 10*time.Millisecond,
		"the existing file is imported first; stderr: %s", errOut.String())
	assert.Contains(t, errOut.String(), missing+": missing", "a root that is not there is reported")

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	for off, step := head, 0; off < len(body); step++ {
		n := min(len(body)-off, 700+step*97%900) // cuts lines anywhere
		_, err := f.Write(body[off : off+n])
		require.NoError(t, err)
		off += n
		time.Sleep(40 * time.Millisecond)
	}
	require.Eventually(t, func() bool {
		l := lastOf(watchLines(t, out.String()), path)
		return l != nil && l["verdict"] == "ok" && l["logical_events"] == float64(log.Events())
	}, 10*time.Second, 20*time.Millisecond, "stdout: %s\nstderr: %s", out.String(), errOut.String())

	// The second root is followed too, folders made after the start included.
	other := dshgen.Generate(dshgen.Options{Seed: 42, Turns: 2, Cwd: "/home/u/second"})
	otherPath, err := other.WriteFile(second, false)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		l := lastOf(watchLines(t, out.String()), otherPath)
		return l != nil && l["verdict"] == "ok"
	}, 10*time.Second, 20*time.Millisecond, "stderr: %s", errOut.String())

	lines := watchLines(t, out.String())
	want := []string{"path", "session_id", "agent", "format", "verdict", "error", "warnings", "records", "logical_events", "last_seq", "changed", "action", "bytes"}
	for _, l := range lines {
		keys := make([]string, 0, len(l))
		for k := range l {
			keys = append(keys, k)
		}
		assert.ElementsMatch(t, want, keys, "exactly the fields of import --json's files")
		assert.Contains(t, []any{"ok", "recovered"}, l["verdict"], "never damage: %v", l["error"])
	}
	t.Logf("%d bytes appended; %d lines printed", len(body)-head, len(lines))

	// Searchable while watch runs (the watch lets go of the index between rounds).
	var sout, serr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--data", data, "sessions", "--json"}, &sout, &serr), serr.String())
	assert.Contains(t, sout.String(), log.ID())

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, "stderr: %s", errOut.String())
	case <-time.After(20 * time.Second):
		t.Fatal("watch did not stop")
	}

	// The same archive as a fresh import of the finished files.
	fresh := t.TempDir()
	mustJSON[map[string]any](t, fresh, "import", "--json", root, second)
	for _, id := range []string{log.ID(), other.ID()} {
		assert.Equal(t, cliData(t, fresh, "export", id, "--format", "jsonl").stdout,
			cliData(t, data, "export", id, "--format", "jsonl").stdout, "exported log of %s", id)
		assert.Equal(t, cliData(t, fresh, "show", id, "--json").stdout, cliData(t, data, "show", id, "--json").stdout, "session %s", id)
	}
	hits := func(data string) any {
		res := mustJSON[map[string]any](t, data, "search", "--json", "the")
		return res["hits"]
	}
	assert.True(t, assert.ObjectsAreEqual(hits(fresh), hits(data)), "the index followed the imports")
}

// TestWatchHuman prints one report line per changed file, as import does, and
// says which root is missing.
func TestWatchHuman(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DSH_HOME", "")
	root, data := t.TempDir(), t.TempDir()
	log, path := genLog(t, root, 43, "/home/u/human", false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errOut, done := startWatch(t, ctx, data, "--root", root, "--root", filepath.Join(root, "nope"))
	require.Eventually(t, func() bool { return strings.Contains(out.String(), path) }, 10*time.Second, 10*time.Millisecond)

	// A log whose last line is still being written is said so, not reported damaged.
	live := dshgen.Generate(dshgen.Options{Seed: 44, Turns: 2, Cwd: "/home/u/live"})
	rel, err := live.RelPath(false)
	require.NoError(t, err)
	livePath := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(livePath), 0o755))
	body := live.JSONL()
	require.NoError(t, os.WriteFile(livePath, body[:len(body)-20], 0o644))
	require.Eventually(t, func() bool { return strings.Contains(out.String(), livePath) }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "being written") }, 5*time.Second, 10*time.Millisecond)
	assert.NotContains(t, out.String(), "torn-tail", "a line being written is no problem")
	cancel()
	require.Equal(t, 0, <-done, errOut.String())
	assert.Regexp(t, `(?m)^ok +new +`+regexpQuote(path)+`  `+log.ID()+`  \(\d+ records, \d+ events\)$`, out.String())
	assert.Contains(t, errOut.String(), filepath.Join(root, "nope")+": missing (it does not exist yet); followed once it appears")
	assert.Contains(t, errOut.String(), root+": watching")
}

// TestWatchUsage: no roots at all, and stray arguments.
func TestWatchUsage(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DSH_HOME", "")
	r := cliData(t, t.TempDir(), "watch")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "logbook watch --root DIR")
	r = cliData(t, t.TempDir(), "watch", "somewhere")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--root")
	assert.True(t, slices.ContainsFunc(strings.Split(cli(t, "help").stdout, "\n"), func(l string) bool {
		return strings.HasPrefix(strings.TrimSpace(l), "watch [--root DIR]")
	}))
}

func regexpQuote(s string) string {
	return strings.NewReplacer(".", `\.`, "+", `\+`, "(", `\(`, ")", `\)`).Replace(s)
}

// TestServeFollows: serve follows the default roots live (a session written
// while it runs is in the archive within seconds, and FollowStatus says the
// root is watched); --no-follow turns that off and says so. A watch started
// beside it says who runs on the archive, imports, and leaves the index to it.
func TestServeFollows(t *testing.T) {
	dshHome := t.TempDir()
	sessions := filepath.Join(dshHome, "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DSH_HOME", dshHome)
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--data", data, "serve", "--addr", "127.0.0.1:0"}, &out, &errOut)
	}()
	link := waitLink(t, &out, &errOut)
	base := link[:strings.Index(link, "/?token=")]
	c := browser(t)
	resp, err := c.Get(link)
	require.NoError(t, err)
	resp.Body.Close()

	var st struct {
		On    bool `json:"on"`
		Roots []struct {
			Root, Mode string
		} `json:"roots"`
	}
	require.Eventually(t, func() bool {
		code, body := postJSON(t, c, base+"/api/FollowStatus", "[]")
		return code == 200 && json.Unmarshal([]byte(body), &st) == nil && st.On && len(st.Roots) == 1 && st.Roots[0].Mode == "watching"
	}, 20*time.Second, 20*time.Millisecond)
	assert.Equal(t, sessions, st.Roots[0].Root)

	l, _ := genLog(t, sessions, 61, "/home/u/served", false)
	began := time.Now()
	require.Eventually(t, func() bool {
		code, body := postJSON(t, c, base+"/api/Sessions", "[]")
		return code == 200 && strings.Contains(body, l.ID())
	}, 10*time.Second, 10*time.Millisecond, "a new session shows while serve runs")
	t.Logf("new session listed by serve %v after it was written", time.Since(began).Round(time.Millisecond))

	// watch beside it: it says who runs here, imports, and the running serve indexes.
	wctx, wcancel := context.WithCancel(context.Background())
	_, werr, wdone := startWatch(t, wctx, data, "--json")
	require.Eventually(t, func() bool { return strings.Contains(werr.String(), "Watching ") }, 10*time.Second, 10*time.Millisecond)
	assert.Contains(t, werr.String(), "Logbook serve (pid ")
	assert.Contains(t, werr.String(), "follows its session roots itself")
	wcancel()
	assert.Equal(t, 0, <-wdone, werr.String())

	cancel()
	require.Equal(t, 0, <-done, errOut.String())

	// --no-follow: imported on start, not followed.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var out2, err2 lockedBuffer
	done2 := make(chan int, 1)
	go func() {
		done2 <- run(ctx2, []string{"--data", data, "serve", "--addr", "127.0.0.1:0", "--no-follow"}, &out2, &err2)
	}()
	link2 := waitLink(t, &out2, &err2)
	c2 := browser(t)
	resp, err = c2.Get(link2)
	require.NoError(t, err)
	resp.Body.Close()
	code, body := postJSON(t, c2, link2[:strings.Index(link2, "/?token=")]+"/api/FollowStatus", "[]")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"on":false`)
	assert.Contains(t, body, "--no-follow")
	cancel2()
	require.Equal(t, 0, <-done2, err2.String())
}

// waitLink waits for serve to print its link.
func waitLink(t *testing.T, out, errOut *lockedBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`Logbook UI: (http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43})\n`)
	var link string
	require.Eventually(t, func() bool {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			link = m[1]
		}
		return link != ""
	}, 30*time.Second, 10*time.Millisecond, "stdout: %s\nstderr: %s", out, errOut)
	return link
}

// TestBinaryWatchSIGTERM: the real binary stops on SIGTERM with status 0, and
// its standard output holds only JSON lines.
func TestBinaryWatchSIGTERM(t *testing.T) {
	bin := buildBinary(t)

	root := t.TempDir()
	l, _ := genLog(t, root, 62, "/home/u/bin", true)
	cmd := exec.Command(bin, "--data", t.TempDir(), "watch", "--json", "--root", root)
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return strings.Contains(stdout.String(), l.ID()) }, 20*time.Second, 10*time.Millisecond, "stderr: %s", stderr.String())
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "stderr: %s", stderr.String())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
	lines := watchLines(t, stdout.String())
	require.Len(t, lines, 1)
	assert.Equal(t, "new", lines[0]["action"])
	assert.Equal(t, "ok", lines[0]["verdict"])
}
