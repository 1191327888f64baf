package index

// Benchmarks of the search index over a generated archive: indexing throughput and
// index size (BenchmarkSync), query latency per query class (BenchmarkSearch), the
// same searches done with grep over the raw logs (BenchmarkGrepBaseline), and the
// end-to-end latency of the `logbook search` command (BenchmarkCLISearch).
//
//	go test ./index -run '^$' -bench . -benchtime 1x
//	LOGBOOK_BENCH_BLOCKS=1000000 go test ./index -run '^$' -bench . -benchtime 1x -timeout 120m
//
// LOGBOOK_BENCH_BLOCKS is the number of indexed blocks to aim for (default 20,000, so
// a plain `go test -bench .` stays quick; the figures use 1,000,000).
// LOGBOOK_BENCH_SAMPLES is how many times each query (and each CLI search) is timed
// for its percentiles (default 200, cut short after LOGBOOK_BENCH_CLASS_SECONDS,
// default 30, but never below 20; the samples metric says how many were taken);
// LOGBOOK_BENCH_GREP_RUNS how many times each grep runs (default 5). With
// -benchtime 1x each figure comes from that many runs; with a longer benchtime
// ns/op is averaged over b.N runs and the percentiles over at least that many.
//
// The fixture (plain .jsonl corpus, archive, index) takes minutes to build at 1M
// blocks, so it is built once and cached under os.TempDir() in
// logbook-bench-index-v<benchFixtureVersion>-<blocks>/:
//
//	sessions/           the generated corpus, plain JSONL (what grep reads)
//	data/logbook.db     the archive it was imported into
//	data/index/         the index synced from it (the CLI's layout: --data data)
//	fixture.json        corpus and archive figures; written last, so a missing file
//	index.json          means a build was cut short and is redone
//
// Deleting the directory is the user's choice (5.3 GB at 1M blocks: 1.9 GB of
// JSONL, a 1.2 GB archive, a 2.2 GB index); nothing else removes it. A fixture is
// rebuilt only when its files are missing, so after a change to dshgen, the
// archive schema or the index mapping, delete it (or bump
// benchFixtureVersion). BenchmarkSync always indexes into a fresh directory; when
// the cached index is missing it keeps its last index as the cache, so a cold
// `-bench .` indexes once, not twice.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
)

// Corpus shape and sizing. Blocks are the documents Sync indexes. With 100 streamed
// tokens a content block and 1,000-byte tool results (the real corpus log has
// longer blocks, ~1.2 KB of text each, but 1M of those would be 7 GB of JSONL), the
// generated archive yields 532 blocks per MiB of logical JSONL: measured with
// Store.SessionBlocks over a 20 MiB, 20-session corpus (10,733 blocks, 4.3 MiB of
// block text, ~420 bytes a block). WriteCorpus's TargetBytes is therefore
// blocks/532 MiB, and a session holds about benchBlocksPerSession blocks (2 MiB,
// the size of a long agent session). The fixture reports the blocks it really got.
const (
	benchFixtureVersion   = 1
	benchChunkTokens      = 100
	benchToolResultBytes  = 1000
	benchBlocksPerMiB     = 532
	benchBlocksPerSession = 1000
	benchSeed             = 2026
)

// The query classes. benchWord is a common word (in most blocks), benchPhrase a
// phrase of two common words, which makes the position check do real work; the
// rare term is picked from the index (see pickRareTerm).
const (
	benchWord   = "function"
	benchPhrase = "error handler"
	benchCJK    = "写入权限"
)

// benchEnvInt reads a positive integer from the environment.
func benchEnvInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.ReplaceAll(v, "_", ""))
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q is not a positive integer", name, v)
	}
	return n
}

func benchBlocks(b *testing.B) int  { return benchEnvInt(b, "LOGBOOK_BENCH_BLOCKS", 20_000) }
func benchSamples(b *testing.B) int { return benchEnvInt(b, "LOGBOOK_BENCH_SAMPLES", 200) }

