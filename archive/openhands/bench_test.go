package openhands_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// BenchmarkReadSDK reads SDK folders of at least 5,000 event files: "small"
// has about 1 KiB a file, "corpus" about the 3.4 KiB a file of the real
// corpus. MB/s is event JSON read, decoded, hashed and kept per second of
// wall time; MB/cpu-s per second of this process's CPU time, which a
// machine shared with other jobs does not distort.
func BenchmarkReadSDK(b *testing.B) {
	for _, bc := range []struct {
		name string
		pad  int
	}{{"small", 1200}, {"corpus", 6500}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			facts, err := openhandsgen.Generate(b.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 11, Turns: 700, PadOutput: bc.pad})
			require.NoError(b, err)
			c, err := openhands.Read(ctx, facts.Unit)
			require.NoError(b, err)
			require.GreaterOrEqual(b, len(c.Records), 5000)
			var size int64
			for _, f := range c.Files {
				if f.Role == openhands.RoleEvent {
					size += f.Size
				}
			}
			b.SetBytes(size)
			b.ResetTimer()
			cpu := cpuTime()
			for b.Loop() {
				c, err := openhands.Read(ctx, facts.Unit)
				if err != nil || len(c.Records) != facts.Events {
					b.Fatalf("read: %v, %d records", err, len(c.Records))
				}
			}
			if used := cpuTime() - cpu; used > 0 {
				b.ReportMetric(float64(size)*float64(b.N)/used.Seconds()/1e6, "MB/cpu-s")
			}
			b.ReportMetric(float64(len(c.Records)), "events")
			b.ReportMetric(float64(size)/float64(len(c.Records)), "B/event")
		})
	}
}

// BenchmarkRescanUnchanged discovers 1,000 SDK conversations and checks each
// against its snapshot by stat alone; one op is the whole re-scan.
func BenchmarkRescanUnchanged(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	snaps := map[string]openhands.Snapshot{}
	files := 0
	for i := range 1000 {
		facts, err := openhandsgen.Generate(root, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: uint64(1000 + i), Turns: 2})
		require.NoError(b, err)
		c, err := openhands.Read(ctx, facts.Unit)
		require.NoError(b, err)
		snaps[facts.Unit.Path] = c.Snapshot()
		files += len(c.Files)
	}
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		units, err := openhands.Discover(ctx, []string{root})
		if err != nil || len(units) != 1000 {
			b.Fatalf("discover: %v, %d units", err, len(units))
		}
		for _, u := range units {
			changed, err := openhands.Changed(ctx, snaps[u.Path])
			if err != nil || changed {
				b.Fatalf("%s changed=%v err=%v", u.Path, changed, err)
			}
		}
	}
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(used.Seconds()/float64(b.N), "cpu-s/op")
	}
	b.ReportMetric(float64(files), "files")
}

// BenchmarkReadSourceSDK is what an import asks of the format for an SDK
// folder of 5,000 event files of the corpus's size: read, decode and project
// every event (format.SourceReader.ReadSource from no stamp).
func BenchmarkReadSourceSDK(b *testing.B) {
	ctx := context.Background()
	facts, err := openhandsgen.Generate(b.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 11, Turns: 700, PadOutput: 6500})
	require.NoError(b, err)
	rd, err := openhands.Format{}.ReadSource(ctx, facts.Unit.Path, nil)
	require.NoError(b, err)
	var size int64
	for _, f := range rd.Files {
		if f.Role == string(openhands.RoleEvent) {
			size += f.Size
		}
	}
	b.SetBytes(size)
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		rd, err := openhands.Format{}.ReadSource(ctx, facts.Unit.Path, nil)
		if err != nil || rd.Events != int64(facts.Events) {
			b.Fatalf("read: %v", err)
		}
	}
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/used.Seconds()/1e6, "MB/cpu-s")
	}
}
