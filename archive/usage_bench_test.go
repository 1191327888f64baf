package archive_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

// benchArchive is an archive of 500 generated sessions (about 20 MB of logs) in
// 10 projects, for the dashboard and sessions-list queries.
func benchArchive(b *testing.B) *archive.Store {
	b.Helper()
	s := archivetest.MustOpen(b)
	root := b.TempDir()
	_, err := dshgen.WriteCorpus(root, dshgen.CorpusOptions{Seed: 21, Sessions: 500, TargetBytes: 20 << 20, Projects: 10})
	require.NoError(b, err)
	_, err = s.Import(context.Background(), []string{root}, archive.ImportOptions{})
	require.NoError(b, err)
	return s
}

// BenchmarkUsage is the usage dashboard over the whole archive.
func BenchmarkUsage(b *testing.B) {
	s := benchArchive(b)
	b.ResetTimer()
	for range b.N {
		if _, err := s.Usage(context.Background(), archive.UsageFilter{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionGists is the sessions list's gists of every session.
func BenchmarkSessionGists(b *testing.B) {
	s := benchArchive(b)
	b.ResetTimer()
	for range b.N {
		if _, err := s.SessionGists(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
