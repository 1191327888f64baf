package index

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// Token filter names registered with Bleve's global registry. The stored index
// mapping refers to them by name, so they are part of the on-disk format: renaming
// one or changing what it emits needs an indexVersion bump.
const (
	codeIndexFilterName = "logbook_code_index"
	codeQueryFilterName = "logbook_code_query"
)

const (
	// maxTermBytes drops longer tokens (base64 blobs, minified bundles, hashes of
	// hashes). Nobody types them, and each would be a dictionary entry of its own.
	maxTermBytes = 128
	// maxSplitBytes leaves longer tokens whole: splitting a 100-character identifier
	// soup into parts gives nothing anyone searches for.
	maxSplitBytes = 64
	// maxParts caps how many parts one token contributes.
	maxParts = 12
)

func init() {
	// Registration is process-wide and panics on a duplicate name, so it happens
	// once here rather than per Open.
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(registry.RegisterTokenFilter(codeIndexFilterName,
		func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
			return codeFilter{keepWhole: true}, nil
		}))
	must(registry.RegisterTokenFilter(codeQueryFilterName,
		func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
			return codeFilter{keepWhole: false}, nil
		}))
}

// codeFilter splits code identifiers into their words: camelCase and PascalCase
// humps (getUserName → get user name, HTTPServer → HTTP Server), and runs separated
// by punctuation the Unicode word segmenter keeps inside a word (max_tokens → max
// tokens, main.go → main go, v1.2.3 → v1 2 3). Hyphens, slashes and spaces already
// end a word in the segmenter, so paths and flags arrive here in pieces.
//
// The parts take consecutive positions, starting at the position of the token they
// came from, and every later token moves along by the number of extra parts. So a
// phrase of parts ("user name", "get user name") matches inside an identifier, and
// a phrase over the original text ("src/app/main.go") matches the same parts.
//
// At index time (keepWhole) the whole token is also emitted at the first part's
// position, so an all-lowercase query that cannot be split again (getusername)
// still finds getUserName. At query time only the parts are emitted: a query word
// that splits becomes a phrase of its parts, which matches the identifier whether
// the user typed it whole or only a piece of it (getUser finds getUserName). The
// one thing this gives up: a phrase that continues past an identifier typed in
// lowercase ("getusername returns") does not match, as the whole token sits at
// its first part's position.
//
// Ideographic tokens and CJK bigrams pass through untouched, as do numbers. The
// filter runs before lowercasing, since case is what marks the humps.
type codeFilter struct {
	keepWhole bool
}

// Filter implements analysis.TokenFilter.
func (f codeFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input))
	shift := 0
	var parts [][2]int
	for _, tok := range input {
		tok.Position += shift
		if tok.Type != analysis.AlphaNumeric {
			out = append(out, tok)
			continue
		}
		if len(tok.Term) > maxTermBytes {
			continue
		}
		parts = splitIdentifier(tok.Term, parts[:0])
		if len(parts) == 0 || len(parts) == 1 && parts[0] == [2]int{0, len(tok.Term)} {
			// Nothing to split: a plain word, or only separators ("___").
			out = append(out, tok)
			continue
		}
		if f.keepWhole {
			out = append(out, tok)
		}
		// Offsets of the parts are only exact when no earlier filter changed the
		// term's byte length; otherwise they highlight the whole token.
		aligned := tok.End-tok.Start == len(tok.Term)
		for i, p := range parts {
			part := &analysis.Token{
				// A copy: the lowercase filter rewrites terms in place, and the
				// whole token shares these bytes.
				Term:     append([]byte(nil), tok.Term[p[0]:p[1]]...),
				Position: tok.Position + i,
				Type:     analysis.AlphaNumeric,
				Start:    tok.Start,
				End:      tok.End,
			}
			if aligned {
				part.Start, part.End = tok.Start+p[0], tok.Start+p[1]
			}
			out = append(out, part)
		}
		shift += len(parts) - 1
	}
	return out
}

// splitIdentifier appends to dst the byte ranges of term's parts: runs of letters
// and digits, cut again at camelCase humps. A term with nothing to split yields one
// range covering it all; a term of separators only, or a long one, yields none.
// __init__ yields the one part "init".
func splitIdentifier(term []byte, dst [][2]int) [][2]int {
	if len(term) > maxSplitBytes {
		return dst
	}
	start := -1          // start of the current run, -1 between runs
	digitLed := false    // the current part starts with a digit (0x1F, 3D): no humps
	var prev, prev2 rune // the two runes before r within the current run, 0 if none
	prevSize := 0
	for i := 0; i < len(term); {
		r, size := utf8.DecodeRune(term[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '\'' || r == '’') {
			if start >= 0 {
				dst = append(dst, [2]int{start, i})
				start = -1
			}
			prev, prev2 = 0, 0
			i += size
			continue
		}
		cut := -1
		switch {
		case start < 0:
			start, digitLed = i, unicode.IsDigit(r)
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev) && !digitLed):
			cut = i // fooBar, md5Sum
		case unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prev2):
			cut = i - prevSize // HTTPServer: the last capital of a run starts the next word
		}
		if cut > start {
			dst = append(dst, [2]int{start, cut})
			start, digitLed = cut, false
		}
		prev2, prev, prevSize = prev, r, size
		i += size
	}
	if start >= 0 {
		dst = append(dst, [2]int{start, len(term)})
	}
	if len(dst) > maxParts {
		return dst[:0]
	}
	return dst
}
