package follow_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook/logbook/internal/syncbuf"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/sync/follow"
)

// rep is the fake import's report: what the file held when it was read.
type rep struct {
	Path string
	Size int64
	Torn bool // the file does not end in a newline
}

// recorder is a fake import that reads each file's size and tail, and records
// every run and every status.
type recorder struct {
	mu       sync.Mutex
	runs     [][]string
	files    []follow.File[rep]
	statuses []follow.Status
	fail     int // runs still to fail
}

func (r *recorder) importFiles(_ context.Context, paths []string) ([]rep, error) {
	r.mu.Lock()
	r.runs = append(r.runs, append([]string(nil), paths...))
	if r.fail > 0 {
		r.fail--
		r.mu.Unlock()
		return nil, os.ErrDeadlineExceeded
	}
	r.mu.Unlock()
	out := make([]rep, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		out = append(out, rep{Path: p, Size: int64(len(b)), Torn: len(b) > 0 && b[len(b)-1] != '\n'})
	}
	return out, nil
}

// options are the fake import's options with test-sized waits.
func (r *recorder) options(roots ...string) follow.Options[rep] {
	return follow.Options[rep]{
		Roots:  roots,
		Import: r.importFiles,
		Path:   func(x rep) string { return x.Path },
		Torn:   func(x rep) bool { return x.Torn },
		OnImport: func(b follow.Batch[rep]) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.files = append(r.files, b.Files...)
		},
		OnStatus: func(s follow.Status) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.statuses = append(r.statuses, s)
		},
		Rescan:    100 * time.Millisecond,
		TornQuiet: 400 * time.Millisecond,
	}
}

// last is the latest report of path, if any.
func (r *recorder) last(path string) (follow.File[rep], bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.files) - 1; i >= 0; i-- {
		if r.files[i].Report.Path == path {
			return r.files[i], true
		}
	}
	return follow.File[rep]{}, false
}

// imports counts the runs that imported path.
func (r *recorder) imports(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, run := range r.runs {
		for _, p := range run {
			if p == path {
				n++
			}
		}
	}
	return n
}

// states lists the states reported for path, in order.
func (r *recorder) states(path string) []follow.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []follow.State
	for _, f := range r.files {
		if f.Report.Path == path {
			out = append(out, f.State)
		}
	}
	return out
}

// waitImported waits until the latest report of path has the file's current size.
func (r *recorder) waitImported(t *testing.T, path string, within time.Duration) follow.File[rep] {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	var got follow.File[rep]
	require.Eventually(t, func() bool {
		f, ok := r.last(path)
		got = f
		return ok && f.Report.Size == fi.Size()
	}, within, 5*time.Millisecond, "%s: want %d bytes imported, last report %+v", path, fi.Size(), got)
	return got
}

// start runs a follower until the test ends.
func start[R any](t testing.TB, o follow.Options[R]) *follow.Follower[R] {
	t.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	f := follow.New(o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
	return f
}

// quietLogger drops what a follower logs (a benchmark's output is its figures).
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// followOne follows a fresh root holding one session log, with options tuned
// by tune, and waits until the log is imported.
func followOne(t *testing.T, tune ...func(*follow.Options[rep])) (string, *recorder, *follow.Follower[rep]) {
	t.Helper()
	root := t.TempDir()
	path := sessionFile(t, root, "proj", "s1", "header\n")
	r := new(recorder)
	o := r.options(root)
	for _, fn := range tune {
		fn(&o)
	}
	f := start(t, o)
	r.waitImported(t, path, 2*time.Second)
	return path, r, f
}

// testWriter sends a logger's lines to the test's log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// waitMode waits until root is in mode m and returns its status.
func waitMode[R any](t *testing.T, f *follow.Follower[R], root string, m follow.Mode) follow.Status {
	t.Helper()
	var got follow.Status
	require.Eventually(t, func() bool {
		for _, s := range f.Statuses() {
			if s.Root == root {
				got = s
				return s.Mode == m
			}
		}
		return false
	}, 5*time.Second, 5*time.Millisecond, "root %s: want %s, have %+v", root, m, got)
	return got
}

// sessionFile makes root/project/session/session.jsonl holding body.
func sessionFile(t *testing.T, root, project, session, body string) string {
	t.Helper()
	p := filepath.Join(root, project, session, "session.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// appendTo appends s to a file.
func appendTo(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// readNumber reads a number from a file such as a /proc/sys setting, skipping
// the test when it cannot.
func readNumber(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s: %v", path, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	return n
}

// lockedBuffer is a buffer a logger may write to while a test reads it.
type lockedBuffer = syncbuf.Buffer
