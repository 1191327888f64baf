package export_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
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
	b.Run("bundle", func(b *testing.B) {
		for b.Loop() {
			bw := export.NewBundleWriter(io.Discard, "bench", nil)
			require.NoError(b, bw.Add(ctx, s, tr))
			require.NoError(b, bw.Close())
		}
	})
	// bundle-import: check and unpack a bundle of the real log, then import its
	// source into a fresh archive (the index aside).
	bundle := filepath.Join(b.TempDir(), "real.logbook")
	f, err := os.Create(bundle)
	require.NoError(b, err)
	bw := export.NewBundleWriter(f, "bench", nil)
	require.NoError(b, bw.Add(ctx, s, tr))
	require.NoError(b, bw.Close())
	require.NoError(b, f.Close())
	b.Run("bundle-import", func(b *testing.B) {
		for b.Loop() {
			bd, err := export.OpenBundle(bundle)
			require.NoError(b, err)
			dir := filepath.Join(b.TempDir(), "unpacked")
			u, err := bd.Unpack(ctx, dir)
			require.NoError(b, err)
			require.Empty(b, u.Faults)
			require.NoError(b, bd.Close())
			fresh := openStore(b)
			rep, err := fresh.Import(ctx, []string{filepath.Join(dir, filepath.FromSlash(bd.Manifest.Sessions[0].Source))}, archive.ImportOptions{})
			require.NoError(b, err)
			require.Equal(b, archive.VerdictOK, rep.Files[0].Verdict)
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