// benchFixture is the cached corpus and archive; fixture.json holds its fields.
type benchFixture struct {
	Dir           string  `json:"-"`
	Blocks        int     `json:"blocks_requested"`
	Sessions      int     `json:"sessions"`
	Events        int64   `json:"events"`
	LogicalBytes  int64   `json:"logical_bytes"`
	ArchiveBytes  int64   `json:"archive_bytes"` // du of logbook.db after import
	ImportSeconds float64 `json:"import_seconds"`
}

func (f *benchFixture) corpus() string   { return filepath.Join(f.Dir, "sessions") }
func (f *benchFixture) data() string     { return filepath.Join(f.Dir, "data") }
func (f *benchFixture) dbPath() string   { return filepath.Join(f.data(), "logbook.db") }
func (f *benchFixture) indexDir() string { return filepath.Join(f.data(), "index") }
func (f *benchFixture) infoPath() string { return filepath.Join(f.Dir, "index.json") }

// benchIndexInfo describes the cached index; index.json holds it.
type benchIndexInfo struct {
	Docs        int       `json:"docs"`
	SyncSeconds float64   `json:"sync_seconds"` // the Sync from empty that built it
	IndexBytes  int64     `json:"index_bytes"`  // du of the index directory
	RareTerm    string    `json:"rare_term"`
	RareDocs    uint64    `json:"rare_docs"`
	Newest      time.Time `json:"newest"` // the newest block: "now" for since:30d
}

// quietLogger drops the index's info lines, which would interleave with results.
var quietLogger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

// setupLog reports fixture progress as it happens; b.Logf would hold it back until
// the benchmark ends, and at 1M blocks setup takes minutes.
func setupLog(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench setup: "+format+"\n", args...)
}

// loadBenchFixture returns the cached fixture for LOGBOOK_BENCH_BLOCKS, building
// it first if needed. The clock is stopped throughout.
func loadBenchFixture(b *testing.B) *benchFixture {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	blocks := benchBlocks(b)
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("logbook-bench-index-v%d-%d", benchFixtureVersion, blocks))
	f := &benchFixture{}
	if err := readJSONFile(filepath.Join(dir, "fixture.json"), f); err == nil {
		f.Dir = dir
		return f
	}
	// Build beside the final place and rename it there, so an interrupted build
	// never looks finished.
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	tmp, err := os.MkdirTemp(os.TempDir(), filepath.Base(dir)+".building-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	f = &benchFixture{Dir: tmp, Blocks: blocks}
	if err := buildBenchArchive(f); err != nil {
		b.Fatal(err)
	}
	if err := writeJSONFile(filepath.Join(tmp, "fixture.json"), f); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		b.Fatal(err)
	}
	f.Dir = dir
	return f
}

