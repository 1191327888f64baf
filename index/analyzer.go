package index

import (
	"bytes"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/segment"
	"golang.org/x/text/unicode/norm"
)

// analyzerType is the Bleve analyzer type of the text and query analyzers (see
// newMapping): codeAnalyzer, registered under this name in Bleve's global
// registry. Its "keep_whole" option is codeFilter's keepWhole.
const analyzerType = "logbook_code_analyzer"

func init() {
	if err := registry.RegisterAnalyzer(analyzerType,
		func(config map[string]interface{}, _ *registry.Cache) (analysis.Analyzer, error) {
			keep, _ := config["keep_whole"].(bool)
			return codeAnalyzer{keepWhole: keep}, nil
		}); err != nil {
		panic(err)
	}
}

// codeAnalyzer is the logbook analyzer in one pass: the Unicode word segmenter,
// NFC, CJK width folding, CJK bigrams, the code-identifier splitter
// (codeFilter) and lowercasing, emitting exactly the tokens of that chain of Bleve
// filters (referenceMapping in the tests builds the chain and compares them).
//
// The chain costs about twice as much CPU: every filter allocates a new token
// stream, the bigram filter decodes every token to runes and allocates each
// bigram, and NFC and width folding run on ASCII words too. Here an
// ASCII word (most of a coding transcript) goes from the segmenter to the output
// with at most one copy, made when it has capitals to lowercase. Text fields are
// analyzed straight into term frequencies (textField), skipping the token stream
// altogether.
//
// Invalid UTF-8 is read as U+FFFD, which separates words: the segmenter would
// stop at the first invalid byte and leave every later word unindexed.
type codeAnalyzer struct {
	keepWhole bool
}

// tok is one token of codeAnalyzer's output. term points into the input or into
// the analysis' arena; neither changes afterwards.
type tok struct {
	term       []byte
	start, end int
	pos        int
	typ        analysis.TokenType
}

// tokens is the reusable state of one analysis.
type tokens struct {
	out   []tok
	arena []byte   // terms that differ from the input: lowercased, normalized, bigrams, parts
	parts [][2]int // splitIdentifier's scratch
	runes []rune   // width folding's scratch
	segs  [][]byte // the segmenter's words
	types []int    // and their types

	// The CJK bigram stage: the ideographic character waiting for its successor.
	held    tok
	holding bool
	paired  bool // held is the second character of a bigram already emitted
	outPos  int  // the bigram stage renumbers positions from 1
	shift   int  // positions the code stage added so far

	ids map[string]uint32 // prepare's distinct terms
}

var tokensPool = sync.Pool{New: func() any { return new(tokens) }}

// Analyze implements analysis.Analyzer (the query side, and Bleve's highlighter).
func (a codeAnalyzer) Analyze(input []byte) analysis.TokenStream {
	ts := tokensPool.Get().(*tokens)
	defer tokensPool.Put(ts)
	a.run(input, ts)
	out := make(analysis.TokenStream, len(ts.out))
	backing := make([]analysis.Token, len(ts.out))
	for i, t := range ts.out {
		backing[i] = analysis.Token{Term: bytes.Clone(t.term), Start: t.start, End: t.end, Position: t.pos, Type: t.typ}
		out[i] = &backing[i]
	}
	return out
}

// run analyzes input into ts.out.
func (a codeAnalyzer) run(input []byte, ts *tokens) {
	ts.out, ts.arena = ts.out[:0], ts.arena[:0]
	ts.holding, ts.outPos, ts.shift = false, 1, 0
	if !utf8.Valid(input) {
		// Offsets then refer to the repaired text; stored text is repaired the same
		// way before it gets here (blockText), so they match what is shown.
		input = bytes.ToValidUTF8(input, []byte(string(utf8.RuneError)))
	}
	segs, types := ts.segment(input)
	start := 0
	for i, word := range segs {
		end := start + len(word)
		typ := types[i]
		if typ == segment.None {
			a.symbols(ts, word, start)
			start = end
			continue
		}
		term := word
		if !isASCII(term) {
			// NFC, then width folding; neither changes an ASCII word.
			if !norm.NFC.IsNormal(term) {
				n := len(ts.arena)
				ts.arena = norm.NFC.Append(ts.arena, term...)
				term = ts.arena[n:len(ts.arena):len(ts.arena)]
			}
			term = ts.foldWidth(term)
		}
		switch typ {
		case segment.Ideo, segment.Kana:
			a.ideographic(ts, term, start)
		case segment.Number:
			ts.flushHeld(a)
			a.code(ts, tok{term: term, start: start, end: end, typ: analysis.Numeric})
		default:
			ts.flushHeld(a)
			a.code(ts, tok{term: term, start: start, end: end, typ: analysis.AlphaNumeric})
		}
		start = end
	}
	ts.flushHeld(a)
	clear(segs) // a pooled tokens must not keep the input alive
}

