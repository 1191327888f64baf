package index

// The "time to searchable" benchmarks: a corpus imported into a fresh archive and
// then indexed, end to end, as `logbook import` does it (Store.Import,
// Store.Maintain, then Index.Sync in the same process).
//
//	go test ./index -run '^$' -bench ImportSearchable -benchtime 1x
//	LOGBOOK_BENCH_GB=1 go test ./index -run '^$' -bench 'ImportSearchable$' -benchtime 1x -timeout 60m
//	LOGBOOK_BENCH_CORPUS=/path/to/sessions go test ./index -run '^$' -bench 'ImportSearchable$' -benchtime 1x
//
// BenchmarkImportSearchable imports a generated corpus of LOGBOOK_BENCH_GB
// (default 0.02 GB, 2,000 sessions per GB, shaped like archive's import
// benchmarks), or the directory LOGBOOK_BENCH_CORPUS names.
// BenchmarkImportSearchableRealLog imports LOGBOOK_BENCH_REAL_COPIES (default 20)
// copies of the real corpus log, each with a session id of its own.
//
// Both report MB/s of logical JSONL made searchable, the archive's and the
// index's shares in wall and CPU time, and the peak RSS of the process over the
// whole run. With LOGBOOK_BENCH_OVERLAP=1 the index is fed along the import
// (Index.SyncAlong), as logbook import and the app do (the archive figures then
// include the indexing done meanwhile). On a shared machine compare the CPU figures: the wall clock moves
// with whatever else runs.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/internal/memlimit"
)

func BenchmarkImportSearchable(b *testing.B) {
	if root := os.Getenv("LOGBOOK_BENCH_CORPUS"); root != "" {
		n, err := logicalSize(root)
		if err != nil {
			b.Fatal(err)
		}
		benchImportSearchable(b, root, n)
		return
	}
	gb := 0.02
	if v := os.Getenv("LOGBOOK_BENCH_GB"); v != "" {
		if _, err := fmt.Sscanf(v, "%g", &gb); err != nil || gb <= 0 {
			b.Fatalf("LOGBOOK_BENCH_GB=%q is not a positive number", v)
		}
	}
	root := filepath.Join(b.TempDir(), "sessions")
	// The shape of archive's import benchmarks, which follows the real corpus log:
	// long streamed reasoning and answers, tool results of a few KiB, zstd files.
	st, err := dshgen.WriteCorpus(root, dshgen.CorpusOptions{Seed: 7, Sessions: max(10, int(2000*gb)),
		TargetBytes: int64(gb * (1 << 30)), Compressed: true, ChunkTokens: 400, ToolResultBytes: 4000})
	if err != nil {
		b.Fatal(err)
	}
	benchImportSearchable(b, root, st.LogicalBytes)
}

// BenchmarkImportSearchable10k imports LOGBOOK_BENCH_SESSIONS (default 10,000)
// small sessions, one short turn each (about 5 KB, 26 events): a first import of a long
// history, where the cost is per session, not per byte. It reports sessions/s
// made searchable (#17's target: 2,000).
func BenchmarkImportSearchable10k(b *testing.B) {
	n := benchEnvInt(b, "LOGBOOK_BENCH_SESSIONS", 10000)
	root := filepath.Join(b.TempDir(), "sessions")
	var logical int64
	for i := range n {
		l := dshgen.Generate(dshgen.Options{Seed: uint64(i) + 1, Cwd: fmt.Sprintf("/home/dev/project-%d", i%16),
			CreatedAt: dshgen.DefaultCreatedAt + int64(i)*60_000, Turns: 1, StepsPerTurn: 1,
			ChunkTokens: 20, ToolResultBytes: 200, Families: dshgen.FamilyTitles})
		if _, err := l.WriteFile(root, false); err != nil {
			b.Fatal(err)
		}
		logical += l.Size()
	}
	benchImportSearchable(b, root, logical)
}

func BenchmarkImportSearchableRealLog(b *testing.B) {
	copies := benchEnvInt(b, "LOGBOOK_BENCH_REAL_COPIES", 20)
	root, n, err := writeRealLogCopies(archivetest.Corpus(b, archivetest.RealLog), b.TempDir(), copies)
	if err != nil {
		b.Fatal(err)
	}
	benchImportSearchable(b, root, n)
}

