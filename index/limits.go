package index

// Limits on what one search may cost. A search box answers as people type, and
// the HTTP API takes any text a client sends, so no query may run for long:
// a query is bounded in size and terms before it runs; a typo term (word~)
// needs a word long enough for its typos to mean something; and a prefix or
// typo term may stand for only so many words of the index. Each limit is a
// *QueryError that names it, or, where a smaller search still answers the
// question (two typos in a short word), a notice in the Result. Every search
// runs under its caller's context and stops when that is cancelled.

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

const (
	// MaxQueryBytes bounds the query text. A pasted error message or command
	// fits; a pasted file does not.
	MaxQueryBytes = 4096
	// MaxQueryTerms bounds the terms of a query: each word of its text (each
	// part of a split identifier, each pair of adjacent CJK characters),
	// each filter, each prefix or typo term.
	MaxQueryTerms = 64
	// MinFuzzyRunes is the shortest word a typo term (word~) may have: a
	// typo of a shorter word is nearly every short word in the index.
	MinFuzzyRunes = 3
	// MinFuzzy2Runes is the shortest word searched with two typos (word~2);
	// a shorter one is searched with one, and the Result says so. These are
	// the lengths at which Bleve's own automatic fuzziness allows 1 and 2.
	MinFuzzy2Runes = 6
	// MaxTermExpansion bounds the words of the index one prefix (word*) or
	// typo term (word~) may stand for.
	MaxTermExpansion = 512
	// MaxQueryExpansion bounds the words all the prefix and typo terms of a
	// query stand for together.
	MaxQueryExpansion = 1024
)

// notSearchable is how a notice explains text with no searchable words.
const notSearchable = "punctuation and ASCII operators are not indexed"

// checkQueryBytes rejects a query text longer than MaxQueryBytes.
func checkQueryBytes(text string) error {
	if len(text) <= MaxQueryBytes {
		return nil
	}
	return &QueryError{Pos: MaxQueryBytes, Msg: fmt.Sprintf(
		"the query is %d bytes, over the limit of %d bytes; search for a shorter part of it", len(text), MaxQueryBytes)}
}

// limitQuery checks a parsed query against the limits. It returns the tree to
// search, which differs from tree only where a limit made it smaller (word~2
// of a short word becomes word~1), and the notices to show with the results:
// each such change, and text that was left out of the search because it
// analyzes to no words (✅, →).
func limitQuery(tree node) (node, []string, error) {
	l := &limiter{}
	out, err := l.walk(tree)
	if err != nil {
		return node{}, nil, err
	}
	notices := l.notices
	if len(l.empty) > 0 {
		what := joinAnd(l.empty)
		if l.searchable {
			notices = append([]string{"searched without " + what + ": " + notSearchable}, notices...)
		} else {
			verb := "has"
			if len(l.empty) > 1 {
				verb = "have"
			}
			notices = append([]string{what + " " + verb + " no searchable words: " + notSearchable}, notices...)
		}
	}
	return out, notices, nil
}

// limiter walks a query tree for limitQuery.
type limiter struct {
	terms      int      // terms so far
	empty      []string // text clauses with no searchable words
	searchable bool     // some clause searches something
	notices    []string
}

