package index

import (
	"math"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// facetFields are the fields Facets counts, in its order.
var facetFields = [...]string{fieldKind, fieldTool, fieldProject, fieldMonth}

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
			pl, err := ff.dict.PostingsList([]byte(term), nil, nil)
			if err != nil {
				ff.byDocErr = err
				return
			}
			bm := roaring.New()
			if o, ok := pl.(interface{ OrInto(*roaring.Bitmap) }); ok {
				o.OrInto(bm)
			} else if bm, err = postingsBitmap(ff.dict, term, nil); err != nil {
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
