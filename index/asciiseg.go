package index

import (
	"github.com/blevesearch/segment"
)

// The word segmenter (blevesearch/segment, UAX #29 as of Unicode 8) walks a
// state machine built for all of Unicode; on text that is mostly ASCII (code,
// English, logs) it was the largest single cost of analysis, 7% of the CPU of
// indexing a generated 1 GB corpus. For ASCII the rules are few, so a run of
// ASCII is split here, and the segmenter reads only the stretches that hold
// other characters, cut where no rule can look across (safeCut).
// TestASCIIWordsMatchSegmenter holds the two to the same words, types and
// offsets on random mixed text; the punctuation and spaces between words (the
// segmenter's None segments, which the analyzer skips when they are ASCII) may
// be grouped differently.

// The word-break classes of the ASCII characters (UAX #29, Unicode 8).
const (
	wbOther byte = iota
	wbLetter
	wbNumeric
	wbMidLetter    // :
	wbMidNum       // , ;
	wbMidNumLet    // . and ' (Single_Quote, which the rules treat alike here)
	wbExtendNumLet // _
	wbCR
	wbNewline // LF, VT, FF
)

var wbClass = func() (c [128]byte) {
	for b := 'a'; b <= 'z'; b++ {
		c[b], c[b-'a'+'A'] = wbLetter, wbLetter
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = wbNumeric
	}
	c[':'] = wbMidLetter
	c[','], c[';'] = wbMidNum, wbMidNum
	c['.'], c['\''] = wbMidNumLet, wbMidNumLet
	c['_'] = wbExtendNumLet
	c['\r'] = wbCR
	c['\n'], c['\v'], c['\f'] = wbNewline, wbNewline, wbNewline
	return c
}()

// safeCut reports whether the text can be cut before input[i] (an ASCII byte
// after an ASCII byte) with both sides segmented alone as they would be
// together: the byte before is a space, a newline or punctuation that joins
// nothing (WB3a, WB14), and the next is not a combining mark it would take
// (WB4).
func safeCut(input []byte, i int) bool {
	if i <= 0 || i >= len(input) || input[i] >= 0x80 || input[i-1] >= 0x80 {
		return false
	}
	c := wbClass[input[i-1]]
	return c == wbOther || c == wbNewline
}

// asciiWords appends the segments of input, all ASCII, to segs and types: the
// words with their types (segment.Letter or segment.Number, as the segmenter
// gives them) and the runs between them as segment.None.
func asciiWords(input []byte, segs [][]byte, types []int) ([][]byte, []int) {
	none := -1 // start of the None run being gathered, if any
	for i := 0; i < len(input); {
		c := wbClass[input[i]]
		if c != wbLetter && c != wbNumeric && c != wbExtendNumLet {
			if none < 0 {
				none = i
			}
			i++
			continue
		}
		if none >= 0 {
			segs, types = append(segs, input[none:i]), append(types, segment.None)
			none = -1
		}
		start := i
		letter, number := c == wbLetter, c == wbNumeric
		prev := c
		for i++; i < len(input); i++ {
			c := wbClass[input[i]]
			switch {
			case c == wbLetter || c == wbNumeric || c == wbExtendNumLet:
				// WB5, WB8, WB9, WB10, WB13a, WB13b: letters, digits and
				// underscores hold together.
			case (c == wbMidLetter || c == wbMidNumLet) && prev == wbLetter &&
				i+1 < len(input) && wbClass[input[i+1]] == wbLetter:
				// WB6, WB7: a letter, a mid, a letter.
				i++
				c = wbLetter
			case (c == wbMidNum || c == wbMidNumLet) && prev == wbNumeric &&
				i+1 < len(input) && wbClass[input[i+1]] == wbNumeric:
				// WB11, WB12: a digit, a mid, a digit.
				i++
				c = wbNumeric
			default:
				goto end
			}
			letter = letter || c == wbLetter
			number = number || c == wbNumeric
			prev = c
		}
	end:
		typ := segment.Letter // letters, or only underscores
		if !letter && number {
			typ = segment.Number
		}
		segs, types = append(segs, input[start:i]), append(types, typ)
	}
	if none >= 0 {
		segs, types = append(segs, input[none:]), append(types, segment.None)
	}
	return segs, types
}