// buildBenchArchive generates the corpus under f.Dir and imports it into a new archive.
func buildBenchArchive(f *benchFixture) error {
	ctx := context.Background()
	target := int64(float64(f.Blocks) / benchBlocksPerMiB * (1 << 20))
	sessions := max(4, f.Blocks/benchBlocksPerSession)
	setupLog("generating %d sessions, %.0f MiB of JSONL, in %s", sessions, float64(target)/(1<<20), f.Dir)
	start := time.Now()
	st, err := dshgen.WriteCorpus(f.corpus(), dshgen.CorpusOptions{Seed: benchSeed, Sessions: sessions, TargetBytes: target,
		ChunkTokens: benchChunkTokens, ToolResultBytes: benchToolResultBytes})
	if err != nil {
		return err
	}
	f.Sessions, f.Events, f.LogicalBytes = st.Sessions, st.Events, st.LogicalBytes
	setupLog("generated %d events in %s; importing", st.Events, time.Since(start).Round(time.Millisecond))

	if err := os.MkdirAll(f.data(), 0o755); err != nil {
		return err
	}
	s, err := archive.Open(ctx, f.dbPath())
	if err != nil {
		return err
	}
	start = time.Now()
	rep, err := s.Import(ctx, []string{f.corpus()}, archive.ImportOptions{})
	if err == nil && rep.Summary.OK != st.Sessions {
		err = fmt.Errorf("%d of %d sessions imported ok: %+v", rep.Summary.OK, st.Sessions, rep.Summary)
	}
	if err == nil {
		err = s.Maintain(ctx)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	f.ImportSeconds = time.Since(start).Seconds()
	f.ArchiveBytes = diskUsage(f.dbPath(), f.dbPath()+"-wal", f.dbPath()+"-shm")
	setupLog("imported in %s: archive %.0f MiB", time.Since(start).Round(time.Millisecond), float64(f.ArchiveBytes)/(1<<20))
	return nil
}

// openBenchStore opens the fixture's archive.
func openBenchStore(b *testing.B, f *benchFixture) *archive.Store {
	b.Helper()
	s := archive.New(f.dbPath())
	s.Logger = quietLogger
	if err := s.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

// loadBenchIndex makes sure the fixture's index exists and is level with its
// archive, building it (Sync from empty) when it is missing, and returns its
// description. The index is closed again on return. The clock is stopped throughout.
func loadBenchIndex(b *testing.B, f *benchFixture) benchIndexInfo {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	ctx := context.Background()
	var info benchIndexInfo
	if err := readJSONFile(f.infoPath(), &info); err == nil {
		// Level it with the archive: a no-op unless the archive moved on, and the
		// CLI benchmark must not time an index catching up.
		s := openBenchStore(b, f)
		defer s.Close()
		ix, err := Open(f.indexDir())
		if err != nil {
			b.Fatal(err)
		}
		ix.log = quietLogger
		st, err := ix.Sync(ctx, s, nil)
		if cerr := ix.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
		if st.Indexed > 0 || st.Removed > 0 || ix.Rebuilt() {
			setupLog("cached index was behind its archive: %+v", st)
		}
		return info
	}
	if err := os.RemoveAll(f.indexDir()); err != nil {
		b.Fatal(err)
	}
	s := openBenchStore(b, f)
	defer s.Close()
	setupLog("indexing %s", f.data())
	st, took, _ := syncFromEmpty(b, s, f.indexDir())
	return finishBenchIndex(b, f, st.Docs, took)
}

// syncFromEmpty creates an index in dir and syncs the whole archive into it.
func syncFromEmpty(b *testing.B, s *archive.Store, dir string) (SyncStats, time.Duration, int64) {
	b.Helper()
	ix, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ix.log = quietLogger
	runtime.GC()
	resetPeakRSS()
	start := time.Now()
	st, err := ix.Sync(context.Background(), s, nil)
	took := time.Since(start)
	rss := peakRSS()
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	return st, took, rss
}

// finishBenchIndex describes the index just built in f.indexDir() and records it
// in index.json.
func finishBenchIndex(b *testing.B, f *benchFixture, docs int, took time.Duration) benchIndexInfo {
	b.Helper()
	info := benchIndexInfo{Docs: docs, SyncSeconds: took.Seconds(), IndexBytes: diskUsage(f.indexDir())}
	ix, err := Open(f.indexDir())
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if info.RareTerm, info.RareDocs, err = pickRareTerm(ix); err != nil {
		b.Fatal(err)
	}
	res, err := ix.Search(context.Background(), Query{Sort: SortRecent, Limit: 1})
	if err != nil || len(res.Hits) == 0 {
		b.Fatalf("newest block: %v (%d hits)", err, len(res.Hits))
	}
	info.Newest = res.Hits[0].Time
	if err := writeJSONFile(f.infoPath(), info); err != nil {
		b.Fatal(err)
	}
	setupLog("indexed %d docs in %s: index %.0f MiB; rare term %q in %d docs",
		docs, took.Round(time.Millisecond), float64(info.IndexBytes)/(1<<20), info.RareTerm, info.RareDocs)
	return info
}

// rareWord is what counts as a word for the rare-term query: letters only, so it is
// a word someone would type rather than a number or a CJK bigram.
var rareWord = regexp.MustCompile(`^[a-z]{4,}$`)

// pickRareTerm returns the word of the text field in the fewest blocks (ties go to
// the first in order): the needle-in-a-haystack search.
func pickRareTerm(ix *Index) (string, uint64, error) {
	dict, err := ix.bl.FieldDict(fieldText)
	if err != nil {
		return "", 0, err
	}
	defer dict.Close()
	best, bestN := "", uint64(math.MaxUint64)
	for {
		e, err := dict.Next()
		if err != nil {
			return "", 0, err
		}
		if e == nil {
			break
		}
		if e.Count > 0 && e.Count < bestN && rareWord.MatchString(e.Term) {
			best, bestN = e.Term, e.Count
		}
	}
	if best == "" {
		return "", 0, errors.New("no word in the index")
	}
	return best, bestN, nil
}

// BenchmarkSync indexes the whole archive into an empty index (what the first run
// after an upgrade, or `logbook reindex`, does) and reports documents per second,
// peak memory, and the index size against the archive and the logical JSONL.
func BenchmarkSync(b *testing.B) {
	f := loadBenchFixture(b)
	s := openBenchStore(b, f)
	defer s.Close()
	var cached benchIndexInfo
	haveCache := readJSONFile(f.infoPath(), &cached) == nil
	var last string
	var docs int
	var took time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "index")
		b.StartTimer()
		st, elapsed, rss := syncFromEmpty(b, s, dir)
		b.StopTimer()
		if st.Indexed != f.Sessions {
			b.Fatalf("indexed %d of %d sessions", st.Indexed, f.Sessions)
		}
		size := diskUsage(dir)
		b.ReportMetric(float64(st.Docs)/elapsed.Seconds(), "docs/s")
		b.ReportMetric(elapsed.Seconds(), "sync-s")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
		b.ReportMetric(float64(size)/(1<<20), "index-MB")
		b.ReportMetric(float64(size)/float64(f.ArchiveBytes), "index/archive")
		b.ReportMetric(float64(size)/float64(f.LogicalBytes), "index/logical")
		last, docs, took = dir, st.Docs, elapsed
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(docs), "docs")
	b.ReportMetric(float64(f.Sessions), "sessions")
	b.ReportMetric(float64(f.ArchiveBytes)/(1<<20), "archive-MB")
	b.ReportMetric(float64(f.LogicalBytes)/(1<<20), "logical-MB")
	b.ReportMetric(float64(docs)/(float64(f.LogicalBytes)/(1<<20)), "blocks/MiB")
	if !haveCache && last != "" {
		// Keep the index as the cache the query benchmarks use.
		if err := os.RemoveAll(f.indexDir()); err == nil && os.Rename(last, f.indexDir()) == nil {
			finishBenchIndex(b, f, docs, took)
		}
	}
}

