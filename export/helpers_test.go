package export_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/exporttest"
)

// realLog is the real 87k-event DeepSeek-harness session in the shared corpus.
const realLog = "/work/shared/corpus/dsh/wzx123188-deepseekharness/session.jsonl.zstd"

// openStore opens a new archive in a temporary directory.
func openStore(t testing.TB) *archive.Store {
	t.Helper()
	s := archive.New(filepath.Join(t.TempDir(), "logbook.db"))
	require.NoError(t, s.Open(context.Background()))
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// importLogs writes logs under a temporary root, imports it and returns the ids.
func importLogs(t testing.TB, s *archive.Store, logs ...*dshgen.Log) []string {
	t.Helper()
	root := t.TempDir()
	var ids []string
	for _, l := range logs {
		_, err := l.WriteFile(root, false)
		require.NoError(t, err)
		ids = append(ids, l.ID())
	}
	_, err := s.Import(context.Background(), []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	return ids
}

// importReal imports the real log into s and returns its session id; it skips
// when the corpus is absent, except in CI.
func importReal(t testing.TB, s *archive.Store) string {
	t.Helper()
	if _, err := os.Stat(realLog); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the real log is missing in CI: %v", err)
		}
		t.Skip("real log not present: " + realLog)
	}
	rep, err := s.Import(context.Background(), []string{filepath.Dir(realLog)}, archive.ImportOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Files)
	require.NotEmpty(t, rep.Files[0].SessionID)
	return rep.Files[0].SessionID
}

// load reads a session's transcript.
func load(t testing.TB, s *archive.Store, id string) *export.Transcript {
	t.Helper()
	tr, err := export.Load(context.Background(), s, id)
	require.NoError(t, err)
	return tr
}

// hostile is exporttest.Hostile.
func hostile() *dshgen.Log { return exporttest.Hostile("session-hostile") }