func (l *limiter) walk(n node) (node, error) {
	switch n.kind {
	case nodeAnd, nodeOr, nodeNot:
		kids := make([]node, len(n.kids))
		for i, k := range n.kids {
			var err error
			if kids[i], err = l.walk(k); err != nil {
				return node{}, err
			}
		}
		n.kids = kids
		return n, nil
	case nodeAll:
		l.searchable = true
		return n, nil
	case nodeMatch, nodePhrase:
		terms := 0
		words := []string{n.value}
		if n.kind == nodeMatch {
			words = strings.Fields(n.value)
		}
		for _, w := range words {
			switch q := textPhrase(w, fieldText, nil).(type) {
			case *query.MatchNoneQuery:
			case *cappedPhrase:
				for _, alts := range q.Terms {
					terms += len(alts)
				}
			default:
				terms++
			}
		}
		if terms == 0 {
			if text := strings.TrimSpace(n.value); !slices.Contains(l.empty, text) {
				l.empty = append(l.empty, text)
			}
			return n, nil
		}
		l.searchable = true
		return n, l.add(terms, n.pos)
	case nodeFuzzy:
		typed := fuzzyText(n)
		switch runes := utf8.RuneCountInString(n.value); {
		case runes < MinFuzzyRunes:
			return node{}, &QueryError{Pos: n.pos, Msg: fmt.Sprintf(
				"%s: a typo search needs a word of at least %d characters (a typo of a shorter one is almost any short word); search %s without ~",
				typed, MinFuzzyRunes, n.value)}
		case n.fuzz > 1 && runes < MinFuzzy2Runes:
			n.fuzz = 1
			l.notices = append(l.notices, fmt.Sprintf(
				"%s was searched as %s~: two typos need a word of at least %d characters", typed, n.value, MinFuzzy2Runes))
		}
	}
	l.searchable = true
	return n, l.add(1, n.pos)
}

// fuzzyText is a typo term as it is typed: word~ or word~2.
func fuzzyText(n node) string {
	if n.fuzz == 1 {
		return n.value + "~"
	}
	return n.value + "~2"
}

// add counts terms of the clause at pos against MaxQueryTerms.
func (l *limiter) add(terms, pos int) error {
	l.terms += terms
	if l.terms <= MaxQueryTerms {
		return nil
	}
	return &QueryError{Pos: pos, Msg: fmt.Sprintf(
		"the query has more than %d terms (each word, filter and pair of CJK characters is one); search for fewer words", MaxQueryTerms)}
}

// joinAnd joins a, b and c.
func joinAnd(list []string) string {
	if len(list) == 1 {
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// expand returns the words of the index a prefix or typo node stands for, as
// Bleve's searcher for it expands them, counting them against
// MaxTermExpansion and, with the query's other expansions, MaxQueryExpansion.
func (v *snapView) expand(n node) ([]string, error) {
	field := v.field(n.field)
	dict, err := v.snap.FieldDictPrefix(field, []byte(n.value))
	typed := n.value + "*"
	if n.kind == nodeFuzzy {
		dict, _, err = v.snap.FieldDictFuzzyAutomaton(field, n.value, n.fuzz, "")
		typed = fuzzyText(n)
	}
	if err != nil {
		return nil, err
	}
	defer dict.Close()
	var terms []string
	for {
		e, err := dict.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if len(terms) == MaxTermExpansion {
			return nil, &QueryError{Pos: n.pos, Msg: fmt.Sprintf(
				"%s stands for more than %d words in the index; type more of the word", typed, MaxTermExpansion)}
		}
		terms = append(terms, e.Term)
	}
	if v.expanded += len(terms); v.expanded > MaxQueryExpansion {
		return nil, &QueryError{Pos: n.pos, Msg: fmt.Sprintf(
			"the query's prefix and typo terms stand for more than %d words in the index together; use fewer of them, or type more of each", MaxQueryExpansion)}
	}
	return terms, nil
}

// evalExpanded evaluates a prefix or typo node: the documents holding any of
// the words it stands for. Like Bleve's searcher for it, it is never "none".
func (v *snapView) evalExpanded(n node) (evaluated, error) {
	terms, err := v.expand(n)
	if err != nil {
		return evaluated{}, err
	}
	field := v.field(n.field)
	out := make(bits, len(v.segs))
	for i, s := range v.segs {
		if err := v.ctx.Err(); err != nil {
			return evaluated{}, err
		}
		d, err := s.seg.Dictionary(field)
		if err != nil {
			return evaluated{}, err
		}
		bm := roaring.New()
		for _, t := range terms {
			p, err := postingsInPlace(d, t, s.deleted)
			if err != nil {
				return evaluated{}, err
			}
			bm.Or(p)
		}
		// The postings may be the segment's own memory: copy what the
		// result shares with them, as postingsBitmap does.
		bm.CloneCopyOnWriteContainers()
		out[i] = bm
	}
	return evaluated{docs: out, exact: true}, nil
}
