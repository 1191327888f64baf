package index

import (
	"html"
	"slices"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/highlight"
	simplehl "github.com/blevesearch/bleve/v2/search/highlight/highlighter/simple"
	index "github.com/blevesearch/bleve_index_api"
)

// highlighter is Bleve's simple highlighter with the choice and the formatting
// of fragments redone, for three faults of Bleve's:
//
//   - Overlapping matches are merged into one mark. Bleve's merge of overlapping
//     term locations only ever merges into the first location of the text (it
//     never moves on to the next), and its formatter skips a location that starts
//     inside the previous one. A CJK word is searched as a phrase of overlapping
//     bigrams (用户 户未 未同 同意), so every occurrence but the first came back
//     with alternate bigrams marked and the last character outside the mark:
//     <mark>用户未同</mark>意.
//   - A match cut by the edge of the fragment has its visible part marked, where
//     Bleve's formatter left it plain.
//   - Fragments are scored in time that follows the matches each holds. Bleve's
//     scorer walks every location of every term for each candidate fragment, and
//     there is a candidate per location: quadratic in the matches of a block,
//     seconds for a typo search that matches thousands of short words.
type highlighter struct {
	*simplehl.Highlighter
}

// maxFragmentStarts bounds the candidate fragments of one block: one starts at
// each of the first maxFragmentStarts marks. Every mark inside the fragment
// chosen is shown, however many there are.
const maxFragmentStarts = 1024

// BestFragmentInField implements highlight.Highlighter.
func (h highlighter) BestFragmentInField(dm *search.DocumentMatch, doc index.Document, field string) string {
	if fs := h.BestFragmentsInField(dm, doc, field, 1); len(fs) > 0 {
		return fs[0]
	}
	return ""
}

// BestFragmentsInField implements highlight.Highlighter: the num best
// non-overlapping fragments of the field, best first, each scored by how many
// distinct terms it holds whole (as Bleve scores them).
func (h highlighter) BestFragmentsInField(dm *search.DocumentMatch, doc index.Document, field string, num int) []string {
	type candidate struct {
		frag  *highlight.Fragment
		spans []hlSpan
	}
	var cands []candidate
	doc.VisitFields(func(f index.Field) {
		if f.Name() != field {
			return
		}
		if _, ok := f.(index.TextField); !ok {
			return
		}
		orig := f.Value()
		locs := fieldLocations(dm.Locations[field], f.ArrayPositions(), len(orig))
		spans := mergeSpans(locs)
		starts := make(highlight.TermLocations, 0, min(len(spans), maxFragmentStarts))
		for _, s := range spans[:min(len(spans), maxFragmentStarts)] {
			starts = append(starts, &highlight.TermLocation{Start: s.start, End: s.end})
		}
		stamp := make([]int, len(dm.Locations[field]))
		for i, fr := range h.Fragmenter().Fragment(orig, starts) {
			fr.ArrayPositions = f.ArrayPositions()
			fr.Score = scoreFragment(fr, locs, stamp, i+1)
			cands = append(cands, candidate{fr, spans})
		}
	})
	// Best first; of equal scores, the earliest.
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.frag.Score > b.frag.Score:
			return -1
		case a.frag.Score < b.frag.Score:
			return 1
		}
		return 0
	})
	var out []string
	var chosen []*highlight.Fragment
	for _, c := range cands {
		if len(out) >= num {
			break
		}
		overlaps := false
		for _, o := range chosen {
			overlaps = overlaps || slices.Equal(o.ArrayPositions, c.frag.ArrayPositions) && o.Overlaps(c.frag)
		}
		if overlaps {
			continue
		}
		chosen = append(chosen, c.frag)
		out = append(out, h.format(c.frag, c.spans))
	}
	if len(out) > 0 {
		dm.AddFragments(field, out)
	}
	return out
}

// hlLoc is one match in a field's text: a byte range and which term it is.
type hlLoc struct {
	start, end int
	term       int
}

// hlSpan is a run of text to mark: matches that overlap or touch, merged.
type hlSpan struct {
	start, end int
}

// fieldLocations lists the matches of one value of a field (those at its array
// positions, within its n bytes), by start.
func fieldLocations(tlm search.TermLocationMap, ap search.ArrayPositions, n int) []hlLoc {
	var locs []hlLoc
	term := 0
	for _, ls := range tlm {
		for _, l := range ls {
			s, e := int(l.Start), int(l.End)
			if s < e && e <= n && l.ArrayPositions.Equals(ap) {
				locs = append(locs, hlLoc{start: s, end: e, term: term})
			}
		}
		term++
	}
	sort.Slice(locs, func(i, j int) bool {
		if locs[i].start != locs[j].start {
			return locs[i].start < locs[j].start
		}
		return locs[i].end < locs[j].end
	})
	return locs
}

// mergeSpans merges matches (by start) that overlap or touch into the runs of
// text to mark: the bigrams of a CJK word become one mark, as do the parts of
// getUserName.
func mergeSpans(locs []hlLoc) []hlSpan {
	var spans []hlSpan
	for _, l := range locs {
		if n := len(spans); n > 0 && l.start <= spans[n-1].end {
			spans[n-1].end = max(spans[n-1].end, l.end)
			continue
		}
		spans = append(spans, hlSpan{start: l.start, end: l.end})
	}
	return spans
}

// scoreFragment counts the distinct terms with a match wholly inside fr. stamp
// holds, per term, the last gen it was counted for; gen differs per fragment.
func scoreFragment(fr *highlight.Fragment, locs []hlLoc, stamp []int, gen int) float64 {
	score := 0.0
	i := sort.Search(len(locs), func(i int) bool { return locs[i].start >= fr.Start })
	for ; i < len(locs) && locs[i].start < fr.End; i++ {
		if l := locs[i]; l.end <= fr.End && stamp[l.term] != gen {
			stamp[l.term] = gen
			score++
		}
	}
	return score
}

// format renders fr as HTML: the text escaped, every span inside it (or the
// part of one the fragment's edge cuts) in <mark>, and the separator where the
// fragment does not reach the start or the end of the text.
func (h highlighter) format(fr *highlight.Fragment, spans []hlSpan) string {
	var b strings.Builder
	if fr.Start != 0 {
		b.WriteString(h.Separator())
	}
	cur := fr.Start
	k := sort.Search(len(spans), func(k int) bool { return spans[k].end > fr.Start })
	for ; k < len(spans) && spans[k].start < fr.End; k++ {
		s, e := max(spans[k].start, fr.Start), min(spans[k].end, fr.End)
		b.WriteString(html.EscapeString(string(fr.Orig[cur:s])))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(string(fr.Orig[s:e])))
		b.WriteString("</mark>")
		cur = e
	}
	b.WriteString(html.EscapeString(string(fr.Orig[cur:fr.End])))
	if fr.End != len(fr.Orig) {
		b.WriteString(h.Separator())
	}
	return b.String()
}
