package follow_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/sync/follow"
)

func TestFollow(t *testing.T) {
	t.Run("ImportsWhatIsThereThenEachAppend", func(t *testing.T) {
		root := t.TempDir()
		path := sessionFile(t, root, "proj", "s1", "header\n")
		other := filepath.Join(root, "proj", "s1", "notes.txt")
		require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
		var r recorder
		f := start(t, r.options(root))
		r.waitImported(t, path, 2*time.Second)
		st := waitMode(t, f, root, follow.Watching)
		assert.Equal(t, 3, st.Folders, "root, project and session folders")
		assert.Empty(t, st.Reason)

		for i := range 5 {
			appendTo(t, path, fmt.Sprintf("line %d\n", i))
			began := time.Now()
			got := r.waitImported(t, path, time.Second)
			assert.Equal(t, follow.Imported, got.State)
			t.Logf("append %d imported after %v", i, time.Since(began))
		}
		appendTo(t, other, "not a session log")
		time.Sleep(300 * time.Millisecond)
		assert.Zero(t, r.imports(other), "only session logs are imported")
	})

	t.Run("BurstOfAppendsIsCoalesced", func(t *testing.T) {
		path, r, _ := followOne(t)
		before := r.imports(path)
		for i := range 100 {
			appendTo(t, path, fmt.Sprintf("line %d\n", i))
		}
		r.waitImported(t, path, time.Second)
		time.Sleep(300 * time.Millisecond) // any import still to come
		n := r.imports(path) - before
		t.Logf("100 appends, %d imports", n)
		assert.LessOrEqual(t, n, 3)
	})

	t.Run("ContinuousWriterShowsWithinASecond", func(t *testing.T) {
		// Appends every 20 ms never leave the file quiet for the debounce:
		// MaxDelay still imports it at least every half second or so.
		path, r, _ := followOne(t)
		before := r.imports(path)
		end := time.Now().Add(1500 * time.Millisecond)
		for time.Now().Before(end) {
			appendTo(t, path, "line\n")
			time.Sleep(20 * time.Millisecond)
		}
		n := r.imports(path) - before
		t.Logf("1.5 s of appends every 20 ms: %d imports while writing", n)
		assert.GreaterOrEqual(t, n, 2, "the writer is imported while it writes")
		assert.LessOrEqual(t, n, 8, "and not on every append")
		r.waitImported(t, path, time.Second)
	})

	t.Run("FoldersCreatedLater", func(t *testing.T) {
		root := t.TempDir()
		var r recorder
		f := start(t, r.options(root))
		waitMode(t, f, root, follow.Watching)
		// mkdir -p and an immediate write race the watch on the new folders:
		// the walk that adds the watches finds the files written before them.
		var paths []string
		for i := range 20 {
			p := filepath.Join(root, fmt.Sprintf("proj%d", i%3), fmt.Sprintf("deep/s%d", i), "session.jsonl")
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte("header\n"), 0o644))
			paths = append(paths, p)
		}
		for _, p := range paths {
			r.waitImported(t, p, 2*time.Second)
		}
		for _, p := range paths {
			appendTo(t, p, "more\n")
		}
		for _, p := range paths {
			r.waitImported(t, p, 2*time.Second)
		}
		assert.Equal(t, 1+3+3+20, waitMode(t, f, root, follow.Watching).Folders)
	})

	t.Run("MissingRootIsFollowedOnceItAppears", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "dsh", "sessions")
		var r recorder
		f := start(t, r.options(root))
		st := waitMode(t, f, root, follow.Missing)
		assert.Contains(t, st.Reason, "does not exist")

		path := sessionFile(t, root, "proj", "s1", "header\n")
		r.waitImported(t, path, 2*time.Second)
		waitMode(t, f, root, follow.Watching)
		appendTo(t, path, "line\n")
		r.waitImported(t, path, time.Second)

		require.NoError(t, os.RemoveAll(filepath.Dir(root)))
		st = waitMode(t, f, root, follow.Missing)
		assert.Contains(t, st.Reason, "removed")
		path = sessionFile(t, root, "proj", "s2", "header\n")
		r.waitImported(t, path, 2*time.Second)
		waitMode(t, f, root, follow.Watching)
	})

	t.Run("MissingRootsCreationIsWatched", func(t *testing.T) {
		// No rescan comes within the test: only the watch of the nearest folder
		// above the root can tell it was made.
		base := t.TempDir()
		root := filepath.Join(base, "home", ".openhands", "conversations")
		var r recorder
		o := r.options(root)
		o.Rescan = time.Hour
		f := start(t, o)
		waitMode(t, f, root, follow.Missing)

		require.NoError(t, os.MkdirAll(filepath.Join(base, "home"), 0o755))
		time.Sleep(50 * time.Millisecond) // the watch moves one folder down
		path := sessionFile(t, root, "proj", "s1", "header\n")
		r.waitImported(t, path, 2*time.Second)
		waitMode(t, f, root, follow.Watching)

		// Removed with the folders above it, then made again: watched again.
		require.NoError(t, os.RemoveAll(filepath.Join(base, "home")))
		waitMode(t, f, root, follow.Missing)
		path = sessionFile(t, root, "proj", "s2", "header\n")
		r.waitImported(t, path, 2*time.Second)
		waitMode(t, f, root, follow.Watching)
	})

	t.Run("WatchLimitFallsBackToPolling", func(t *testing.T) {
		root := t.TempDir()
		var paths []string
		for i := range 5 {
			paths = append(paths, sessionFile(t, root, "proj", fmt.Sprintf("s%d", i), "header\n"))
		}
		var r recorder
		o := r.options(root)
		watched := 0
		o.BeforeWatch = func(string) error { // runs on Run's goroutine only
			if watched++; watched > 3 {
				return syscall.ENOSPC
			}
			return nil
		}
		f := start(t, o)
		st := waitMode(t, f, root, follow.Polling)
		assert.Contains(t, st.Reason, "limit on watched folders")
		if runtime.GOOS == "linux" {
			assert.Contains(t, st.Reason, "max_user_watches =")
		}
		assert.Zero(t, st.Folders, "the watches already added are given back")
		for _, p := range paths {
			r.waitImported(t, p, 2*time.Second)
		}
		appendTo(t, paths[2], "line\n")
		r.waitImported(t, paths[2], 2*time.Second)
		p := sessionFile(t, root, "proj2", "s9", "header\n")
		r.waitImported(t, p, 2*time.Second)
		assert.Equal(t, follow.Polling, waitMode(t, f, root, follow.Polling).Mode)
	})

	t.Run("NetworkFileSystemIsPolled", func(t *testing.T) {
		root := t.TempDir()
		path := sessionFile(t, root, "proj", "s1", "header\n")
		var r recorder
		o := r.options(root)
		o.NetworkFS = func(string) (string, bool) { return "nfs", true }
		f := start(t, o)
		st := waitMode(t, f, root, follow.Polling)
		assert.Contains(t, st.Reason, "network file system (nfs)")
		r.waitImported(t, path, 2*time.Second)
		appendTo(t, path, "line\n")
		r.waitImported(t, path, 2*time.Second)
	})

	t.Run("LostEventsAreMadeUpByARescan", func(t *testing.T) {
		// While the follower is held up, more events come than the kernel
		// queues (fs.inotify.max_queued_events): the ones after are lost, the
		// watcher says so, and a walk of the root finds what they were about.
		queued := readNumber(t, "/proc/sys/fs/inotify/max_queued_events")
		root := t.TempDir()
		path := sessionFile(t, root, "proj", "s1", "header\n")
		var r recorder
		o := r.options(root)
		var logged lockedBuffer
		o.Logger = slog.New(slog.NewTextHandler(&logged, nil))
		held, release := make(chan struct{}), make(chan struct{})
		record := o.OnImport
		var first sync.Once
		o.OnImport = func(b follow.Batch[rep]) {
			record(b)
			first.Do(func() {
				close(held)
				<-release
			})
		}
		start(t, o)
		<-held
		// Files created in a watched folder, past the kernel's queue and the
		// ~2,000 events the watcher's own buffer holds.
		flood := filepath.Join(root, "proj")
		for i := range queued + 6000 {
			require.NoError(t, os.WriteFile(filepath.Join(flood, fmt.Sprint(i)), nil, 0o644))
		}
		appendTo(t, path, "line\n")
		late := sessionFile(t, root, "proj", "s2", "header\n")
		close(release)
		r.waitImported(t, path, 5*time.Second)
		r.waitImported(t, late, 5*time.Second)
		appendTo(t, late, "line\n")
		r.waitImported(t, late, 2*time.Second)
		assert.Contains(t, logged.String(), "file events were lost", "the queue overflowed")
	})

	t.Run("FailedImportIsRetriedWithoutSpinning", func(t *testing.T) {
		root := t.TempDir()
		path := sessionFile(t, root, "proj", "s1", "header\n")
		r := recorder{fail: 2}
		o := r.options(root)
		o.Rescan = time.Minute // the pause's cap
		start(t, o)
		began := time.Now()
		r.waitImported(t, path, 5*time.Second)
		took := time.Since(began)
		assert.Equal(t, 3, r.imports(path), "two failures, then the import")
		assert.GreaterOrEqual(t, took, 3*time.Second, "pauses of 1 s, then 2 s")
	})
}

