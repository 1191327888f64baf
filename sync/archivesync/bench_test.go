package archivesync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/internal/cputime"
	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/archivesync"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/fsremote"
	"github.com/logbook/logbook/sync/repo"
	"github.com/logbook/logbook/sync/s3remote/s3fake"
)

// benchMB is the archive size of the sync benchmarks: LOGBOOK_SYNC_BENCH_MB
// (1024 for the 1 GB figure), 64 by default so that -bench . stays short.
func benchMB(b *testing.B) int {
	if s := os.Getenv("LOGBOOK_SYNC_BENCH_MB"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(b, err)
		return n
	}
	return 64
}

// benchArchive imports about mb MB of generated sessions (8 MB each) into a
// new archive, the last one cut 1 MB short; grow writes that last MB to its
// file and returns how many bytes it appended.
func benchArchive(b *testing.B, mb int) (store *archive.Store, root string, grow func() int) {
	b.Helper()
	store = archivetest.MustOpen(b)
	root = b.TempDir()
	var last *dshgen.Log
	var lastPath string
	for i := 0; i*8 < mb; i++ {
		l := dshgen.Generate(dshgen.Options{Seed: uint64(1000 + i), Cwd: fmt.Sprintf("/bench/p%d", i%7), TargetBytes: 8 << 20, NoPack: true})
		p, err := l.WriteFile(root, false)
		require.NoError(b, err)
		last, lastPath = l, p
	}
	lines := last.Lines()
	cut, size := len(lines), last.Size()
	for cut > 1 && last.Size()-size < 1_000_000 {
		cut--
		size -= int64(len(lines[cut]) + 1)
	}
	write := func(n int) {
		var buf []byte
		for _, l := range lines[:n] {
			buf = append(append(buf, l...), '\n')
		}
		require.NoError(b, os.WriteFile(lastPath, buf, 0o644))
	}
	write(cut)
	rep, err := store.Import(context.Background(), []string{root}, archive.ImportOptions{})
	require.NoError(b, err)
	require.Zero(b, rep.Summary.Failed)
	return store, root, func() int { write(len(lines)); return int(last.Size() - size) }
}

// benchRemote is one remote the sync benchmark runs against.
type benchRemote struct {
	name string
	open func(b *testing.B) arcsync.Remote
	// pid is the remote's server process, whose CPU time is reported too
	// (0: in this process, or none).
	pid int
}

// benchRemotes are the folder and S3: gofakes3 in this process, or the real
// S3 server LOGBOOK_SYNC_BENCH_S3 names (an s3:// remote spec, e.g. a
// SeaweedFS `weed server -s3` on loopback; LOGBOOK_SYNC_BENCH_S3_PID, its
// process id, adds its CPU seconds to the figures).
func benchRemotes(b *testing.B) []benchRemote {
	rs := []benchRemote{{name: "folder", open: func(b *testing.B) arcsync.Remote { return fsremote.New(b.TempDir()) }}}
	spec := os.Getenv("LOGBOOK_SYNC_BENCH_S3")
	if spec == "" {
		return append(rs, benchRemote{name: "s3", open: func(b *testing.B) arcsync.Remote { return s3fake.Start(b, "bench", nil) }})
	}
	pid, _ := strconv.Atoi(os.Getenv("LOGBOOK_SYNC_BENCH_S3_PID"))
	return append(rs, benchRemote{name: "s3-server", pid: pid, open: func(b *testing.B) arcsync.Remote {
		// A fresh prefix each run: the first push finds nothing stored.
		u := strings.Replace(spec, "?", fmt.Sprintf("/run%d?", time.Now().UnixNano()), 1)
		r, err := archivesync.OpenRemote(u, archivesync.EnsureRemote(context.Background(), u))
		require.NoError(b, err)
		return r
	}})
}

// phase measures one step of the benchmark: wall time, and CPU seconds of
// this process and of the remote's server process.
type phase struct {
	t0        time.Time
	cpu0, sv0 time.Duration
	pid       int
}

func startPhase(pid int) phase {
	// Linux: "5" resets the peak RSS (VmHWM), so each phase reports its own.
	runtime.GC()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return phase{t0: time.Now(), cpu0: cputime.Process(), sv0: serverCPU(pid), pid: pid}
}

// peakRSS is this process's peak resident memory since the phase began
// (Linux /proc; "?" elsewhere).
func peakRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func (p phase) String() string {
	s := fmt.Sprintf("%.1f s wall, %.1f CPU-s, peak RSS %s", time.Since(p.t0).Seconds(), (cputime.Process() - p.cpu0).Seconds(), peakRSS())
	if p.pid != 0 {
		s += fmt.Sprintf(" + %.1f CPU-s in the S3 server", (serverCPU(p.pid) - p.sv0).Seconds())
	}
	return s
}

