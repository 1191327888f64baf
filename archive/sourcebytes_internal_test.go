package archive

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFileLayout holds a file kept as its record and its layout to its bytes:
// every whitespace a JSON file may add to its one-line record comes back, in
// the fewest bytes for the indented form; a file that differs in anything else
// has no layout, and a damaged layout is an error, never other bytes.
func TestFileLayout(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	defer enc.Close()
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	doc := []byte(`{"id":"a b","kind":"MessageEvent","list":[1,{"x":[]},{}],"text":"line\nnext  two"}`)
	indented := func(indent, tail string) []byte {
		var b bytes.Buffer
		require.NoError(t, json.Indent(&b, doc, "", indent))
		return append(b.Bytes(), tail...)
	}
	for _, c := range []struct {
		name   string
		file   []byte
		form   byte // 0: empty layout
		within int  // most bytes the layout may take
	}{
		{"Same", doc, 0, 0},
		{"Indent2", indented("  ", ""), layoutIndent, 4},
		{"Indent2Newline", indented("  ", "\n"), layoutIndent, 5},
		{"Indent4", indented("    ", "\n"), layoutIndent, 7},
		{"Tabs", indented("\t", "\r\n"), layoutIndent, 5},
		{"CompactNewline", append(bytes.Clone(doc), '\n'), layoutRuns, 64},
		{"CRLF", bytes.ReplaceAll(indented("  ", "\n"), []byte("\n"), []byte("\r\n")), layoutRuns, 256},
		{"Spaced", []byte(` { "id" : "a b" , "kind":"MessageEvent","list":[ 1 ,{"x":[ ]},{ }],"text":"line\nnext  two" } `), layoutRuns, 256},
	} {
		t.Run(c.name, func(t *testing.T) {
			layout, ok := fileLayout(enc, doc, c.file)
			require.True(t, ok)
			if c.form == 0 {
				assert.Empty(t, layout)
			} else {
				assert.Equal(t, c.form, layout[0])
			}
			assert.LessOrEqual(t, len(layout), c.within)
			got, err := withLayout(dec, doc, layout)
			require.NoError(t, err)
			assert.Equal(t, string(c.file), string(got))
		})
	}
	t.Run("NotWhitespace", func(t *testing.T) {
		for _, file := range [][]byte{
			[]byte(`{"id":"a-b","kind":"MessageEvent","list":[1,{"x":[]},{}],"text":"line\nnext  two"}`),
			[]byte(`{"id":"a b","kind":"MessageEvent","list":[1,{"x":[]},{}],"text":"line\nnext  two"}x`),
			[]byte(`{"id":"a b"}`),
			indented("  ", "\n}"),
		} {
			_, ok := fileLayout(enc, doc, file)
			assert.False(t, ok, "%s", file)
		}
	})
	t.Run("Damaged", func(t *testing.T) {
		runs, ok := fileLayout(enc, doc, append(bytes.Clone(doc), '\n'))
		require.True(t, ok)
		for _, layout := range [][]byte{
			{'x', 1, 2},
			{layoutIndent},
			{layoutIndent, 9, ' '},
			runs[:len(runs)-3],
			append([]byte{layoutRuns}, enc.EncodeAll([]byte{0xff, 0xff, 0xff}, nil)...),
			append([]byte{layoutRuns}, enc.EncodeAll([]byte{200, 1, ' '}, nil)...),
		} {
			_, err := withLayout(dec, doc, layout)
			assert.Error(t, err, "%q", layout)
		}
	})
}