func TestTornTail(t *testing.T) {
	t.Run("NotReportedWhileTheWriterWrites", func(t *testing.T) {
		path, r, f := followOne(t, func(o *follow.Options[rep]) { o.TornQuiet = time.Second })
		// Lines are written in two pieces, each piece imported before the next
		// is written: every other import sees a torn tail, but the writer is
		// still there.
		for i := range 4 {
			appendTo(t, path, fmt.Sprintf(`{"line":%d,`, i))
			got := r.waitImported(t, path, time.Second)
			assert.Equal(t, follow.Writing, got.State)
			assert.Equal(t, []string{path}, f.Writing(), "listed as being written")
			appendTo(t, path, `"end":true}`+"\n")
			got = r.waitImported(t, path, time.Second)
			assert.Equal(t, follow.Imported, got.State)
			assert.Empty(t, f.Writing())
		}
		time.Sleep(1200 * time.Millisecond) // past TornQuiet
		assert.NotContains(t, r.states(path), follow.Torn)
	})

	t.Run("ReportedOnceAfterTheWriterIsGone", func(t *testing.T) {
		path, r, f := followOne(t)
		for range 5 {
			appendTo(t, path, "line\n")
			time.Sleep(100 * time.Millisecond)
		}
		appendTo(t, path, `{"half":`)
		wrote := time.Now()
		got := r.waitImported(t, path, time.Second)
		assert.Equal(t, follow.Writing, got.State)
		assert.Equal(t, []string{path}, f.Writing())
		require.Eventually(t, func() bool {
			f, _ := r.last(path)
			return f.State == follow.Torn
		}, 3*time.Second, 5*time.Millisecond)
		assert.GreaterOrEqual(t, time.Since(wrote), 400*time.Millisecond, "not before TornQuiet")
		assert.Empty(t, f.Writing())
		time.Sleep(time.Second)
		n := 0
		for _, s := range r.states(path) {
			if s == follow.Torn {
				n++
			}
		}
		assert.Equal(t, 1, n, "reported once: %v", r.states(path))

		// Completed later after all (the writer came back): imported as usual.
		appendTo(t, path, "1}\n")
		got = r.waitImported(t, path, time.Second)
		assert.Equal(t, follow.Imported, got.State)
	})
}

func TestTornTailCheckThatFailsIsRetried(t *testing.T) {
	path, r, f := followOne(t)
	appendTo(t, path, `{"half":`)
	got := r.waitImported(t, path, time.Second)
	require.Equal(t, follow.Writing, got.State)
	r.mu.Lock()
	r.fail = 1 // the check after TornQuiet
	r.mu.Unlock()
	require.Eventually(t, func() bool {
		f, _ := r.last(path)
		return f.State == follow.Torn
	}, 3*time.Second, 5*time.Millisecond)
	assert.Empty(t, f.Writing())
	assert.Equal(t, 4, r.imports(path), "the header, the torn half, the failed check and its retry")
}

func TestIsDshLog(t *testing.T) {
	for name, want := range map[string]bool{
		"/a/b/session.jsonl":      true,
		"/a/b/session.jsonl.zstd": true,
		"/a/b/session.v1.jsonl":   false,
		"/a/b/session.jsonl.tmp":  false,
		"/a/b/notes.txt":          false,
	} {
		assert.Equal(t, want, follow.IsDshLog(name), name)
	}
}
