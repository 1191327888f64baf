package app

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
)

// liveHeap is the heap the last GC found live: what the program holds, apart
// from how much garbage the GC's pacing lets pile up (which grows with the
// rest of the process's heap, other tests' included).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakRSS is this process's peak resident set (VmHWM) in bytes, 0 when unknown.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cpuSeconds is this process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// TestExportDownloadMemory: a large bundle reaches the browser through a live
// heap that does not grow with it: built into a file one session at a time,
// then streamed in chunks. (The base64-in-JSON answer it replaces held the
// bundle, its base64 and the JSON of that, over 3.6 times the bundle, live at
// once: 30 MB for this test's 8 MB bundle.)
// LOGBOOK_EXPORT_MB sets the generated logs' size (24 MiB by default; 620 gives
// a bundle of 211 MB) and the test logs the figures; LOGBOOK_EXPORT_KEEP=FILE
// keeps the bundle.
func TestExportDownloadMemory(t *testing.T) {
	mb := 24
	if v := os.Getenv("LOGBOOK_EXPORT_MB"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		mb = n
	}
	// No watch: it would index the import below meanwhile, and be measured with it.
	ts := newTestServerWith(t, func(d *Deps) { d.WatchEvery = -1 })
	ctx := context.Background()
	_, err := dshgen.WriteCorpus(ts.root, dshgen.CorpusOptions{Seed: 3, Sessions: max(4, mb), TargetBytes: int64(mb) << 20, Projects: 3})
	require.NoError(t, err)
	start := time.Now()
	_, err = ts.deps.Archive.Import(ctx, []string{ts.root}, archive.ImportOptions{})
	require.NoError(t, err)
	t.Logf("imported %d MiB of logs in %v", mb, time.Since(start).Round(time.Millisecond))
	list, err := ts.deps.Archive.ListSessions(ctx, archive.SessionFilter{})
	require.NoError(t, err)
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}

	runtime.GC()
	debug.FreeOSMemory()
	base := liveHeap()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // resets VmHWM (Linux)
	rss0 := peakRSS()
	peak := watchLiveHeap()
	cpu0, t0 := cpuSeconds(), time.Now()
	f := ts.exportCall(t, "", ExportOptions{Format: "bundle", Sessions: ids})
	cpuBuild, built := cpuSeconds()-cpu0, time.Since(t0)
	resp, err := ts.srv.Client().Get("http://" + ts.addr + "/" + f.Download)
	require.NoError(t, err)
	var sink io.Writer = io.Discard
	if p := os.Getenv("LOGBOOK_EXPORT_KEEP"); p != "" {
		// Keep the bundle (for measuring its upload, see the export4 report).
		kf, err := os.Create(p)
		require.NoError(t, err)
		defer kf.Close()
		sink = kf
	}
	n, err := io.Copy(sink, resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	cpu, took := cpuSeconds()-cpu0, time.Since(t0)
	top := peak()
	require.Equal(t, f.Bytes, n)

	grew := int64(top) - int64(base)
	out, _ := json.Marshal(map[string]any{"sessions": len(ids), "bundle_mb": float64(n) / (1 << 20), "live_heap_growth_mb": float64(grew) / (1 << 20),
		"peak_rss_mb": float64(peakRSS()) / (1 << 20), "rss_before_mb": float64(rss0) / (1 << 20), "cpu_s": cpu, "cpu_build_s": cpuBuild,
		"build_s": built.Seconds(), "total_s": took.Seconds()})
	t.Logf("export download: %s", out)
	assert.Less(t, grew, int64(16<<20), "the live heap grew by %d MiB for a %d MiB bundle", grew>>20, n>>20)
	if n > 64<<20 {
		assert.Less(t, grew, n/8, "the live heap does not grow with the bundle")
	}
}
