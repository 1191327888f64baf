package export_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/redact"
)

// BenchmarkRealLog times each export of the real 87k-event log: loading its
// timeline, writing each format, and scanning every exported text (MB/s over the
// texts' bytes).
func BenchmarkRealLog(b *testing.B) {
	s := openStore(b)
	id := importReal(b, s)
	ctx := context.Background()
	tr := load(b, s, id)
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			_, err := export.Load(ctx, s, id)
			require.NoError(b, err)
		}
	})
	b.Run("md", func(b *testing.B) {
		for b.Loop() {
			require.NoError(b, export.WriteMarkdown(io.Discard, tr))
		}
	})
	b.Run("html", func(b *testing.B) {
		for b.Loop() {
			require.NoError(b, export.WriteHTML(io.Discard, tr))
		}
	})
	b.Run("jsonl", func(b *testing.B) {
		for b.Loop() {
			require.NoError(b, s.ExportJSONL(ctx, id, io.Discard))
		}
	})
	docs := tr.Docs()
	var n int64
	for _, d := range docs {
		n += int64(len(d.Text))
	}
	b.Run("scan", func(b *testing.B) {
		sc, err := redact.NewScanner(redact.Options{})
		require.NoError(b, err)
		b.SetBytes(n)
		for b.Loop() {
			_, err := sc.Scan(ctx, docs)
			require.NoError(b, err)
		}
	})
	b.Run("redact-md", func(b *testing.B) {
		sc, err := redact.NewScanner(redact.Options{})
		require.NoError(b, err)
		for b.Loop() {
			rep, err := sc.Scan(ctx, docs)
			require.NoError(b, err)
			require.NoError(b, export.WriteMarkdown(io.Discard, tr.Redacted(rep.Redactor(redact.Decisions{}))))
		}
	})
}
