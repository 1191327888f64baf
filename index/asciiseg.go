package index

import (
	"unicode"
	"unicode/utf8"

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

// hanWords appends the segments of input (UAX #29) to segs and types as
// segmentUnicode does, but gives each Han ideograph its one-character word
// itself, leaving the segmenter only what lies between them: in Chinese text,
// the punctuation. The word-break rules break before an ideograph whatever
// precedes it (no rule joins anything to one), and after it unless what follows
// may attach to it (a combining mark, a format character, a joiner, an emoji
// modifier), which hanMayEnd rules out before a cut is made there.
func hanWords(input []byte, segs [][]byte, types []int) ([][]byte, []int) {
	from := 0 // the start of the stretch not yet segmented
	for i := 0; i < len(input); {
		r, n := utf8.DecodeRune(input[i:])
		end := i + n
		if !isHan(r) {
			i = end
			continue
		}
		if end < len(input) {
			if next, _ := utf8.DecodeRune(input[end:]); !hanMayEnd(next) {
				i = end // the segmenter decides what follows it
				continue
			}
		}
		if from < i {
			segs, types = betweenHan(input[from:i], segs, types)
		}
		segs, types = append(segs, input[i:end]), append(types, segment.Ideo)
		from, i = end, end
	}
	if from < len(input) {
		segs, types = betweenHan(input[from:], segs, types)
	}
	return segs, types
}

// betweenHan appends the segments of a stretch cut out next to ideographs: a
// lone punctuation mark or space is a segment of its own, anything else goes
// to the segmenter.
func betweenHan(input []byte, segs [][]byte, types []int) ([][]byte, []int) {
	if r, n := utf8.DecodeRune(input); n == len(input) && r >= utf8.RuneSelf && lonePunct(r) {
		return append(segs, input), append(types, segment.None)
	}
	return segmentUnicode(input, segs, types)
}

// isHan reports a CJK unified ideograph of the basic block or extension A as
// the segmenter's Unicode 8 knows them: the ones added since are unassigned
// there, and the segmenter makes them no word.
func isHan(r rune) bool {
	return 0x4E00 <= r && r <= 0x9FD5 || 0x3400 <= r && r <= 0x4DB5
}

// hanMayEnd reports a rune before which a word can be cut after an ideograph:
// ASCII, another ideograph, punctuation (not a connector, which joins words) or
// a space. Anything else might be Extend, Format or ZWJ, which the rules attach
// to what precedes them.
func hanMayEnd(r rune) bool {
	return r < utf8.RuneSelf || isHan(r) || lonePunct(r)
}

// lonePunct reports punctuation (not a connector) or a space separator: alone
// between ideographs, a segment that is no word.
func lonePunct(r rune) bool {
	return unicode.In(r, unicode.Po, unicode.Ps, unicode.Pe, unicode.Pd, unicode.Pi, unicode.Pf, unicode.Zs)
}
