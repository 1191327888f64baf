package dshgen

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// CorpusOptions configures WriteCorpus.
type CorpusOptions struct {
	Seed        uint64
	Sessions    int    // number of sessions; default 2000
	TargetBytes int64  // total logical (JSONL) bytes to reach at least; default 1 GiB
	Compressed  bool   // write session.jsonl.zstd instead of session.jsonl
	Workers     int    // parallel writers; default GOMAXPROCS
	Projects    int    // distinct cwds (POSIX and Windows, some non-ASCII); default 16
	Families    Family // 0 = AllFamilies
	HugeLine    bool   // session 0 carries a tool result larger than 2 MiB
	BatchLines  int    // see Options.BatchLines
	// ChunkTokens and ToolResultBytes shape every session (see Options); zero keeps
	// the defaults, which make short turns with many small events.
	ChunkTokens     int
	ToolResultBytes int
	// ZstdLevel is the compression level of .zstd sessions; 0 = zstd.SpeedFastest
	// (dsh uses the default level; the level does not change what a reader sees).
	ZstdLevel zstd.EncoderLevel
}

// CorpusStats summarises a written corpus.
type CorpusStats struct {
	Sessions     int
	Events       int64
	LogicalBytes int64    // decompressed JSONL bytes over all sessions
	FileBytes    int64    // bytes written to disk
	Paths        []string // session files relative to the root, in session order
}

// corpusCwd returns the cwd of project p (every 16th project has no cwd).
func corpusCwd(p int) string {
	n := strconv.Itoa(p)
	switch p % 8 {
	case 0:
		return "/home/dev/project-" + n
	case 1:
		return `G:\dsh客户端\proj-` + n
	case 2:
		return "/Users/李雷/代码/app" + n
	case 3:
		return `C:\Users\me\🚀rocket-` + n
	case 4:
		return "/srv/repos/a.b_c-" + n
	case 5:
		return `D:\work\~tilde` + n
	case 6:
		if p%16 == 6 {
			return ""
		}
		return "/tmp/spaces in path " + n
	default:
		return "/home/u/проект-" + n
	}
}

// mix64 is splitmix64, used to derive per-session seeds.
func mix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// WriteCorpus writes opts.Sessions generated sessions under root at their dsh paths,
// streaming each one to disk (memory stays bounded even for a single huge session),
// until together they hold at least opts.TargetBytes logical bytes. Session sizes are
// skewed (exponential weights). Output is deterministic for a given opts.
func WriteCorpus(root string, opts CorpusOptions) (CorpusStats, error) {
	if opts.Sessions <= 0 {
		opts.Sessions = 2000
	}
	if opts.TargetBytes <= 0 {
		opts.TargetBytes = 1 << 30
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Projects <= 0 {
		opts.Projects = 16
	}
	if opts.ZstdLevel == 0 {
		opts.ZstdLevel = zstd.SpeedFastest
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return CorpusStats{}, fmt.Errorf("dshgen: create corpus root: %w", err)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0xC0FFEE))
	weights := make([]float64, opts.Sessions)
	var total float64
	for i := range weights {
		weights[i] = 0.25 + rng.ExpFloat64()
		total += weights[i]
	}
	results := make([]sessionResult, opts.Sessions)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range min(opts.Workers, opts.Sessions) {
		wg.Go(func() {
			enc, err := newEncoder(opts.ZstdLevel)
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				for range jobs {
				}
				return
			}
			defer enc.Close()
			for i := range jobs {
				target := int64(float64(opts.TargetBytes)*weights[i]/total) + 1
				res, err := writeCorpusSession(root, i, target, opts, enc)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				stop := firstErr != nil
				mu.Unlock()
				results[i] = res
				if stop {
					for range jobs {
					}
					return
				}
			}
		})
	}
	for i := range opts.Sessions {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return CorpusStats{}, firstErr
	}
	stats := CorpusStats{Sessions: opts.Sessions, Paths: make([]string, opts.Sessions)}
	for i, r := range results {
		stats.Events += r.events
		stats.LogicalBytes += r.logical
		stats.FileBytes += r.physical
		stats.Paths[i] = r.rel
	}
	return stats, nil
}

// sessionResult is what one streamed session contributed.
type sessionResult struct {
	rel                       string
	events, logical, physical int64
}

// writeCorpusSession streams session i to disk.
func writeCorpusSession(root string, i int, target int64, opts CorpusOptions, enc *zstd.Encoder) (sessionResult, error) {
	seed := mix64(opts.Seed ^ mix64(uint64(i)+1))
	o := Options{
		Seed:        seed,
		Cwd:         corpusCwd(int(mix64(seed) % uint64(opts.Projects))),
		CreatedAt:   DefaultCreatedAt + int64(i)*37*60_000,
		Turns:       4,
		TargetBytes: target,
		Families:    opts.Families,
		HugeLine:    opts.HugeLine && i == 0,
		BatchLines:  opts.BatchLines,

		ChunkTokens:     opts.ChunkTokens,
		ToolResultBytes: opts.ToolResultBytes,
	}
	if i%10 == 3 {
		o.AgentPreset = "standard"
	}
	f, err := os.CreateTemp(root, ".dshgen-*")
	if err != nil {
		return sessionResult{}, fmt.Errorf("dshgen: create temp file for session %d: %w", i, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	snk := &streamSink{w: bw}
	if opts.Compressed {
		snk.enc = enc
	}
	s := newSession(o, snk)
	s.writeHeader(-1)
	s.play()
	s.finish()
	werr := snk.err
	if werr == nil {
		if err := bw.Flush(); err != nil {
			werr = fmt.Errorf("dshgen: flush session %d: %w", i, err)
		}
	}
	if err := f.Close(); err != nil && werr == nil {
		werr = fmt.Errorf("dshgen: close session %d: %w", i, err)
	}
	rel, err := sessionPath(o.Cwd, s.o.ID, opts.Compressed)
	if werr == nil && err != nil {
		werr = err
	}
	if werr == nil {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			werr = fmt.Errorf("dshgen: create session dir: %w", err)
		} else if err := os.Rename(f.Name(), path); err != nil {
			werr = fmt.Errorf("dshgen: move session %d into place: %w", i, err)
		}
	}
	if werr != nil {
		os.Remove(f.Name())
		return sessionResult{}, werr
	}
	return sessionResult{rel: rel, events: s.seq, logical: snk.logical, physical: snk.physical}, nil
}