// segment splits input into its words (UAX #29): runs of ASCII here
// (asciiWords), the stretches around other characters by the segmenter
// (segmentUnicode), cut where neither side can see the other (safeCut).
func (ts *tokens) segment(input []byte) ([][]byte, []int) {
	segs, types := ts.segs[:0], ts.types[:0]
	for pos := 0; pos < len(input); {
		j := pos
		for j < len(input) && input[j] < 0x80 {
			j++
		}
		if j == len(input) {
			segs, types = asciiWords(input[pos:], segs, types)
			break
		}
		// input[j] is not ASCII: the ASCII before it up to the last safe cut, then
		// the segmenter up to the first safe cut after it.
		if cut := lastSafeCut(input, pos, j); cut > pos {
			segs, types = asciiWords(input[pos:cut], segs, types)
			pos = cut
		}
		end := j + 1
		for end < len(input) && !safeCut(input, end) {
			end++
		}
		segs, types = hanWords(input[pos:end], segs, types)
		pos = end
	}
	ts.segs, ts.types = segs, types
	return segs, types
}

// lastSafeCut returns the last i in (pos, j) before which input can be cut
// (safeCut), or pos when there is none.
func lastSafeCut(input []byte, pos, j int) int {
	for i := j - 1; i > pos; i-- {
		if safeCut(input, i) {
			return i
		}
	}
	return pos
}

// segmentUnicode appends the words of input (UAX #29) to segs and types, in one
// call of the segmenter, which then makes no allocation per word as its Segment
// loop does (two). The words cover the input end to end; if they ever did not
// (the segmenter stopped early), the loop's answer is taken instead.
func segmentUnicode(input []byte, segs [][]byte, types []int) ([][]byte, []int) {
	n0 := len(segs)
	segs, types, _, err := segment.SegmentWordsDirect(input, segs, types)
	n := 0
	for _, w := range segs[n0:] {
		n += len(w)
	}
	if err == nil && n == len(input) {
		return segs, types
	}
	segs, types = segs[:n0], types[:n0]
	seg := segment.NewWordSegmenterDirect(input)
	for seg.Segment() {
		segs, types = append(segs, seg.Bytes()), append(types, seg.Type())
	}
	return segs, types
}

// symbols emits each non-ASCII symbol (Unicode So or Sm: ✅, →, ≠, emoji) of a
// segment that holds no word as a token of its own, at its own position, so a
// search for ✅ finds the blocks that hold it. ASCII symbols (= | + < > ~ ^ `) are
// left out: in code they are everywhere and say nothing; so are modifiers and
// variation selectors, so ❤️ and ❤ are one term.
func (a codeAnalyzer) symbols(ts *tokens, seg []byte, start int) {
	if isASCII(seg) {
		return
	}
	for off := 0; off < len(seg); {
		r, size := utf8.DecodeRune(seg[off:])
		if isSymbol(r) {
			ts.flushHeld(a)
			a.code(ts, tok{term: seg[off : off+size : off+size], start: start + off, end: start + off + size, typ: analysis.Numeric})
		}
		off += size
	}
}

// isSymbol reports a rune the analyzer keeps as a term of its own: a non-ASCII
// symbol, but not U+FFFD, which stands for bytes that were not text.
func isSymbol(r rune) bool {
	return r >= utf8.RuneSelf && r != utf8.RuneError && (unicode.Is(unicode.So, r) || unicode.Is(unicode.Sm, r))
}

