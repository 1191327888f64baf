package archivesync_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
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

// BenchmarkSync measures, on the folder and on S3 (gofakes3 over loopback):
// the first sync of an archive (push; MB/s of session bytes), an incremental
// push after one session grew by 1 MB (bytes moved, time), and pull-and-import
// of the whole archive on a second machine (MB/s of session bytes).
//
//	LOGBOOK_SYNC_BENCH_MB=1024 go test -run '^$' -bench BenchmarkSync -benchtime 1x ./sync/archivesync
func BenchmarkSync(b *testing.B) {
	mb := benchMB(b)
	ctx := context.Background()
	remotes := []struct {
		name string
		open func(b *testing.B) arcsync.Remote
	}{
		{"folder", func(b *testing.B) arcsync.Remote { return fsremote.New(b.TempDir()) }},
		{"s3", func(b *testing.B) arcsync.Remote { return s3fake.Start(b, "bench", nil) }},
	}
	for _, rm := range remotes {
		b.Run(rm.name, func(b *testing.B) {
			for range b.N {
				// Each backend gets its own archive: the append below changes it.
				store, root, grow := benchArchive(b, mb)
				var total int64
				revs, err := store.Revisions(ctx)
				require.NoError(b, err)
				for id := range revs {
					cw := 0
					require.NoError(b, store.ExportJSONL(ctx, id, &countW{n: &cw}))
					total += int64(cw)
				}
				key, err := crypt.Generate()
				require.NoError(b, err)
				meter := &archivesync.Meter{Remote: rm.open(b)}
				a := archivesync.New(store, repo.New(meter, key), archivesync.Paths{Dir: b.TempDir()}, "a")

				t0 := time.Now()
				_, err = a.Push(ctx)
				require.NoError(b, err)
				first := time.Since(t0)
				b.ReportMetric(float64(total)/1e6/first.Seconds(), "first-push-MB/s")
				b.ReportMetric(float64(meter.Up.Load())/float64(total), "stored/plain")

				// Grow one session by about 1 MB and push again.
				appended := grow()
				_, err = store.Import(ctx, []string{root}, archive.ImportOptions{})
				require.NoError(b, err)
				up0 := meter.Up.Load()
				t0 = time.Now()
				_, err = a.Push(ctx)
				require.NoError(b, err)
				b.ReportMetric(float64(meter.Up.Load()-up0), "append-bytes-up")
				b.ReportMetric(float64(appended), "append-bytes")
				b.ReportMetric(float64(time.Since(t0).Milliseconds()), "append-push-ms")

				// A second machine pulls and imports everything.
				other := archivesync.New(archivetest.MustOpen(b), repo.New(meter.Remote, key), archivesync.Paths{Dir: b.TempDir()}, "b")
				t0 = time.Now()
				pr, err := other.Pull(ctx)
				require.NoError(b, err)
				pull := time.Since(t0)
				require.Equal(b, len(revs), pr.Pulled)
				b.ReportMetric(float64(total)/1e6/pull.Seconds(), "pull-import-MB/s")
				b.Logf("%s: %d MB archive: first push %v, +%d B append moved %d B, pull+import %v",
					rm.name, total>>20, first, appended, meter.Up.Load()-up0, pull)
			}
		})
	}
}

type countW struct{ n *int }

func (c *countW) Write(p []byte) (int, error) { *c.n += len(p); return len(p), nil }
