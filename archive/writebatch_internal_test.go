package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

// smallSessions writes n small generated sessions under a new root and returns
// the root, their paths in the order an import walks them, and their bytes by
// session id.
func smallSessions(t *testing.T, n int) (string, []string, map[string][]byte) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "sessions")
	want := map[string][]byte{}
	for i := range n {
		l := dshgen.Generate(dshgen.Options{Seed: uint64(i) + 1, Cwd: fmt.Sprintf("/home/dev/project-%d", i%3),
			CreatedAt: dshgen.DefaultCreatedAt + int64(i)*60_000, Turns: 1, StepsPerTurn: 1,
			ChunkTokens: 20, ToolResultBytes: 200})
		_, err := l.WriteFile(root, false)
		require.NoError(t, err)
		want[l.ID()] = l.JSONL()
	}
	d := Discover([]string{root})
	require.Len(t, d.Files, n)
	return root, d.Files, want
}

func openTestStore(t *testing.T) *Store {
	t.Helper()
	s := New(filepath.Join(t.TempDir(), "logbook.db"))
	require.NoError(t, s.Open(context.Background()))
	t.Cleanup(func() { s.Close() })
	return s
}

// assertArchived checks that every file reported ok is archived whole.
func assertArchived(t *testing.T, s *Store, rep *ImportReport, want map[string][]byte) {
	t.Helper()
	for _, f := range rep.Files {
		if f.Verdict != VerdictOK {
			continue
		}
		var out bytes.Buffer
		if assert.NoError(t, s.ExportJSONL(context.Background(), f.SessionID, &out), "%s is reported ok", f.Path) {
			assert.Equal(t, string(want[f.SessionID]), out.String(), "%s is archived whole", f.Path)
		}
	}
}

// failOn makes the import of the file path fail half way (its records
// written, its totals not), as a fault would.
func failOn(s *Store, path string) {
	s.importFault = func(p string) error {
		if p == path {
			return errors.New("injected fault")
		}
		return nil
	}
}