// BenchmarkSearch times each query class against the cached index, as Search
// answers it (a page of 20 hits with fragments, and facets over all matches).
func BenchmarkSearch(b *testing.B) {
	f := loadBenchFixture(b)
	info := loadBenchIndex(b, f)
	classes := benchQueries(b, f, info)
	ix, err := Open(f.indexDir())
	if err != nil {
		b.Fatal(err)
	}
	ix.log = quietLogger
	ix.window = benchEnvInt(b, "LOGBOOK_BENCH_WINDOW", windowSize) // to weigh other window sizes
	b.Cleanup(func() { _ = ix.Close() })
	samples := benchSamples(b)
	for _, c := range classes {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			var total, hits uint64
			var exact, ranked int
			i := 0
			took := timeRuns(b, samples, func() {
				res, err := ix.Search(ctx, c.queries[i%len(c.queries)])
				if err != nil {
					b.Fatal(err)
				}
				i++
				total++
				hits += res.Total
				if res.TotalExact {
					exact++
				}
				if res.RankedAmong > 0 {
					ranked++
				}
			})
			if hits == 0 {
				b.Fatalf("%s: no query matches anything", c.name)
			}
			reportLatency(b, took)
			b.ReportMetric(float64(hits)/float64(total), "hits/query")
			b.ReportMetric(float64(exact)/float64(total), "exact-share")
			b.ReportMetric(float64(ranked)/float64(total), "windowed-share")
			b.ReportMetric(float64(len(c.queries)), "queries")
		})
	}
}

