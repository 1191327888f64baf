package archive

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/format"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
	"github.com/logbook/logbook/internal/cputime"
)

// BenchmarkProjectOpenHandsSDK is the store's share of BenchmarkImportOpenHandsSDK:
// the records of the same conversation, read once, projected into a fresh
// archive (events, views, blocks) and committed. MB/s is the bytes the read
// read (the event and state files); the reading itself (the format's share)
// is openhands' BenchmarkReadSourceSDK.
func BenchmarkProjectOpenHandsSDK(b *testing.B) {
	ctx := context.Background()
	facts, err := openhandsgen.Generate(b.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 11, Turns: 700, PadOutput: 6500})
	require.NoError(b, err)
	rd, err := formatNamed("openhands").(format.SourceReader).ReadSource(ctx, facts.Unit.Path, nil)
	require.NoError(b, err)
	require.Equal(b, facts.Events, len(rd.Records))
	b.SetBytes(rd.Bytes)
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s, err := Open(ctx, filepath.Join(b.TempDir(), "logbook.db"))
		require.NoError(b, err)
		res, err := s.write.ExecContext(ctx, `INSERT INTO sessions (id, agent, header_raw, version, created_at, project, delegation_depth, health, updated_at)
			VALUES ('bench', 'openhands', '{}', 1, 0, '', 0, 'ok', 0)`)
		require.NoError(b, err)
		pk, err := res.LastInsertId()
		require.NoError(b, err)
		b.StartTimer()
		c := cputime.Process()
		tx, err := s.write.BeginTx(ctx, nil)
		require.NoError(b, err)
		p := newProjector(ctx, tx, s, pk, projState{})
		for i := range rd.Records {
			require.NoError(b, p.record(&rd.Records[i]))
		}
		require.NoError(b, p.flush())
		require.NoError(b, tx.Commit())
		cpu += cputime.Process() - c
		b.StopTimer()
		require.NoError(b, s.Close())
		b.StartTimer()
	}
	if cpu > 0 {
		b.ReportMetric(float64(rd.Bytes)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}
