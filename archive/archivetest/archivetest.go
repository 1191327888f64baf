// Package archivetest holds helpers for tests that need a real archive.
package archivetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook/logbook/archive"
)

// MustOpen opens a fresh archive in a temporary directory, closed when the test ends.
func MustOpen(tb testing.TB) *archive.Store {
	tb.Helper()
	s, err := archive.Open(context.Background(), filepath.Join(tb.TempDir(), "logbook.db"))
	if err != nil {
		tb.Fatalf("open archive: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// Corpus returns the path of a file in the shared corpus beside the checkout
// (../shared/corpus from the repository root), skipping the test when it is absent.
func Corpus(tb testing.TB, rel string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "..", "shared", "corpus", rel)
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if _, err := os.Stat(p); err != nil {
				tb.Skipf("shared corpus not available at %s", p)
			}
			return p
		}
		if filepath.Dir(d) == d {
			tb.Skip("repository root not found")
		}
	}
}

// RealLog is the real 87,208-event dsh V0 log in the shared corpus.
const RealLog = "dsh/wzx123188-deepseekharness/session.jsonl.zstd"
