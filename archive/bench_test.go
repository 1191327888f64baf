package archive_test

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

// BenchmarkImportRealLog imports the real 87k-event log (plain, decompressed once)
// into a fresh archive per iteration and reports logical MB/s.
func BenchmarkImportRealLog(b *testing.B) {
	src := archivetest.Corpus(b, archivetest.RealLog)
	raw, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	plain, err := dec.DecodeAll(raw, nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(path, plain, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(plain)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := archive.Open(context.Background(), filepath.Join(b.TempDir(), "a.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		fr := s.ImportFile(context.Background(), path, archive.ImportOptions{})
		if fr.Error != nil {
			b.Fatal(fr.Error)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}

// benchScale reads LOGBOOK_BENCH_GB (default 0.02 GB, so `go test -bench .` stays
// quick); the figures use LOGBOOK_BENCH_GB=1.
func benchScale(b *testing.B) float64 {
	gb := 0.02
	if v := os.Getenv("LOGBOOK_BENCH_GB"); v != "" {
		if _, err := fmt.Sscanf(v, "%g", &gb); err != nil || gb <= 0 {
			b.Fatalf("LOGBOOK_BENCH_GB=%q is not a positive number", v)
		}
	}
	return gb
}

// resetPeakRSS clears the kernel's high-water mark of resident memory (Linux), so
// peakRSS measures only what follows.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns VmHWM in bytes, or 0 where /proc is absent.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

// cpuTime returns the user plus system CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func dirSize(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// benchImport generates a corpus (outside the timer), imports it into a fresh archive
// and reports throughput, peak memory, archive size and the cost of a re-import with
// nothing changed.
func benchImport(b *testing.B, sessions int, bytes int64, compressed bool) {
	root := filepath.Join(b.TempDir(), "sessions")
	// The shape follows the real 87k-event corpus log: long streamed reasoning and
	// answers (~400 tokens a block) and tool results of a few KiB.
	st, err := dshgen.WriteCorpus(root, dshgen.CorpusOptions{Seed: 7, Sessions: sessions, TargetBytes: bytes,
		Compressed: compressed, ChunkTokens: 400, ToolResultBytes: 4000})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.LogicalBytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dbDir := b.TempDir()
		s, err := archive.Open(context.Background(), filepath.Join(dbDir, "a.db"))
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		resetPeakRSS()
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		rep, err := s.Import(context.Background(), []string{root}, archive.ImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Maintain(context.Background()); err != nil {
			b.Fatal(err)
		}
		elapsed, cpu := time.Since(start), cpuTime()-cpu0
		b.StopTimer()
		if rep.Summary.OK != st.Sessions {
			b.Fatalf("%d of %d sessions ok: %+v", rep.Summary.OK, st.Sessions, rep.Summary)
		}
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
		b.ReportMetric(float64(st.Sessions)/elapsed.Seconds(), "sessions/s")
		b.ReportMetric(float64(st.Events)/elapsed.Seconds(), "events/s")
		// CPU time per logical GB is the figure to compare between runs: wall-clock
		// throughput moves with whatever else the machine is doing.
		b.ReportMetric(cpu.Seconds()/(float64(st.LogicalBytes)/(1<<30)), "CPU-s/GB")
		b.ReportMetric(float64(dirSize(dbDir))/float64(st.LogicalBytes), "archive/logical")
		again := time.Now()
		rep2, err := s.Import(context.Background(), []string{root}, archive.ImportOptions{})
		if err != nil || rep2.Summary.Changed != 0 {
			b.Fatalf("re-import changed %d files: %v", rep2.Summary.Changed, err)
		}
		b.ReportMetric(float64(time.Since(again).Milliseconds()), "rescan-ms")
		s.Close()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(st.LogicalBytes)/(1<<20), "logical-MB")
	b.ReportMetric(float64(st.Sessions), "sessions")
}

// BenchmarkImportCorpus imports 2,000 sessions per GB of logical JSONL
// (LOGBOOK_BENCH_GB, default 0.02), written as .jsonl.zstd like dsh writes them.
func BenchmarkImportCorpus(b *testing.B) {
	gb := benchScale(b)
	benchImport(b, max(10, int(2000*gb)), int64(gb*(1<<30)), true)
}

// BenchmarkImportSingleSession imports one session of LOGBOOK_BENCH_GB logical bytes:
// the memory figure must stay flat however large one session grows.
func BenchmarkImportSingleSession(b *testing.B) {
	benchImport(b, 1, int64(benchScale(b)*(1<<30)), true)
}

// BenchmarkRescan10k re-imports 10,000 unchanged small session files: the cost of a
// routine import when nothing happened.
func BenchmarkRescan10k(b *testing.B) {
	root := filepath.Join(b.TempDir(), "sessions")
	if _, err := dshgen.WriteCorpus(root, dshgen.CorpusOptions{Seed: 9, Sessions: 10000, TargetBytes: 10000 * 4096}); err != nil {
		b.Fatal(err)
	}
	s, err := archive.Open(context.Background(), filepath.Join(b.TempDir(), "a.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(context.Background(), []string{root}, archive.ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := s.Maintain(context.Background()); err != nil { // as `logbook import` does
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := s.Import(context.Background(), []string{root}, archive.ImportOptions{})
		if err != nil || rep.Summary.Changed != 0 || rep.Summary.Files != 10000 {
			b.Fatalf("rescan: %+v %v", rep.Summary, err)
		}
	}
}

// BenchmarkImport10kSmall imports LOGBOOK_BENCH_SESSIONS (default 10,000) small
// sessions of one short turn each (about 5 KB, 26 events), the corpus of index's
// BenchmarkImportSearchable10k, into a fresh archive: the archive's share of a
// first import of a long history, where the cost is per session, not per byte.
// CPU-s is the figure to compare on a shared machine.
func BenchmarkImport10kSmall(b *testing.B) {
	n := smallSessions(b)
	root := smallCorpus(b, n)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s, err := archive.Open(context.Background(), filepath.Join(b.TempDir(), "a.db"))
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		rep, err := s.Import(context.Background(), []string{root}, archive.ImportOptions{})
		if err == nil {
			err = s.Maintain(context.Background())
		}
		elapsed, cpu := time.Since(start), cpuTime()-cpu0
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if rep.Summary.OK != n {
			b.Fatalf("%d of %d sessions ok: %+v", rep.Summary.OK, n, rep.Summary)
		}
		b.ReportMetric(cpu.Seconds(), "CPU-s")
		b.ReportMetric(float64(n)/elapsed.Seconds(), "sessions/s")
		b.ReportMetric(float64(n)/cpu.Seconds(), "sessions/CPU-s")
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// smallSessions is LOGBOOK_BENCH_SESSIONS, 10,000 by default.
func smallSessions(b *testing.B) int {
	n := 10000
	if v := os.Getenv("LOGBOOK_BENCH_SESSIONS"); v != "" {
		if _, err := fmt.Sscanf(v, "%d", &n); err != nil || n <= 0 {
			b.Fatalf("LOGBOOK_BENCH_SESSIONS=%q is not a positive number", v)
		}
	}
	return n
}

// smallCorpus writes n small sessions of one short turn each (about 5 KB, 26
// events), the corpus of index's BenchmarkImportSearchable10k, and returns its
// root. LOGBOOK_BENCH_DIR keeps the corpus there for the next run (its
// generation costs more than the import).
func smallCorpus(b *testing.B, n int) string {
	root := filepath.Join(b.TempDir(), "sessions")
	if d := os.Getenv("LOGBOOK_BENCH_DIR"); d != "" {
		root = filepath.Join(d, fmt.Sprintf("small-%d", n))
	}
	for i := range n {
		if _, err := os.Stat(filepath.Join(root, ".complete")); err == nil {
			break
		}
		l := dshgen.Generate(dshgen.Options{Seed: uint64(i) + 1, Cwd: fmt.Sprintf("/home/dev/project-%d", i%16),
			CreatedAt: dshgen.DefaultCreatedAt + int64(i)*60_000, Turns: 1, StepsPerTurn: 1,
			ChunkTokens: 20, ToolResultBytes: 200, Families: dshgen.FamilyTitles})
		if _, err := l.WriteFile(root, false); err != nil {
			b.Fatal(err)
		}
		if i == n-1 {
			if err := os.WriteFile(filepath.Join(root, ".complete"), nil, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// BenchmarkSessionBlocks10kSmall reads the blocks of the small sessions of
// BenchmarkImport10kSmall as an index reads them: each session alone
// (SessionBlocks, as a sync reads a source without SessionsBlocks) or 16 or 128
// sessions at a time (SessionsBlocks: index's Sync and SyncAlong read 128),
// ns/op per session; and every session's revision, as each look of SyncAlong
// reads them.
func BenchmarkSessionBlocks10kSmall(b *testing.B) {
	n := smallSessions(b)
	root := smallCorpus(b, n)
	ctx := context.Background()
	s, err := archive.Open(ctx, filepath.Join(b.TempDir(), "a.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, []string{root}, archive.ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	revs, err := s.Revisions(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ids := slices.Sorted(maps.Keys(revs))
	blocks := 0
	count := func(archive.Block) error { blocks++; return nil }
	b.Run("revisions", func(b *testing.B) { // a look of SyncAlong: ns/op is per look
		for range b.N {
			if _, err := s.Revisions(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("alone", func(b *testing.B) {
		for i := range b.N {
			if _, err := s.SessionBlocks(ctx, ids[i%len(ids)], count); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, batch := range []int{16, 128} {
		b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) {
			for i := 0; i < b.N; i += batch {
				from := i % len(ids)
				err := s.SessionsBlocks(ctx, ids[from:min(from+batch, from+b.N-i, len(ids))], func(_ string, _ int64, each func(func(archive.Block) error) error) error {
					return each(count)
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
