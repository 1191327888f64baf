package redact_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/export/redact"
	"github.com/logbook/logbook/export/redact/secretgen"
	"github.com/logbook/logbook/internal/cputime"
)

// benchScan scans docs b.N times and reports throughput: MB/s by the wall clock, and
// cpu-MB/s by the CPU time used, which is what to read on a shared machine (wall MB/s on
// an idle machine with GOMAXPROCS cores is about cpu-MB/s times the cores).
func benchScan(b *testing.B, docs []redact.Doc, opts redact.Options) {
	s, err := redact.NewScanner(opts)
	require.NoError(b, err)
	var n int64
	for _, d := range docs {
		n += int64(len(d.Text))
	}
	b.SetBytes(n)
	cpu0 := cputime.Process()
	for b.Loop() {
		_, err := s.Scan(context.Background(), docs)
		require.NoError(b, err)
	}
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

// BenchmarkScanGenerated10MB is the budget: 10 MB of session text in under 1 s.
func BenchmarkScanGenerated10MB(b *testing.B) {
	c := secretgen.Generate(1, 10<<20)
	benchScan(b, c.Docs, redact.Options{UserNames: c.UserNames})
}

func BenchmarkScanRealLog(b *testing.B) {
	docs := realLogDocs(b)
	benchScan(b, docs, redact.Options{})
}

// BenchmarkRedactGenerated10MB redacts every finding of 10 MB of generated text.
func BenchmarkRedactGenerated10MB(b *testing.B) {
	c := secretgen.Generate(1, 10<<20)
	s, err := redact.NewScanner(redact.Options{UserNames: c.UserNames})
	require.NoError(b, err)
	r, err := s.Scan(context.Background(), c.Docs)
	require.NoError(b, err)
	rd := r.Redactor(redact.Decisions{})
	b.SetBytes(r.Bytes)
	for b.Loop() {
		for _, d := range c.Docs {
			rd.Redact(d)
		}
	}
}
