//go:build linux

package follow_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/sync/follow"
)

// BenchmarkAppendLatency measures, with a real archive, the time from an
// append landing (complete lines of a plain log, or one more frame of a zstd
// one) to the import that holds it returning: the debounce's quiet plus the
// import of the appended bytes. Each iteration is one append.
func BenchmarkAppendLatency(b *testing.B) {
	for _, tc := range []struct {
		name       string
		compressed bool
	}{{"Plain", false}, {"Zstd", true}} {
		b.Run(tc.name, func(b *testing.B) {
			const perAppend = 4 // lines per append: a frame of dshgen's BatchLines
			log := generateLines(b, b.N*perAppend)
			lines := log.Lines()
			var pieces [][]byte // pieces[0] is the header (frame 0)
			if tc.compressed {
				pieces = log.Frames()
			} else {
				pieces = append(pieces, append(slices.Clone(lines[0]), '\n'))
				for i := 1; i < len(lines); i += perAppend {
					var p []byte
					for _, l := range lines[i:min(i+perAppend, len(lines))] {
						p = append(append(p, l...), '\n')
					}
					pieces = append(pieces, p)
				}
			}
			root := b.TempDir()
			path := writeLog(b, root, log, tc.compressed, pieces[0])

			s := archivetest.MustOpen(b)
			o, batches := archiveFollow(s, root)
			o.Logger = quietLogger()
			batches.seen = make(chan struct{}, 1)
			start(b, o)
			records := func() int64 {
				f, _ := batches.last(path)
				return f.Report.Records
			}
			waitRecords := func(want int64) {
				for records() < want {
					select {
					case <-batches.seen:
					case <-time.After(10 * time.Second):
						b.Fatalf("records %d after 10 s, want %d", records(), want)
					}
				}
			}
			waitRecords(0)
			latencies := make([]time.Duration, 0, b.N)
			var want int64
			b.ResetTimer()
			for i := 1; i <= b.N; i++ {
				want += int64(min(perAppend, len(lines)-1-(i-1)*perAppend))
				began := time.Now()
				appendTo(b, path, string(pieces[i]))
				waitRecords(want)
				latencies = append(latencies, time.Since(began))
			}
			b.StopTimer()
			reportLatencies(b, latencies)
		})
	}
}

// BenchmarkContinuousWriter measures the latency of a writer that appends one
// line of a plain log every 20 ms and so never leaves the file quiet for the
// debounce: MaxDelay bounds it. Each iteration is one line; its latency runs
// from its append to the end of the first import that holds it.
func BenchmarkContinuousWriter(b *testing.B) {
	log := generateLines(b, b.N)
	lines := log.Lines()
	root := b.TempDir()
	path := writeLog(b, root, log, false, append(slices.Clone(lines[0]), '\n'))

	type seen struct {
		at      time.Time
		records int64
	}
	imports := make(chan seen, b.N+16)
	s := archivetest.MustOpen(b)
	o, _ := archiveFollow(s, root)
	o.Logger = quietLogger()
	o.OnImport = func(batch follow.Batch[archive.FileReport]) {
		for _, f := range batch.Files {
			if f.Report.Path == path {
				imports <- seen{time.Now(), f.Report.Records}
			}
		}
	}
	start(b, o)
	<-imports // the header

	appended := make([]time.Time, b.N)
	b.ResetTimer()
	for i := range b.N {
		appended[i] = time.Now()
		appendTo(b, path, string(lines[i+1])+"\n")
		time.Sleep(20 * time.Millisecond)
	}
	var got []seen
	for len(got) == 0 || got[len(got)-1].records < int64(b.N) {
		select {
		case x := <-imports:
			got = append(got, x)
		case <-time.After(10 * time.Second):
			b.Fatalf("not every line imported after 10 s: %+v", got)
		}
	}
	b.StopTimer()
	latencies := make([]time.Duration, b.N)
	for i := range b.N {
		for _, x := range got {
			if x.records > int64(i) {
				latencies[i] = x.at.Sub(appended[i])
				break
			}
		}
	}
	reportLatencies(b, latencies)
	b.ReportMetric(float64(len(got)), "imports")
}

// reportLatencies reports the median, 95th percentile and worst of latencies.
func reportLatencies(b *testing.B, latencies []time.Duration) {
	slices.Sort(latencies)
	q := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
	b.ReportMetric(q(1), "max-ms")
}

// generateLines generates a dsh log of at least n record lines, in frames of 4.
func generateLines(b *testing.B, n int) *dshgen.Log {
	for turns := 8; ; turns *= 2 {
		log := dshgen.Generate(dshgen.Options{Seed: 3, Turns: turns, BatchLines: 4, NoPack: true})
		if len(log.Lines())-1 >= n && len(log.Frames())-1 >= n/4 {
			return log
		}
	}
}

// BenchmarkIdle follows 10,000 session logs in 10,000 session folders under
// 1,000 project folders (11,001 watches, dsh's layout) and measures what the
// process spends while nothing changes: CPU time from getrusage over a window
// (LOGBOOK_IDLE_WINDOW, default 10 s; the figure is over 60 s), as a
// share of one core, and the blocks it wrote. The import is the fake one: the
// archive is never called while nothing changes.
func BenchmarkIdle(b *testing.B) {
	window := 10 * time.Second
	if s := os.Getenv("LOGBOOK_IDLE_WINDOW"); s != "" {
		d, err := time.ParseDuration(s)
		require.NoError(b, err)
		window = d
	}
	const projects, perProject = 1000, 10
	root := b.TempDir()
	var last string
	for p := range projects {
		for s := range perProject {
			last = filepath.Join(root, fmt.Sprintf("-home-dev-proj%04d", p), fmt.Sprintf("session-%02d", s), "session.jsonl")
			require.NoError(b, os.MkdirAll(filepath.Dir(last), 0o755))
			require.NoError(b, os.WriteFile(last, []byte("header\n"), 0o644))
		}
	}
	var r recorder
	o := r.options(root)
	o.Logger = quietLogger()
	began := time.Now()
	f := start(b, o)
	for {
		if _, ok := r.last(last); ok {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	catchup := time.Since(began)
	st := f.Statuses()
	require.Len(b, st, 1)
	require.Equal(b, follow.Watching, st[0].Mode, st[0].Reason)
	time.Sleep(time.Second) // the catch-up's garbage collected, its timers run down
	runs := len(r.runs)

	b.ResetTimer()
	var cpu time.Duration
	var blocks int64
	for range b.N {
		u0, w0 := usage(b)
		time.Sleep(window)
		u1, w1 := usage(b)
		cpu += u1 - u0
		blocks += w1 - w0
	}
	b.StopTimer()
	// Reported after the timed part: ResetTimer drops the metrics reported before it.
	b.ReportMetric(catchup.Seconds(), "catchup-s")
	b.ReportMetric(float64(st[0].Folders), "watches")
	b.ReportMetric(float64(readInt(b, "/proc/sys/fs/inotify/max_user_watches")), "max_user_watches")
	b.ReportMetric(100*cpu.Seconds()/(window.Seconds()*float64(b.N)), "%core")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/window")
	b.ReportMetric(float64(blocks)/float64(b.N), "written-blocks/window")
	require.Equal(b, runs, len(r.runs), "no import while nothing changed")
}

// usage is the CPU time the process has used, and the blocks it has written.
func usage(b *testing.B) (time.Duration, int64) {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Oublock
}

// readInt reads a number from a file, or 0.
func readInt(b *testing.B, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Logf("%s: %v", path, err)
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return n
}
