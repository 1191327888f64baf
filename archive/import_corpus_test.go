package archive_test

import (
	"bytes"
	"context"
	"os"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
)

func TestImportRealCorpus(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	path := archivetest.Corpus(t, archivetest.RealLog)

	rep, err := s.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Files, 1)
	f := rep.Files[0]
	assert.Equal(t, dsh.VerdictOK, f.Verdict, "%+v", f.Error)
	assert.Nil(t, f.Error)
	assert.EqualValues(t, 87208, f.LogicalEvents)
	assert.EqualValues(t, 87207, f.LastSeq)
	assert.EqualValues(t, 5349, f.Records)
	assert.True(t, f.Changed)
	assert.Equal(t, "session-2d7d25bf-c4f9-4dcd-911b-f75be0cc8885", f.SessionID)
	kinds := map[dsh.Kind]int{}
	for _, w := range f.Warnings {
		kinds[w.Kind]++
	}
	assert.Equal(t, 1, kinds[dsh.KindInterruptedTail], "the final turn is open: %v", f.Warnings)

	// Export is byte-identical to the decompressed original.
	var out bytes.Buffer
	require.NoError(t, s.ExportJSONL(ctx, f.SessionID, &out))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	dec, _ := zstd.NewReader(nil)
	want, err := dec.DecodeAll(raw, nil)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, out.Bytes()), "export differs: got %d bytes, want %d", out.Len(), len(want))

	sess, err := s.Session(ctx, f.SessionID)
	require.NoError(t, err)
	assert.Equal(t, "ok", sess.Health)
	assert.EqualValues(t, 8, sess.Turns)
	assert.EqualValues(t, 136, sess.ToolCalls)
	assert.Contains(t, sess.Models, "deepseek-official/deepseek-v4-flash")
	assert.NotEmpty(t, sess.Title)
	assert.Greater(t, sess.Tokens.Input, int64(0))

	calls, err := s.ToolCalls(ctx, f.SessionID)
	require.NoError(t, err)
	require.Len(t, calls, 136)
	paired := 0
	for _, c := range calls {
		if c.Output != nil {
			paired++
		}
	}
	assert.Equal(t, 135, paired, "one call in the open final turn has no result")

	// Re-importing the unchanged file writes nothing.
	rep2, err := s.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	assert.False(t, rep2.Files[0].Changed)
	assert.Equal(t, "unchanged", rep2.Files[0].Action)
	assert.EqualValues(t, 87208, rep2.Files[0].LogicalEvents)
}

// TestImportManyFilesOverlapped imports a corpus of new sessions, each begun while
// the one before it is still being written, and checks the result against
// importing the files one by one, and that progress reports never overlap and move
// forward file by file.
func TestImportManyFilesOverlapped(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, err := dshgen.WriteCorpus(root, dshgen.CorpusOptions{Seed: 11, Sessions: 8, TargetBytes: 8 << 20, Compressed: true})
	require.NoError(t, err)

	var inFlight atomic.Int32
	var calls []archive.Progress
	progress := func(p archive.Progress) {
		if inFlight.Add(1) != 1 {
			t.Error("two progress reports at once")
		}
		calls = append(calls, p)
		inFlight.Add(-1)
	}
	s := archivetest.MustOpen(t)
	rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{Progress: progress})
	require.NoError(t, err)
	require.Equal(t, st.Sessions, rep.Summary.OK, "%+v", rep.Summary)
	for i := 1; i < len(calls); i++ {
		assert.GreaterOrEqual(t, calls[i].FileIndex, calls[i-1].FileIndex, "progress moves forward file by file")
	}

	one := archivetest.MustOpen(t)
	for _, f := range rep.Files {
		fr := one.ImportFile(ctx, f.Path, archive.ImportOptions{})
		assert.Equal(t, f.Verdict, fr.Verdict)
		assert.Equal(t, f.Records, fr.Records)
		assert.Equal(t, f.LogicalEvents, fr.LogicalEvents)
		assert.Equal(t, f.Warnings, fr.Warnings)
		assert.Equal(t, exportOf(t, one, f.SessionID), exportOf(t, s, f.SessionID))
	}
}