// timeRuns runs fn once untimed (to warm caches), then b.N times on the clock, then
// off the clock until it has want samples, and returns every timed duration. The
// extra runs stop early, at no fewer than benchMinSamples, once they have taken
// LOGBOOK_BENCH_CLASS_SECONDS (default 30): at 1M blocks a query matching most
// blocks takes seconds, and 200 of them per class would take longer than the setup.
func timeRuns(b *testing.B, want int, fn func()) []time.Duration {
	b.Helper()
	budget := time.Duration(benchEnvInt(b, "LOGBOOK_BENCH_CLASS_SECONDS", 30)) * time.Second
	b.StopTimer()
	fn()
	took := make([]time.Duration, 0, max(b.N, want))
	b.StartTimer()
	for range b.N {
		start := time.Now()
		fn()
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	extra := time.Now()
	for len(took) < want && (len(took) < benchMinSamples || time.Since(extra) < budget) {
		start := time.Now()
		fn()
		took = append(took, time.Since(start))
	}
	return took
}

// benchMinSamples is the fewest runs a percentile is taken over.
const benchMinSamples = 20

// reportLatency reports the median and 95th percentile of took, in milliseconds.
func reportLatency(b *testing.B, took []time.Duration) {
	b.Helper()
	b.ReportMetric(ms(percentile(took, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(took, 95)), "p95-ms")
	b.ReportMetric(float64(len(took)), "samples")
}

// percentile returns the nearest-rank p-th percentile of d.
func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkGrepBaseline times `grep -r -F -c` (and ripgrep, when installed) over the
// raw .jsonl logs for the term, the phrase and the rare term of BenchmarkSearch,
// and reports each grep's median against the index's median for the same query
// (x-index: how many times slower grep is). grep only counts lines; the index also
// ranks, highlights and counts facets.
func BenchmarkGrepBaseline(b *testing.B) {
	f := loadBenchFixture(b)
	info := loadBenchIndex(b, f)
	ix, err := Open(f.indexDir())
	if err != nil {
		b.Fatal(err)
	}
	ix.log = quietLogger
	b.Cleanup(func() { _ = ix.Close() })

	type tool struct {
		name string
		args func(word string) []string
	}
	tools := []tool{{"grep", func(w string) []string { return []string{"grep", "-r", "-F", "-c", "--", w, f.corpus()} }}}
	if _, err := exec.LookPath("rg"); err == nil {
		// -uu: search hidden and ignored files too, as grep -r does.
		tools = append(tools, tool{"rg", func(w string) []string { return []string{"rg", "-uu", "-F", "-c", "--", w, f.corpus()} }})
	} else {
		b.Log("rg not installed: only grep is timed")
	}
	runs := benchEnvInt(b, "LOGBOOK_BENCH_GREP_RUNS", 5)
	for _, c := range []struct{ name, word, query string }{
		{"term", benchWord, benchWord},
		{"phrase", benchPhrase, `"` + benchPhrase + `"`},
		{"rare", info.RareTerm, info.RareTerm},
	} {
		// The index's median for the same query, for the ratio.
		ctx := context.Background()
		var idx []time.Duration
		for i := 0; i <= benchMinSamples; i++ {
			start := time.Now()
			if _, err := ix.Search(ctx, Query{Text: c.query}); err != nil {
				b.Fatal(err)
			}
			if i > 0 { // the first warms the caches
				idx = append(idx, time.Since(start))
			}
		}
		indexP50 := percentile(idx, 50)
		for _, t := range tools {
			b.Run(t.name+"/"+c.name, func(b *testing.B) {
				args := t.args(c.word)
				var lines int
				took := timeRuns(b, runs, func() {
					lines = grepCount(b, args)
				})
				reportLatency(b, took)
				b.ReportMetric(float64(lines), "lines")
				b.ReportMetric(ms(indexP50), "index-p50-ms")
				b.ReportMetric(float64(percentile(took, 50))/float64(indexP50), "x-index")
			})
		}
	}
}

// grepCount runs a grep-like command printing path:count lines and sums the counts.
func grepCount(b *testing.B, args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: no match
		b.Fatalf("%s: %v: %s", strings.Join(args, " "), err, errOut.String())
	}
	n := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if i := strings.LastIndexByte(line, ':'); i >= 0 {
			c, _ := strconv.Atoi(line[i+1:])
			n += c
		}
	}
	return n
}

