package archive

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSumsOfIsPrefixSums: the sums of bytes a read kept are those prefixSums reads
// back from the file, for a prefix within a chunk, at a chunk's end and past it.
func TestSumsOfIsPrefixSums(t *testing.T) {
	data := make([]byte, 2*sumChunk+sumChunk/2)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	for _, off := range []int64{0, 1, 4096, sumChunk - 1, sumChunk, sumChunk + 1, int64(len(data))} {
		want, err := prefixSums(f, off, nil, 0)
		require.NoError(t, err)
		assert.Equal(t, want, sumsOf(data[:off]), "first %d bytes", off)
	}
}