// ideographic is the CJK bigram stage (Bleve's cjk_bigram without
// output_unigram, Lucene's CJKBigramFilter) for an ideographic word: a run of
// two or more adjacent characters becomes its bigrams, each at a position of its
// own, and a character standing alone a unigram. A run of n characters is n-1
// tokens rather than 2n-1 with unigrams beside them: on the real log that is a
// third fewer tokens and a quarter less indexing CPU. One character typed alone
// is found inside runs by the query side (cjkChar in search.go).
func (a codeAnalyzer) ideographic(ts *tokens, term []byte, start int) {
	for off := 0; off < len(term); {
		_, size := utf8.DecodeRune(term[off:])
		t := tok{term: term[off : off+size : off+size], start: start + off, end: start + off + size, typ: analysis.Ideographic}
		off += size
		if ts.holding && t.start != ts.held.end {
			ts.flushHeld(a)
		}
		paired := false
		if ts.holding {
			h := ts.held
			n := len(ts.arena)
			ts.arena = append(append(ts.arena, h.term...), t.term...)
			a.code(ts, tok{term: ts.arena[n:len(ts.arena):len(ts.arena)], start: h.start, end: t.end, typ: analysis.Double})
			ts.outPos++
			paired = true
		}
		ts.held, ts.holding, ts.paired = t, true, paired
	}
}

// flushHeld ends a run of ideographic characters: its last character is a
// unigram of its own when the run had only that one.
func (ts *tokens) flushHeld(a codeAnalyzer) {
	if !ts.holding {
		return
	}
	h := ts.held
	ts.holding = false
	if ts.paired {
		return
	}
	a.code(ts, tok{term: h.term, start: h.start, end: h.end, typ: analysis.Single})
	ts.outPos++
}

// code is codeFilter and then lowercasing, for a token the bigram stage emits at
// ts.outPos. The bigram stage moves ts.outPos on for its own tokens (unigrams,
// bigrams); every other token moves it on here.
func (a codeAnalyzer) code(ts *tokens, t tok) {
	t.pos = ts.outPos + ts.shift
	if t.typ != analysis.Single && t.typ != analysis.Double {
		ts.outPos++
	}
	if t.typ != analysis.AlphaNumeric {
		t.term = ts.lower(t.term)
		ts.out = append(ts.out, t)
		return
	}
	if len(t.term) > maxTermBytes {
		return
	}
	ts.parts = splitIdentifier(t.term, ts.parts[:0])
	if len(ts.parts) == 0 || len(ts.parts) == 1 && ts.parts[0] == [2]int{0, len(t.term)} {
		t.term = ts.lower(t.term)
		ts.out = append(ts.out, t)
		return
	}
	whole := t.term
	if a.keepWhole {
		t.term = ts.lower(whole)
		ts.out = append(ts.out, t)
	}
	aligned := t.end-t.start == len(whole)
	for i, p := range ts.parts {
		part := tok{term: ts.lower(whole[p[0]:p[1]:p[1]]), start: t.start, end: t.end, pos: t.pos + i, typ: analysis.AlphaNumeric}
		if aligned {
			part.start, part.end = t.start+p[0], t.start+p[1]
		}
		ts.out = append(ts.out, part)
	}
	ts.shift += len(ts.parts) - 1
}

// lower returns term lowercased as Bleve's lowercase filter does it, copied into
// the arena when that changes it.
func (ts *tokens) lower(term []byte) []byte {
	i := 0
	for ; i < len(term); i++ {
		c := term[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			break
		}
	}
	if i == len(term) {
		return term
	}
	if isASCII(term[i:]) {
		n := len(ts.arena)
		ts.arena = append(ts.arena, term...)
		out := ts.arena[n:len(ts.arena):len(ts.arena)]
		for j := i; j < len(out); j++ {
			if c := out[j]; 'A' <= c && c <= 'Z' {
				out[j] = c + 'a' - 'A'
			}
		}
		return out
	}
	if !hasUpper(term[i:]) {
		return term
	}
	n := len(ts.arena)
	ts.arena = append(ts.arena, term...)
	out := toLowerDeferredCopy(ts.arena[n:len(ts.arena):len(ts.arena)])
	if len(out) > 0 && &out[0] == &ts.arena[n] {
		ts.arena = ts.arena[:n+len(out)]
	}
	return out
}

