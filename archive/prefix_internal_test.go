package archive

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
)

// TestSmallFileSumsAreTheFilesSums: the prefix sums a small file's import takes
// from the bytes it read are those prefixSums reads back from the file, for a
// file imported whole and for one whose torn last line is left out.
func TestSmallFileSumsAreTheFilesSums(t *testing.T) {
	ctx := context.Background()
	s := New(filepath.Join(t.TempDir(), "a.db"))
	require.NoError(t, s.Open(ctx))
	defer s.Close()
	l := dshgen.Generate(dshgen.Options{Seed: 3, Turns: 1, StepsPerTurn: 1, ChunkTokens: 20, ToolResultBytes: 200})
	whole, err := l.WriteFile(filepath.Join(t.TempDir(), "sessions"), false)
	require.NoError(t, err)
	torn := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(torn, append(l.JSONL(), `{"type":"turn/start","seq":9`...), 0o600))

	for _, path := range []string{whole, torn} {
		fr := s.ImportFile(ctx, path, ImportOptions{})
		require.Contains(t, []Verdict{VerdictOK, VerdictRecovered}, fr.Verdict, "%s: %+v", path, fr.Error)
		row, err := s.fileRow(ctx, path)
		require.NoError(t, err)
		require.NotNil(t, row)
		off, ok := dsh.Format{}.Offset([]byte(row.cursorRaw))
		require.True(t, ok)
		f, err := os.Open(path)
		require.NoError(t, err)
		want, err := prefixSums(f, off, nil, 0)
		f.Close()
		require.NoError(t, err)
		assert.Equal(t, want, row.sums, "%s (%d bytes imported)", path, off)
	}
}
