package index

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blevesearch/segment"
	"github.com/stretchr/testify/require"
)

// word is a segment the analyzer reads: not a None one.
type word struct {
	start int
	text  string
	typ   int
}

// words lists the words of segs (over input, end to end), checking that they
// cover it.
func words(t *testing.T, input []byte, segs [][]byte, types []int) []word {
	t.Helper()
	require.Equal(t, string(input), string(bytes.Join(segs, nil)), "the segments cover the input, in order")
	var out []word
	start := 0
	for i, s := range segs {
		if types[i] != segment.None {
			out = append(out, word{start, string(s), types[i]})
		}
		start += len(s)
	}
	return out
}

// TestASCIIWordsMatchSegmenter: splitting runs of ASCII here and the rest with
// the segmenter gives the words (offsets, text, type) the segmenter gives for
// the whole text, on random text mixing the characters the word-break rules
// treat apart: letters, digits, every ASCII mid and joiner, newlines, and
// around them combining marks, joiners, formats, CJK, kana, Hebrew, non-ASCII
// quotes and spaces.
func TestASCIIWordsMatchSegmenter(t *testing.T) {
	ascii := []string{"a", "Z", "q", "7", "0", ".", ",", ";", ":", "'", "_", " ", " ", "\t", "\r", "\n", "\v", "\f",
		"-", "\"", "/", "(", "#", "\x00", "\x7f"}
	other := []string{"é", "中", "文", "カ", "\u0301", "\u200d", "\u0085", "\u00a0", "😀", "א", "\u05f4", "’", "·",
		"\ufeff", "\u2060", "\u3000", "１", "ǅ", "\U0001F3FB"}
	fixed := []string{"", "abc", "a.b", "a.1", "1.a", "1,2", "1;2", "1:2", "a:b", "a'b", "1'2", "don't", "e.g.", "U.S.A.",
		"3.14.15", "12,345.67", "a..b", "_", "__", "_1", "1_", "foo_bar_", "x.y.z", "\r\n", "a\u0301b c", "a\u200db",
		"café au lait", "中文abc中文", "a.中", "a 中", "1.中", "a.\u0301b", "a \u0301b", "hello\u0085world", "a\r\n\u0301"}
	check := func(s string) {
		input := []byte(s)
		wantSegs, wantTypes, _, err := segment.SegmentWordsDirect(input, nil, nil)
		require.NoError(t, err)
		ts := &tokens{}
		gotSegs, gotTypes := ts.segment(input)
		require.Equal(t, words(t, input, wantSegs, wantTypes), words(t, input, gotSegs, gotTypes), "%q", s)
	}
	for _, s := range fixed {
		check(s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		var b []byte
		for n := r.IntN(24); n > 0; n-- {
			if r.IntN(8) == 0 {
				b = append(b, other[r.IntN(len(other))]...)
			} else {
				b = append(b, ascii[r.IntN(len(ascii))]...)
			}
		}
		check(string(b))
	}
}

// FuzzASCIIWords holds the split to the segmenter on any input.
func FuzzASCIIWords(f *testing.F) {
	f.Add([]byte("don't e.g. 12,345.67 中文abc a\u0301b"))
	f.Fuzz(func(t *testing.T, input []byte) {
		input = bytes.ToValidUTF8(input, []byte("\uFFFD")) // as codeAnalyzer.run does
		wantSegs, wantTypes, _, err := segment.SegmentWordsDirect(input, nil, nil)
		if err != nil {
			t.Skip()
		}
		ts := &tokens{}
		gotSegs, gotTypes := ts.segment(input)
		require.Equal(t, words(t, input, wantSegs, wantTypes), words(t, input, gotSegs, gotTypes), "%q", input)
	})
}
