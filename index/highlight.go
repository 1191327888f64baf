package index

import (
	"fmt"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/highlight"
	htmlformat "github.com/blevesearch/bleve/v2/search/highlight/format/html"
	simplehl "github.com/blevesearch/bleve/v2/search/highlight/highlighter/simple"
)

// highlighterName is the highlighter of search hits: matches in <mark>,
// HTML-escaped, in the best fragment of 200 characters (highlighter), using
// fragmenter in place of Bleve's simple fragmenter.
//
// Bleve's fragmenter gives up on a fragment at any utf8.RuneError it decodes,
// which is also what a real U+FFFD decodes to: a block holding one (the
// replacement blockText makes of invalid UTF-8, or one already in a tool's
// output) showed no fragment around it.
const highlighterName = "logbook_html"

// fragmentRunes is the length of a fragment in characters, as Bleve's.
const fragmentRunes = 200

func init() {
	if err := registry.RegisterHighlighter(highlighterName,
		func(_ map[string]interface{}, cache *registry.Cache) (highlight.Highlighter, error) {
			formatter, err := cache.FragmentFormatterNamed(htmlformat.Name)
			if err != nil {
				return nil, fmt.Errorf("fragment formatter: %w", err)
			}
			return highlighter{simplehl.NewHighlighter(fragmenter{size: fragmentRunes}, formatter, simplehl.DefaultSeparator)}, nil
		}); err != nil {
		panic(err)
	}
}

// fragmenter is Bleve's simple fragmenter (search/highlight/fragmenter/simple,
// Copyright (c) 2014 Couchbase, Inc., Apache License 2.0), except that it stops
// only at bytes that are not UTF-8, not at the character U+FFFD.
type fragmenter struct {
	size int
}

// badRune reports whether a decoded rune is an invalid byte (or no byte at all)
// rather than a character.
func badRune(r rune, size int) bool { return r == utf8.RuneError && size <= 1 }

// Fragment implements highlight.Fragmenter.
func (s fragmenter) Fragment(orig []byte, ot highlight.TermLocations) []*highlight.Fragment {
	var rv []*highlight.Fragment
	maxbegin := 0
OUTER:
	for currTermIndex, termLocation := range ot {
		// Start with this term: it should be the highest scoring fragment with it.
		start := termLocation.Start
		end := start
		used := 0
		for end < len(orig) && used < s.size {
			r, size := utf8.DecodeRune(orig[end:])
			if badRune(r, size) {
				continue OUTER
			}
			end += size
			used++
		}

		// Characters to spare go before the term, without crossing maxbegin.
		for start > 0 && used < s.size {
			if start > len(orig) {
				continue OUTER
			}
			r, size := utf8.DecodeLastRune(orig[0:start])
			if badRune(r, size) {
				continue OUTER
			}
			if start-size >= maxbegin {
				start -= size
				used++
			} else {
				break
			}
		}

		// Center the terms in the fragment as far as that keeps the score: find
		// the end of the last term in it and the smaller of the two rooms to move.
		minend := end
		for _, inner := range ot[currTermIndex:] {
			if inner.End > end {
				break
			}
			minend = inner.End
		}
		roomToMove := utf8.RuneCount(orig[minend:end])
		roomToMoveStart := 0
		if start >= maxbegin {
			roomToMoveStart = utf8.RuneCount(orig[maxbegin:start])
		}
		if roomToMoveStart < roomToMove {
			roomToMove = roomToMoveStart
		}
		offset := roomToMove / 2
		for offset > 0 {
			r, size := utf8.DecodeLastRune(orig[0:start])
			if badRune(r, size) {
				continue OUTER
			}
			start -= size
			r, size = utf8.DecodeLastRune(orig[0:end])
			if badRune(r, size) {
				continue OUTER
			}
			end -= size
			offset--
		}

		rv = append(rv, &highlight.Fragment{Orig: orig, Start: start - offset, End: end - offset})
		// The next fragment does not back up over this term.
		maxbegin = termLocation.End
	}
	if len(ot) == 0 {
		// No terms to highlight: one fragment from the beginning.
		end, used := 0, 0
		for end < len(orig) && used < s.size {
			r, size := utf8.DecodeRune(orig[end:])
			if badRune(r, size) {
				break
			}
			end += size
			used++
		}
		rv = append(rv, &highlight.Fragment{Orig: orig, Start: 0, End: end})
	}
	return rv
}
