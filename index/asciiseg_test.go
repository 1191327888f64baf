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

// matchSegmenter checks that the analyzer's split of input (tokens.segment)
// gives the words the segmenter gives for the whole of it.
func matchSegmenter(t *testing.T, input []byte) {
	t.Helper()
	wantSegs, wantTypes, _, err := segment.SegmentWordsDirect(input, nil, nil)
	require.NoError(t, err)
	ts := &tokens{}
	gotSegs, gotTypes := ts.segment(input)
	require.Equal(t, words(t, input, wantSegs, wantTypes), words(t, input, gotSegs, gotTypes), "%q", input)
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
	for _, s := range fixed {
		matchSegmenter(t, []byte(s))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		matchSegmenter(t, mixedText(r, 8, func() string { return other[r.IntN(len(other))] },
			func() string { return ascii[r.IntN(len(ascii))] }))
	}
}

// TestHanWordsMatchSegmenter: giving each ideograph its word here (hanWords)
// gives the words the segmenter gives, on random text that is mostly Chinese:
// ideographs from the whole of both blocks (those after Unicode 8 included),
// CJK and ASCII punctuation, spaces, and what the rules attach to a preceding
// character (combining marks, variation selectors, formats, joiners, emoji
// modifiers, the halfwidth sound marks), next to kana, fullwidth letters and
// digits, and connectors.
func TestHanWordsMatchSegmenter(t *testing.T) {
	other := []string{"，", "。", "、", "「", "」", "（", "）", "：", "；", "！", "？", "\u3000", "\u00a0", "—", "…",
		"\u0301", "\ufe0f", "\u200d", "\u200b", "\u2060", "\ufeff", "\U0001F3FB", "\uff9e", "\u3099", "\u3005", "ー", "カ",
		"ひ", "ｶ", "Ａ", "１", "＿", "﹏", "😀", "é", "\u00ad", "\u0085", "·", "’", "a", "Z", "7", ".", ",", "'", "_", " ", "\n", "-"}
	for _, s := range []string{"中文", "中", "中，文", "中\u0301文", "中\u200d文", "中\ufe0f", "中\U0001F3FB", "\u9fff\u4db6中",
		"写入权限。测试", "中１２", "中ー", "中カ", "1，2中", "中　　文", "中a中", "中 中"} {
		matchSegmenter(t, []byte(s))
	}
	r := rand.New(rand.NewPCG(3, 4))
	han := func() string {
		if r.IntN(4) == 0 {
			return string(rune(0x3400 + r.IntN(0x4DBF-0x3400+1)))
		}
		return string(rune(0x4E00 + r.IntN(0x9FFF-0x4E00+1)))
	}
	for range 100_000 {
		matchSegmenter(t, mixedText(r, 3, func() string { return other[r.IntN(len(other))] }, han))
	}
}

// mixedText returns up to 23 pieces end to end, each from rare one time in
// oneIn and otherwise from common.
func mixedText(r *rand.Rand, oneIn int, rare, common func() string) []byte {
	var b []byte
	for n := r.IntN(24); n > 0; n-- {
		if r.IntN(oneIn) == 0 {
			b = append(b, rare()...)
		} else {
			b = append(b, common()...)
		}
	}
	return b
}

// FuzzASCIIWords holds the split to the segmenter on any input.
func FuzzASCIIWords(f *testing.F) {
	f.Add([]byte("don't e.g. 12,345.67 中文abc a\u0301b"))
	f.Add([]byte("写入权限，测试。中\u0301文「引号」１２ー"))
	f.Fuzz(func(t *testing.T, input []byte) {
		matchSegmenter(t, bytes.ToValidUTF8(input, []byte("\uFFFD"))) // as codeAnalyzer.run does
	})
}
