package dsh_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
)

// corpusPath locates a file of the shared corpus beside the checkout (../shared),
// skipping the test when it is absent.
func corpusPath(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join("..", "..", "..", "shared", "corpus", rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared corpus not available: %v", err)
	}
	return p
}

const realLog = "dsh/wzx123188-deepseekharness/session.jsonl.zstd"

// sampleLines returns every line of the real log, a generated log of every
// event family and the plain (uncompressed) malformation catalogue: the lines
// a fast path is held to its general path on. The test is skipped when the
// shared corpus is absent.
func sampleLines(t *testing.T) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(corpusPath(t, realLog))
	require.NoError(t, err)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	plain, err := dec.DecodeAll(raw, nil)
	dec.Close()
	require.NoError(t, err)
	lines := bytes.Split(plain, []byte("\n"))
	lines = append(lines, dshgen.Generate(dshgen.Options{Seed: 3, Turns: 6, Families: dshgen.AllFamilies}).Lines()...)
	for _, c := range dshgen.Malformations() {
		if !c.Compressed {
			lines = append(lines, bytes.Split(c.Data, []byte("\n"))...)
		}
	}
	return lines
}

func TestReaderRealCorpus(t *testing.T) {
	f, err := os.Open(corpusPath(t, realLog))
	require.NoError(t, err)
	defer f.Close()

	r := dsh.NewReader(f, true, dsh.Options{})
	defer r.Close()
	var logical bytes.Buffer
	h, err := r.Header()
	require.NoError(t, err)
	require.NotNil(t, h, "%+v", r.Result().Problem)
	logical.Write(h.Raw)
	logical.WriteByte('\n')
	events, packed := 0, 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		logical.Write(rec.Raw)
		logical.WriteByte('\n')
		events += len(rec.Events)
		if rec.Packed != "" {
			packed++
		}
	}
	res := r.Result()
	assert.Equal(t, dsh.VerdictOK, res.Verdict, "%+v", res.Problem)
	assert.Equal(t, 87208, events)
	assert.EqualValues(t, 87207, res.LastSeq)
	assert.Equal(t, 2064+924+363, packed)
	assert.Equal(t, "session-2d7d25bf-c4f9-4dcd-911b-f75be0cc8885", h.ID)
	assert.Equal(t, `G:\dsh客户端`, h.Cwd)

	// The logical stream must equal a plain decompression of the whole file.
	raw, err := os.ReadFile(corpusPath(t, realLog))
	require.NoError(t, err)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	want, err := dec.DecodeAll(raw, nil)
	require.NoError(t, err)
	assert.Equal(t, len(want), logical.Len())
	assert.True(t, bytes.Equal(want, logical.Bytes()), "logical stream differs from zstd -dc")
	assert.EqualValues(t, len(raw), res.Committed.Offset)
	assert.Equal(t, 3759, res.Committed.Frame)
}