// serverCPU is the user+system CPU time of process pid so far (Linux
// /proc; 0 elsewhere or when pid is 0).
func serverCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command's closing parenthesis; utime and stime are
	// the 14th and 15th fields, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// BenchmarkSync measures, on the folder and on S3: the first sync of an
// archive (push; MB/s of session bytes), an incremental push after one
// session grew by 1 MB (bytes moved, time), and pull-and-import of the
// whole archive on a second machine (MB/s of session bytes). Every remote
// syncs the same archive, imported once.
//
//	LOGBOOK_SYNC_BENCH_MB=1024 go test -run '^$' -bench BenchmarkSync -benchtime 1x ./sync/archivesync
func BenchmarkSync(b *testing.B) {
	mb := benchMB(b)
	ctx := context.Background()
	for range b.N {
		t0 := startPhase(0)
		store, root, grow := benchArchive(b, mb)
		var total int64
		revs, err := store.Revisions(ctx)
		require.NoError(b, err)
		for id := range revs {
			cw := 0
			require.NoError(b, store.ExportJSONL(ctx, id, &countW{n: &cw}))
			total += int64(cw)
		}
		b.Logf("%d MB archive of %d sessions generated and imported: %v", total>>20, len(revs), t0)
		key, err := crypt.Generate()
		require.NoError(b, err)
		type run struct {
			benchRemote
			meter *archivesync.Meter
			a     *archivesync.Syncer
		}
		var runs []run
		for _, rm := range benchRemotes(b) {
			meter := &archivesync.Meter{Remote: rm.open(b)}
			runs = append(runs, run{rm, meter, archivesync.New(store, repo.New(meter, key), archivesync.Paths{Dir: b.TempDir()}, "a")})
		}
		for _, r := range runs {
			t0 := startPhase(r.pid)
			_, err = r.a.Push(ctx)
			require.NoError(b, err)
			wall := time.Since(t0.t0)
			b.ReportMetric(float64(total)/1e6/wall.Seconds(), r.name+"-first-push-MB/s")
			b.Logf("%s: first push of %d MB: %v, %.1f MB/s; %d bytes up (stored/plain %.3f)",
				r.name, total>>20, t0, float64(total)/1e6/wall.Seconds(), r.meter.Up.Load(), float64(r.meter.Up.Load())/float64(total))
		}
		// Grow one session by about 1 MB and push again.
		appended := grow()
		_, err = store.Import(ctx, []string{root}, archive.ImportOptions{})
		require.NoError(b, err)
		for _, r := range runs {
			up0, down0 := r.meter.Up.Load(), r.meter.Down.Load()
			t0 := startPhase(r.pid)
			_, err = r.a.Push(ctx)
			require.NoError(b, err)
			b.ReportMetric(float64(r.meter.Up.Load()-up0), r.name+"-append-bytes-up")
			b.Logf("%s: +%d B appended to one session: push moved %d B up, %d B down: %v",
				r.name, appended, r.meter.Up.Load()-up0, r.meter.Down.Load()-down0, t0)
		}
		// A second machine pulls and imports everything.
		for _, r := range runs {
			down0 := r.meter.Down.Load()
			// Closed after its pull: each pull's peak RSS is that of two open
			// archives (the source and this one), as a machine that also
			// serves its own sessions.
			dst, err := archive.Open(ctx, filepath.Join(b.TempDir(), "logbook.db"))
			require.NoError(b, err)
			other := archivesync.New(dst, repo.New(r.meter, key), archivesync.Paths{Dir: b.TempDir()}, "b")
			t0 := startPhase(r.pid)
			pr, err := other.Pull(ctx)
			require.NoError(b, err)
			wall := time.Since(t0.t0)
			require.Equal(b, len(revs), pr.Pulled)
			b.ReportMetric(float64(total)/1e6/wall.Seconds(), r.name+"-pull-import-MB/s")
			b.Logf("%s: pull and import of %d MB on a second machine: %v, %.1f MB/s; %d B down",
				r.name, total>>20, t0, float64(total)/1e6/wall.Seconds(), r.meter.Down.Load()-down0)
			require.NoError(b, dst.Close())
		}
	}
}

type countW struct{ n *int }

func (c *countW) Write(p []byte) (int, error) { *c.n += len(p); return len(p), nil }
