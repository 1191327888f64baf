package index

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

// TestSearchAfterInvalidUTF8 imports a session whose first prompt has invalid
// UTF-8 in the middle (the archive keeps the bytes as they are) and searches for
// the words on both sides of it. The word segmenter used to stop at the first
// invalid byte, so every later word of the block was missing from the index.
func TestSearchAfterInvalidUTF8(t *testing.T) {
	ctx := context.Background()
	path, err := dshgen.Generate(genOptions[0]).WriteFile(t.TempDir(), false)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.Split(data, []byte("\n"))
	changed := false
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"type":"user/message"`)) && bytes.Contains(l, []byte(`"kind":"user"`)) {
			lines[i] = bytes.Replace(l, []byte(`"text":"`), []byte("\"text\":\"marker_before bad \xff\xfe\xc3 marker_invalidutf getUserName "), 1)
			changed = true
			break
		}
	}
	require.True(t, changed, "the generated session has a user prompt")
	require.NoError(t, os.WriteFile(path, bytes.Join(lines, []byte("\n")), 0o644))

	s := archivetest.MustOpen(t)
	fr := s.ImportFile(ctx, path, archive.ImportOptions{})
	require.Nil(t, fr.Error)
	var stored string
	_, err = s.SessionBlocks(ctx, fr.SessionID, func(b archive.Block) error {
		if strings.Contains(b.Text, "marker_before") {
			stored = b.Text
		}
		return nil
	})
	require.NoError(t, err)
	require.False(t, utf8.ValidString(stored), "the archive keeps the invalid bytes, so the index sees them")

	ix := openIndex(t)
	_, err = ix.Sync(ctx, s, nil)
	require.NoError(t, err)
	for _, q := range []string{"marker_before", "marker_invalidutf", "invalidutf", "getusername", `"bad marker_invalidutf"`} {
		res, err := ix.Search(ctx, Query{Text: q})
		require.NoError(t, err)
		if assert.Len(t, res.Hits, 1, q) {
			assert.Equal(t, fr.SessionID, res.Hits[0].SessionID)
			for _, f := range res.Hits[0].Fragments {
				assert.True(t, utf8.ValidString(f), "fragment %q", f)
			}
		}
	}
	res, err := ix.Search(ctx, Query{Text: "marker_invalidutf"})
	require.NoError(t, err)
	require.Len(t, res.Hits, 1)
	assert.Contains(t, strings.Join(res.Hits[0].Fragments, " "), "bad \uFFFD <mark>marker_invalidutf</mark>",
		"the fragment shows the run of invalid bytes as a replacement character")
}

// TestFragmentsAroundReplacementCharacter: Bleve's fragmenter dropped every
// fragment that reached a U+FFFD, as it decodes like an invalid byte.
func TestFragmentsAroundReplacementCharacter(t *testing.T) {
	ctx := context.Background()
	ix := openIndex(t)
	_, err := ix.Sync(ctx, texts("a lossy \uFFFD\uFFFD tool output with needle inside", "plain needle"), nil)
	require.NoError(t, err)
	res, err := ix.Search(ctx, Query{Text: "needle", Sort: SortRecent})
	require.NoError(t, err)
	got := map[string][]string{}
	for _, h := range res.Hits {
		got[h.ID] = h.Fragments
	}
	assert.Equal(t, map[string][]string{
		"b0": {"a lossy \uFFFD\uFFFD tool output with <mark>needle</mark> inside"},
		"b1": {"plain <mark>needle</mark>"},
	}, got)
}