// benchImportSearchable imports root (logical bytes of JSONL) into a fresh
// archive and indexes it, b.N times.
func benchImportSearchable(b *testing.B, root string, logical int64) {
	overlap := os.Getenv("LOGBOOK_BENCH_OVERLAP") != ""
	memlimit.Apply() // as logbook import does
	b.SetBytes(logical)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		runtime.GC()
		resetPeakRSS()
		b.StartTimer()

		ctx := context.Background()
		start, cpu0 := time.Now(), cpuTime()
		s := archive.New(filepath.Join(dir, "logbook.db"))
		s.Logger = quietLogger
		if err := s.Open(ctx); err != nil {
			b.Fatal(err)
		}
		ix, err := Open(filepath.Join(dir, "index"))
		if err != nil {
			b.Fatal(err)
		}
		ix.log = quietLogger
		importing, early := make(chan struct{}), make(chan error, 1)
		var alongDocs int
		var opts archive.ImportOptions
		if overlap {
			// What logbook import does: index the sessions already committed while
			// the next files import, as the import names them.
			feed := NewAlongFeed()
			opts.CommittedSessions = feed.Committed
			go func() {
				st, err := ix.SyncAlong(ctx, s, importing, feed)
				alongDocs = st.Docs
				early <- err
			}()
		} else {
			early <- nil
		}
		rep, err := s.Import(ctx, []string{root}, opts)
		if err == nil {
			err = s.Maintain(ctx)
		}
		close(importing)
		if eerr := <-early; err == nil {
			err = eerr
		}
		if err != nil {
			b.Fatal(err)
		}
		archived, archCPU := time.Since(start), cpuTime()-cpu0
		st, err := ix.Sync(ctx, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := ix.Pending(ctx, s); err != nil || n != 0 {
			b.Fatalf("imported %+v, %d sessions left to index (%v)", rep.Summary, n, err)
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		elapsed, cpu := time.Since(start), cpuTime()-cpu0
		b.StopTimer()
		rss := peakRSS()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		if rep.Summary.Corrupt > 0 || !overlap && st.Indexed != rep.Summary.OK+rep.Summary.Recovered {
			b.Fatalf("imported %+v, indexed %+v", rep.Summary, st)
		}
		mb := float64(logical) / 1e6
		b.ReportMetric(mb/elapsed.Seconds(), "searchable-MB/s")
		b.ReportMetric(mb/archived.Seconds(), "archive-MB/s")
		b.ReportMetric(mb/(elapsed-archived).Seconds(), "index-MB/s")
		b.ReportMetric(archived.Seconds(), "archive-s")
		b.ReportMetric((elapsed - archived).Seconds(), "index-s")
		b.ReportMetric(archCPU.Seconds(), "archive-CPU-s")
		b.ReportMetric((cpu - archCPU).Seconds(), "index-CPU-s")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
		b.ReportMetric(float64(st.Docs+alongDocs), "docs")
		b.ReportMetric(float64(rep.Summary.Files)/elapsed.Seconds(), "sessions/s")
		b.ReportMetric(float64(diskUsage(filepath.Join(dir, "index")))/(1<<20), "index-MB")
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(logical)/1e6, "logical-MB")
}

// writeRealLogCopies writes n copies of the zstd log at src under dir as plain
// session.jsonl files, each with a session id of its own in its header and a
// folder named after it, and returns the root and the bytes written. (The
// folders do not re-derive from the header's cwd; the importer warns and goes on.)
func writeRealLogCopies(src, dir string, n int) (string, int64, error) {
	f, err := os.Open(src)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	dec, err := zstd.NewReader(f)
	if err != nil {
		return "", 0, err
	}
	defer dec.Close()
	var raw bytes.Buffer
	if _, err := dec.WriteTo(&raw); err != nil {
		return "", 0, fmt.Errorf("%s: %w", src, err)
	}
	header, rest, ok := bytes.Cut(raw.Bytes(), []byte("\n"))
	const key = `"id":"`
	i := bytes.Index(header, []byte(key))
	if !ok || i < 0 {
		return "", 0, fmt.Errorf("%s: no session id in the header line", src)
	}
	i += len(key)
	j := bytes.IndexByte(header[i:], '"')
	if j < 0 {
		return "", 0, fmt.Errorf("%s: unterminated session id in the header line", src)
	}
	id := string(header[i : i+j])
	root := filepath.Join(dir, "sessions")
	var total int64
	for k := range n {
		copyID := fmt.Sprintf("%s-copy%02d", id, k)
		var out bytes.Buffer
		out.Write(header[:i])
		out.WriteString(copyID)
		out.Write(header[i+j:])
		out.WriteByte('\n')
		out.Write(rest)
		d := filepath.Join(root, "copies", copyID)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", 0, err
		}
		if err := os.WriteFile(filepath.Join(d, "session.jsonl"), out.Bytes(), 0o644); err != nil {
			return "", 0, err
		}
		total += int64(out.Len())
	}
	return root, total, nil
}

// logicalSize sums the decompressed size of the session logs under root.
func logicalSize(root string) (int64, error) {
	var n int64
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch {
		case strings.HasSuffix(path, ".jsonl"):
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		case strings.HasSuffix(path, ".jsonl.zstd"):
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			dec, err := zstd.NewReader(f)
			if err != nil {
				return err
			}
			defer dec.Close()
			m, err := dec.WriteTo(discard{})
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			n += m
		}
		return nil
	})
	return n, err
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// cpuTime returns the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