// hasUpper reports whether lowercasing changes any rune of term.
func hasUpper(term []byte) bool {
	for i := 0; i < len(term); {
		r, size := rune(term[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(term[i:])
		}
		if unicode.ToLower(r) != r {
			return true
		}
		i += size
	}
	return false
}

// toLowerDeferredCopy is Bleve's lowercase filter (analysis/token/lowercase),
// which lowercases s in place, except where a rune's lowercase is wider.
func toLowerDeferredCopy(s []byte) []byte {
	j := 0
	for i := 0; i < len(s); {
		wid := 1
		r := rune(s[i])
		if r >= utf8.RuneSelf {
			r, wid = utf8.DecodeRune(s[i:])
		}
		l := unicode.ToLower(r)
		if l == r {
			i += wid
			j += wid
			continue
		}
		// The final sigma of a word.
		if l == 'σ' && i+2 == len(s) {
			l = 'ς'
		}
		lwid := utf8.RuneLen(l)
		if lwid > wid {
			rest := bytes.ToLower(s[i:])
			rv := make([]byte, j+len(rest))
			copy(rv[:j], s[:j])
			copy(rv[j:], rest)
			return rv
		}
		utf8.EncodeRune(s[j:], l)
		i += wid
		j += lwid
	}
	return s[:j]
}

// foldWidth is Bleve's cjk_width filter: full-width ASCII variants become ASCII,
// half-width Katakana full-width (joining a voiced sound mark to its kana). term
// is returned as it is when it has no such character.
func (ts *tokens) foldWidth(term []byte) []byte {
	found := false
	for _, r := range string(term) {
		if r >= 0xFF01 && r <= 0xFF9F {
			found = true
			break
		}
	}
	if !found {
		return term
	}
	runes := ts.runes[:0]
	for _, r := range string(term) {
		runes = append(runes, r)
	}
	for i := 0; i < len(runes); i++ {
		ch := runes[i]
		if ch >= 0xFF01 && ch <= 0xFF5E {
			runes[i] -= 0xFEE0
		} else if ch >= 0xFF65 && ch <= 0xFF9F {
			if (ch == 0xFF9E || ch == 0xFF9F) && i > 0 && combineKana(runes, i, ch) {
				runes = append(runes[:i], runes[i+1:]...)
				i--
			} else {
				runes[i] = kanaNorm[ch-0xFF65]
			}
		}
	}
	ts.runes = runes
	n := len(ts.arena)
	for _, r := range runes {
		ts.arena = utf8.AppendRune(ts.arena, r)
	}
	return ts.arena[n:len(ts.arena):len(ts.arena)]
}

// The tables of Bleve's cjk_width filter.
var kanaNorm = []rune{
	0x30fb, 0x30f2, 0x30a1, 0x30a3, 0x30a5, 0x30a7, 0x30a9, 0x30e3, 0x30e5,
	0x30e7, 0x30c3, 0x30fc, 0x30a2, 0x30a4, 0x30a6, 0x30a8, 0x30aa, 0x30ab,
	0x30ad, 0x30af, 0x30b1, 0x30b3, 0x30b5, 0x30b7, 0x30b9, 0x30bb, 0x30bd,
	0x30bf, 0x30c1, 0x30c4, 0x30c6, 0x30c8, 0x30ca, 0x30cb, 0x30cc, 0x30cd,
	0x30ce, 0x30cf, 0x30d2, 0x30d5, 0x30d8, 0x30db, 0x30de, 0x30df, 0x30e0,
	0x30e1, 0x30e2, 0x30e4, 0x30e6, 0x30e8, 0x30e9, 0x30ea, 0x30eb, 0x30ec,
	0x30ed, 0x30ef, 0x30f3, 0x3099, 0x309A,
}

var kanaCombineVoiced = []rune{
	78, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1,
	0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1,
	0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
}

var kanaCombineHalfVoiced = []rune{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 2, 0, 0, 2,
	0, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
}

func combineKana(text []rune, pos int, r rune) bool {
	prev := text[pos-1]
	if prev >= 0x30A6 && prev <= 0x30FD {
		if r == 0xFF9F {
			text[pos-1] += kanaCombineHalfVoiced[prev-0x30A6]
		} else {
			text[pos-1] += kanaCombineVoiced[prev-0x30A6]
		}
		return text[pos-1] != prev
	}
	return false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// prepared is a text's analysis, held compactly from the time it is made until
// Bleve asks for the term frequencies: each distinct term once, and each token
// as four integers with no pointers. A batch analysed ahead of its turn (see
// batchWriter) then costs about a fifth of the memory its frequencies will
// (4 MB against 18.5 MB for a batch of the real log, in a heap profile), and
// nothing for the collector to scan.
type prepared struct {
	terms []byte   // the distinct terms, end to end, in order of first use
	ends  []uint32 // where each distinct term ends in terms
	toks  []ptok
}

// ptok is one token of a prepared text: its distinct term's number, its
// offsets and its position. A text field holds at most maxTextBytes, so each
// fits in 32 bits.
type ptok struct{ term, start, end, pos uint32 }

// prepare turns ts.out into a prepared analysis that shares no memory with ts
// or the input.
func (ts *tokens) prepare() *prepared {
	if ts.ids == nil {
		ts.ids = map[string]uint32{}
	}
	clear(ts.ids)
	p := &prepared{toks: make([]ptok, len(ts.out))}
	for i := range ts.out {
		t := &ts.out[i]
		// The key points into the input or ts.arena, which stay put until the map
		// is cleared again.
		key := unsafe.String(unsafe.SliceData(t.term), len(t.term))
		id, ok := ts.ids[key]
		if !ok {
			id = uint32(len(p.ends))
			p.terms = append(p.terms, t.term...)
			p.ends = append(p.ends, uint32(len(p.terms)))
			ts.ids[key] = id
		}
		p.toks[i] = ptok{term: id, start: uint32(t.start), end: uint32(t.end), pos: uint32(t.pos)}
	}
	if len(ts.ids) > maxPooledIDs {
		// clear costs what the map has grown to: do not make every later small
		// text pay for one large one.
		ts.ids = nil
	}
	return p
}

// maxPooledIDs is the most distinct terms whose map prepare keeps for the
// next text.
const maxPooledIDs = 4096

// frequencies builds the term frequencies of p, as Bleve's
// analysis.TokenFrequency does with term vectors, in a handful of allocations
// of exactly the size needed: the locations and each term's list of them are
// carved from two slabs, and the terms and the map's keys share p.terms. It
// also returns the terms kept only maxTermLocations locations of.
func (p *prepared) frequencies() (index.TokenFrequencies, [][]byte) {
	counts := make([]int, len(p.ends))
	for _, t := range p.toks {
		counts[t.term]++
	}
	kept := 0
	for _, c := range counts {
		kept += min(c, maxTermLocations)
	}
	freqs := make(index.TokenFrequencies, len(p.ends))
	tfs := make([]index.TokenFreq, len(p.ends))
	locs := make([]index.TokenLocation, kept)
	ptrs := make([]*index.TokenLocation, kept)
	var capped [][]byte
	off, from := 0, uint32(0)
	for id := range tfs {
		to := p.ends[id]
		term := p.terms[from:to:to]
		from = to
		tf := &tfs[id]
		tf.Term = term
		tf.SetFrequency(counts[id])
		n := counts[id]
		if n > maxTermLocations {
			n = maxTermLocations
			capped = append(capped, term)
		}
		tf.Locations = ptrs[off : off : off+n]
		off += n
		freqs[unsafe.String(unsafe.SliceData(term), len(term))] = tf
	}
	k := 0
	for _, t := range p.toks {
		tf := &tfs[t.term]
		if len(tf.Locations) == cap(tf.Locations) {
			continue // capped: the term keeps its frequency, not this location
		}
		locs[k] = index.TokenLocation{Start: int(t.start), End: int(t.end), Position: int(t.pos)}
		tf.Locations = append(tf.Locations, &locs[k])
		k++
	}
	return freqs, capped
}

// maxTermLocations caps the locations (positions and offsets) a text field
// keeps for one term of one block; the term keeps its whole frequency. Bleve's
// segment merge holds every location of a term's postings in memory while it
// writes them, so a block repeating a few words tens of thousands of times
// (ordinary in a log, and the easy way to a hostile one) made merges grow by
// hundreds of megabytes. A block over the cap names the term in its capped
// field (cappedField), and phrase searches check such blocks against their
// stored text (cappedPhrase), so no phrase is missed past the cap.
//
// The cap weighs memory against phrase searches that read stored text: of the
// real corpus log's 747 blocks, 2 hold a term more than 128 times and 7 more
// than 64; 100,000 blocks of one word repeated peaked at 272–275 MB imported
// with a cap of 128, 237–250 MB with 96.
const maxTermLocations = 96