// TestImportBatch covers the write transaction that the small new files of an
// import share (writeBatch).
func TestImportBatch(t *testing.T) {
	ctx := context.Background()

	t.Run("AFileThatFailsSpoilsNoOther", func(t *testing.T) {
		// A fault in the middle of one file (its records written, its totals not)
		// rolls back the batch it was in: the files before and after it are still
		// archived and reported as without it, and it alone is failed and read again
		// by the next import.
		root, paths, want := smallSessions(t, 12)
		s := openTestStore(t)
		bad := paths[5]
		failOn(s, bad)
		rep, err := s.Import(ctx, []string{root}, ImportOptions{})
		require.NoError(t, err)
		require.Len(t, rep.Files, len(paths))
		for _, f := range rep.Files {
			if f.Path == bad {
				assert.Equal(t, VerdictFailed, f.Verdict)
				if assert.NotNil(t, f.Error) {
					assert.Contains(t, f.Error.Message, "injected fault")
				}
				continue
			}
			assert.Equal(t, VerdictOK, f.Verdict, "%s: %+v", f.Path, f.Error)
			assert.Equal(t, "new", f.Action, f.Path)
			assert.Equal(t, int64(len(want[f.SessionID])), f.Bytes, f.Path)
		}
		assert.Equal(t, 11, rep.Summary.OK)
		assert.Equal(t, 1, rep.Summary.Failed)
		assertArchived(t, s, rep, want)
		files, err := s.Files(ctx)
		require.NoError(t, err)
		assert.Len(t, files, 11, "the failed file is not recorded: the next import reads it again")

		s.importFault = nil
		rep, err = s.Import(ctx, []string{root}, ImportOptions{})
		require.NoError(t, err)
		for _, f := range rep.Files {
			assert.Equal(t, VerdictOK, f.Verdict, "%s: %+v", f.Path, f.Error)
			assert.Equal(t, f.Path == bad, f.Changed, "only the failed file is read again: %s", f.Path)
		}
		assertArchived(t, s, rep, want)
	})

	t.Run("NamesCommittedSessions", func(t *testing.T) {
		// CommittedSessions names each session an import changed once, after the
		// commit that holds it: a batch's sessions when the batch commits, a large
		// file's after its own transaction, a lost batch's when each is imported
		// again; never the file that failed.
		root, paths, want := smallSessions(t, 12)
		large := dshgen.Generate(dshgen.Options{Seed: 99, Cwd: "/home/dev/large", Turns: 12, ToolResultBytes: 40_000})
		largePath, err := large.WriteFile(root, false)
		require.NoError(t, err)
		require.Greater(t, large.Size(), int64(batchFileBytes), "the large file is imported on its own")
		want[large.ID()] = large.JSONL()
		s := openTestStore(t)
		bad := paths[5]
		failOn(s, bad)
		named := map[string]int{}
		opts := ImportOptions{CommittedSessions: func(ids []string) {
			revs, err := s.Revisions(ctx) // another connection: sees only what is committed
			require.NoError(t, err)
			for _, id := range ids {
				named[id]++
				assert.Positive(t, revs[id], "%s is named once its import is committed", id)
			}
		}}
		rep, err := s.Import(ctx, []string{root}, opts)
		require.NoError(t, err)
		changed := map[string]int{}
		for _, f := range rep.Files {
			if f.Changed {
				changed[f.SessionID] = 1
			}
			assert.Equal(t, f.Path == bad, f.Verdict == VerdictFailed, f.Path)
		}
		assert.Len(t, changed, 12, "eleven small sessions and the large one")
		assert.Equal(t, changed, named, "each changed session is named once")
		assert.Contains(t, named, large.ID(), "%s, imported on its own, is named", largePath)
		assertArchived(t, s, rep, want)

		s.importFault = nil
		clear(named)
		rep, err = s.Import(ctx, []string{root}, opts)
		require.NoError(t, err)
		var failed string
		for _, f := range rep.Files {
			if f.Path == bad {
				failed = f.SessionID
			}
		}
		assert.Equal(t, map[string]int{failed: 1}, named, "unchanged files are not named; the one read again is")
	})

	t.Run("ReportsMatchUnbatched", func(t *testing.T) {
		// A file's report is the same whether its file was imported in a batch or
		// alone.
		root, paths, _ := smallSessions(t, 6)
		batched := openTestStore(t)
		rep, err := batched.Import(ctx, []string{root}, ImportOptions{})
		require.NoError(t, err)
		alone := openTestStore(t)
		for i, p := range paths {
			fr := alone.ImportFile(ctx, p, ImportOptions{})
			assert.Equal(t, fr, rep.Files[i], p)
		}
	})

	t.Run("CancelledKeepsWhatItReported", func(t *testing.T) {
		// An import stopped between files commits the files it reported done: none
		// is lost, and the next import reads only the rest.
		root, paths, want := smallSessions(t, 10)
		s := openTestStore(t)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		rep, err := s.Import(cctx, []string{root}, ImportOptions{Progress: func(p Progress) {
			if p.File == paths[6] {
				cancel()
			}
		}})
		require.ErrorIs(t, err, context.Canceled)
		done := 0
		for _, f := range rep.Files {
			if f.Verdict == VerdictOK {
				done++
			}
		}
		// Files are begun up to two ahead of the one being written (readAheadFiles).
		require.GreaterOrEqual(t, done, 6-readAheadFiles, "the files before the cancellation are done")
		require.Less(t, done, len(paths))
		assertArchived(t, s, rep, want)

		// Reopened, as after the process ended.
		require.NoError(t, s.Close())
		s = New(s.Path)
		require.NoError(t, s.Open(ctx))
		rep2, err := s.Import(ctx, []string{root}, ImportOptions{})
		require.NoError(t, err)
		reread := 0
		for _, f := range rep2.Files {
			assert.Equal(t, VerdictOK, f.Verdict, "%s: %+v", f.Path, f.Error)
			if f.Changed {
				reread++
			}
		}
		assert.Equal(t, len(paths)-done, reread, "only the files not reported done are read again")
		assertArchived(t, s, rep2, want)
	})
}
