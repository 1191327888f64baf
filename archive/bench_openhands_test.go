package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// BenchmarkImportOpenHandsSDK imports an SDK conversation folder of at least
// 5,000 event files (about the 3.4 KiB a file of the real corpus) into a fresh
// archive per iteration; MB/s is event JSON imported per second.
func BenchmarkImportOpenHandsSDK(b *testing.B) {
	ctx := context.Background()
	facts, err := openhandsgen.Generate(b.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 11, Turns: 700, PadOutput: 6500})
	require.NoError(b, err)
	require.GreaterOrEqual(b, facts.Events, 5000)
	names, err := filepath.Glob(filepath.Join(facts.Unit.Path, "events", "event-*.json"))
	require.NoError(b, err)
	var size int64
	for _, n := range names {
		fi, err := os.Stat(n)
		require.NoError(b, err)
		size += fi.Size()
	}
	b.SetBytes(size)
	b.ReportMetric(float64(len(names)), "files")
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s := archivetest.MustOpen(b)
		b.StartTimer()
		c := cpuTime()
		rep, err := s.Import(ctx, []string{facts.Unit.Path}, archive.ImportOptions{})
		cpu += cpuTime() - c
		if err != nil || len(rep.Files) != 1 || rep.Files[0].Verdict != archive.VerdictOK || rep.Files[0].LogicalEvents != int64(facts.Events) {
			b.Fatalf("import: %v %+v", err, rep)
		}
	}
	// CPU time is what a machine shared with other jobs does not distort.
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// BenchmarkRescanOpenHandsUnchanged re-imports a root of 1,000 archived SDK
// conversations none of which changed; one op is the whole re-scan.
func BenchmarkRescanOpenHandsUnchanged(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	for i := range 1000 {
		_, err := openhandsgen.Generate(root, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: uint64(1000 + i), Turns: 2})
		require.NoError(b, err)
	}
	s := archivetest.MustOpen(b)
	rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(b, err)
	require.Equal(b, 1000, rep.Summary.Changed)
	cpu := cpuTime()
	for b.Loop() {
		rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{})
		if err != nil || rep.Summary.Unchanged != 1000 {
			b.Fatalf("rescan: %v %+v", err, rep.Summary)
		}
	}
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(used.Seconds()/float64(b.N), "cpu-s/op")
	}
}
