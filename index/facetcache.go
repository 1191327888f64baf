package index

import (
	"math"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// facetFields are the fields Facets counts, in its order.
var facetFields = [...]string{fieldKind, fieldTool, fieldProject, fieldMonth, fieldAgent}

// facetField is a facet field of one segment. Its values are read from the
// field's dictionary; the rest is built on first use, for the way a count
// needs it: each value's documents (a few hits are counted by intersecting
// them), or each document's value (many hits are counted by looking it up).
type facetField struct {
	seg   segment.Segment
	dict  segment.TermDictionary
	terms []string

	postingsOnce sync.Once
	postings     []*roaring.Bitmap
	postingsErr  error

	byDocOnce sync.Once
	byDoc     []uint16 // value index + 1 of each document, 0 for none; nil when more values than fit
	hist      []int    // documents per byDoc value, deleted ones included
	byDocErr  error
}

// facetField returns field's values in the segment.
func (sc *segCache) facetField(field string) (*facetField, error) {
	sc.facetMu.Lock()
	defer sc.facetMu.Unlock()
	if ff, ok := sc.facets[field]; ok {
		return ff, nil
	}
	d, err := sc.seg.Dictionary(field)
	if err != nil {
		return nil, err
	}
	ff := &facetField{seg: sc.seg, dict: d}
	it := d.AutomatonIterator(nil, nil, nil)
	for {
		de, err := it.Next()
		if err != nil {
			return nil, err
		}
		if de == nil {
			break
		}
		ff.terms = append(ff.terms, de.Term)
	}
	if sc.facets == nil {
		sc.facets = make(map[string]*facetField)
	}
	sc.facets[field] = ff
	return ff, nil
}

// docsOf returns each value's documents, copied out of the segment file.
func (ff *facetField) docsOf() ([]*roaring.Bitmap, error) {
	ff.postingsOnce.Do(func() {
		for _, term := range ff.terms {
			bm, err := postingsBitmap(ff.dict, term, nil)
			if err != nil {
				ff.postingsErr = err
				return
			}
			ff.postings = append(ff.postings, bm)
		}
	})
	return ff.postings, ff.postingsErr
}

// docValues returns each document's value and the count of each; byDoc is
// nil when the field has more values than a uint16 numbers. The caller holds
// a reference on a snapshot with the segment: the postings are read in place.
func (ff *facetField) docValues() (byDoc []uint16, hist []int, err error) {
	ff.byDocOnce.Do(func() {
		if len(ff.terms) >= math.MaxUint16 {
			return
		}
		byDoc := make([]uint16, ff.seg.Count())
		hist := make([]int, len(ff.terms)+1)
		buf := make([]uint32, 256)
		for k, term := range ff.terms {
			bm, err := postingsInPlace(ff.dict, term, nil)
			if err != nil {
				ff.byDocErr = err
				return
			}
			v := uint16(k + 1)
			it := bm.ManyIterator()
			for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
				for _, d := range buf[:n] {
					byDoc[d] = v
				}
				hist[v] += n
			}
		}
		ff.byDoc, ff.hist = byDoc, hist
	})
	return ff.byDoc, ff.hist, ff.byDocErr
}

// facets counts docs by each facet field's values.
func (v *snapView) facets(docs bits) (Facets, error) {
	var counts [len(facetFields)]map[string]int
	for k := range counts {
		counts[k] = map[string]int{}
	}
	var ffs [len(facetFields)]*facetField
	var byDocs [len(facetFields)][]uint16
	var hists [len(facetFields)][]int
	var byValue [len(facetFields)][]int
	buf := make([]uint32, 256)
	for i, s := range v.segs {
		n := docs[i].GetCardinality()
		if n == 0 {
			continue
		}
		// A few thousand hits or more: look each hit's values up (or, past
		// half the segment, those of the documents that are not hits, and
		// subtract). Fewer: intersect each value's documents with the hits.
		lookup := n > 2048
		for k, field := range facetFields {
			ff, err := s.cache.facetField(field)
			if err != nil {
				return Facets{}, err
			}
			ffs[k] = ff
			if lookup {
				if byDocs[k], hists[k], err = ff.docValues(); err != nil {
					return Facets{}, err
				}
				lookup = byDocs[k] != nil
			}
		}
		if !lookup {
			for k, ff := range ffs {
				postings, err := ff.docsOf()
				if err != nil {
					return Facets{}, err
				}
				for j, p := range postings {
					if c := docs[i].AndCardinality(p); c > 0 {
						counts[k][ff.terms[j]] += int(c)
					}
				}
			}
			continue
		}
		visit, dense := docs[i], n*2 > s.seg.Count()
		if dense {
			visit = roaring.Flip(docs[i], 0, s.seg.Count())
		}
		for k, ff := range ffs {
			byValue[k] = slices.Grow(byValue[k][:0], len(ff.terms)+1)[:len(ff.terms)+1]
			clear(byValue[k])
		}
		it := visit.ManyIterator()
		for m := it.NextMany(buf); m > 0; m = it.NextMany(buf) {
			for k := range ffs {
				bv, byDoc := byValue[k], byDocs[k]
				for _, d := range buf[:m] {
					bv[byDoc[d]]++
				}
			}
		}
		for k, ff := range ffs {
			for j, term := range ff.terms {
				c := byValue[k][j+1]
				if dense {
					c = hists[k][j+1] - c
				}
				if c > 0 {
					counts[k][term] += c
				}
			}
		}
	}
	list := func(k int) []FacetCount {
		out := make([]FacetCount, 0, len(counts[k]))
		for term, n := range counts[k] {
			if term != "" {
				out = append(out, FacetCount{Term: term, Count: n})
			}
		}
		return topFacets(facetFields[k], out)
	}
	return Facets{Kind: list(0), Tool: list(1), Project: list(2), Month: list(3), Agent: list(4)}, nil
}

// topFacets keeps a facet's facetSizes[field] most frequent values (ties by
// value); months are then listed newest first.
func topFacets(field string, fc []FacetCount) []FacetCount {
	slices.SortFunc(fc, func(a, b FacetCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		if a.Term < b.Term {
			return -1
		}
		return 1
	})
	if n := facetSizes[field]; len(fc) > n {
		fc = fc[:n]
	}
	if field == fieldMonth {
		slices.SortFunc(fc, func(a, b FacetCount) int {
			if a.Term > b.Term {
				return -1
			}
			return 1
		})
	}
	return fc
}