// BenchmarkCLISearch times the whole `logbook --data DIR search --json WORD`
// process against the fixture (index already synced): start-up, opening the
// archive and the index, the check that the index is level with the archive, the
// search and the JSON output. The target is a p50 under 150 ms.
func BenchmarkCLISearch(b *testing.B) {
	f := loadBenchFixture(b)
	info := loadBenchIndex(b, f)
	b.StopTimer()
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("go tool not found")
	}
	bin := filepath.Join(b.TempDir(), "logbook")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Dir = moduleRoot(b)
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	samples := benchSamples(b)
	for _, c := range []struct{ name, word string }{{"term", benchWord}, {"rare", info.RareTerm}} {
		b.Run(c.name, func(b *testing.B) {
			args := []string{"--data", f.data(), "search", "--json", c.word}
			var out, errOut bytes.Buffer
			took := timeRuns(b, samples, func() {
				out.Reset()
				errOut.Reset()
				cmd := exec.Command(bin, args...)
				cmd.Stdout, cmd.Stderr = &out, &errOut
				if err := cmd.Run(); err != nil {
					b.Fatalf("logbook %s: %v: %s", strings.Join(args, " "), err, errOut.String())
				}
			})
			var res struct {
				Total uint64 `json:"total"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Total == 0 {
				b.Fatalf("logbook search printed %d hits (%v): %.200s", res.Total, err, out.String())
			}
			if errOut.Len() > 0 {
				b.Fatalf("logbook search wrote to stderr: %s", errOut.String())
			}
			reportLatency(b, took)
			b.ReportMetric(float64(res.Total), "hits")
		})
	}
}

// moduleRoot returns the directory holding go.mod.
func moduleRoot(b *testing.B) string {
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			b.Fatal("go.mod not found")
		}
	}
}

// diskUsage returns the disk space the paths take, as `du -sk` reports it, or
// their apparent size where du is not available. Missing paths count zero.
func diskUsage(paths ...string) int64 {
	var existing []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			existing = append(existing, p)
		}
	}
	if len(existing) == 0 {
		return 0
	}
	if out, err := exec.Command("du", append([]string{"-sk"}, existing...)...).Output(); err == nil {
		var kb int64
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			n, err := strconv.ParseInt(strings.Fields(line)[0], 10, 64)
			if err != nil {
				kb = -1
				break
			}
			kb += n
		}
		if kb >= 0 {
			return kb << 10
		}
	}
	var n int64
	for _, p := range existing {
		_ = filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
	}
	return n
}

// resetPeakRSS clears the kernel's high-water mark of resident memory (Linux), so
// peakRSS measures only what follows.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns VmHWM in bytes, or 0 where /proc is absent.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func readJSONFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
