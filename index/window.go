package index

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
)

// Windows: which documents a planned search has Bleve look at (see plan.go),
// chosen by time, and the reader that shows Bleve only those.

// window is a range of times [lo, hi): a slice of a result set, newest first.
type window struct {
	lo, hi int64
}

// fullWindow covers every document, with or without a time.
var fullWindow = window{lo: math.MinInt64, hi: math.MaxInt64}

// newest returns the global numbers (ascending) of the matches in docs with a
// time below hi, newest first, at least want of them unless fewer remain, plus
// every match sharing the oldest one's time, so that no window boundary splits
// documents of equal time. The window is [lo, hi); lo is MinInt64 when it
// reaches the oldest match, so documents without a time are in the last one.
func (v *snapView) newest(docs bits, total uint64, hi int64, want int) (window, []uint64, error) {
	for _, s := range v.segs {
		if err := s.cache.loadTimes(); err != nil {
			return window{}, nil, err
		}
	}
	var n uint64
	for _, s := range v.segs {
		n += s.seg.Count()
	}
	// Walking the segments' time orders costs about want*n/total steps (most
	// are misses when matches are sparse); visiting the matches costs total.
	if total == 0 || float64(want)*float64(n)/float64(total) > float64(total) {
		return v.newestByVisit(docs, hi, want)
	}
	return v.newestByWalk(docs, hi, want)
}

func (v *snapView) newestByVisit(docs bits, hi int64, want int) (window, []uint64, error) {
	// each calls fn for the matches below hi, in ascending global number.
	each := func(fn func(t int64, g uint64)) {
		v.eachDoc(docs, func(s *segView, d uint32) {
			if t := s.cache.times[d]; t < hi {
				fn(t, s.offset+uint64(d))
			}
		})
	}
	ts := make([]int64, 0, docs.card())
	each(func(t int64, _ uint64) { ts = append(ts, t) })
	lo := int64(math.MinInt64)
	if len(ts) > want {
		lo = nthLargest(ts, want)
	}
	out := make([]uint64, 0, min(len(ts), 2*want))
	older := false
	each(func(t int64, g uint64) {
		if t >= lo {
			out = append(out, g)
		} else {
			older = true
		}
	})
	if !older {
		lo = math.MinInt64
	}
	return window{lo: lo, hi: hi}, out, nil
}

func (v *snapView) newestByWalk(docs bits, hi int64, want int) (window, []uint64, error) {
	// A merge of the segments' newest-first orders, starting below hi.
	pos := make([]int, len(v.segs))
	for i, s := range v.segs {
		times, order := s.cache.times, s.cache.order
		pos[i] = sort.Search(len(order), func(k int) bool { return times[order[k]] < hi })
	}
	// advance moves segment i to its next match; false when it has none left.
	advance := func(i int) bool {
		order := v.segs[i].cache.order
		for pos[i] < len(order) {
			if docs[i].Contains(order[pos[i]]) {
				return true
			}
			pos[i]++
		}
		return false
	}
	var heads []int
	for i := range v.segs {
		if advance(i) {
			heads = append(heads, i)
		}
	}
	timeOf := func(i int) int64 { c := v.segs[i].cache; return c.times[c.order[pos[i]]] }
	var out []uint64
	lo := int64(math.MinInt64)
	for len(heads) > 0 {
		// Few segments: a linear scan for the newest head is cheaper than a heap.
		best := 0
		for k := 1; k < len(heads); k++ {
			if timeOf(heads[k]) > timeOf(heads[best]) {
				best = k
			}
		}
		i := heads[best]
		t := timeOf(i)
		if len(out) >= want && t < lo {
			// Older than the window's oldest: the window is complete.
			slices.Sort(out)
			return window{lo: lo, hi: hi}, out, nil
		}
		out = append(out, v.segs[i].offset+uint64(v.segs[i].cache.order[pos[i]]))
		lo = t
		pos[i]++
		if !advance(i) {
			heads = slices.Delete(heads, best, best+1)
		}
	}
	slices.Sort(out)
	return window{lo: math.MinInt64, hi: hi}, out, nil
}

// inWindow returns the global numbers (ascending) of the matches in docs with
// a time in w.
func (v *snapView) inWindow(docs bits, w window) ([]uint64, error) {
	for _, s := range v.segs {
		if err := s.cache.loadTimes(); err != nil {
			return nil, err
		}
	}
	var out []uint64
	v.eachDoc(docs, func(s *segView, d uint32) {
		if t := s.cache.times[d]; t >= w.lo && t < w.hi {
			out = append(out, s.offset+uint64(d))
		}
	})
	return out, nil
}

// eachDoc calls fn for each document of docs, segment by segment, in ascending
// number.
func (v *snapView) eachDoc(docs bits, fn func(s *segView, d uint32)) {
	buf := make([]uint32, 256)
	for i := range v.segs {
		s := &v.segs[i]
		it := docs[i].ManyIterator()
		for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
			for _, d := range buf[:n] {
				fn(s, d)
			}
		}
	}
}

// nthLargest returns the k-th largest value of ts (1-based), reordering ts.
func nthLargest(ts []int64, k int) int64 {
	lo, hi, target := 0, len(ts)-1, k-1
	for lo < hi {
		p := ts[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for ts[i] > p {
				i++
			}
			for ts[j] < p {
				j--
			}
			if i <= j {
				ts[i], ts[j] = ts[j], ts[i]
				i++
				j--
			}
		}
		switch {
		case target <= j:
			hi = j
		case target >= i:
			lo = i
		default:
			return ts[target]
		}
	}
	return ts[target]
}

// windowReader is an index snapshot that shows searchers only the documents
// of a window: a query's searchers built on it advance from one window
// document to the next instead of visiting every match, and a phrase is
// checked only there. Everything else — term statistics for scoring, stored
// fields, doc values — is the snapshot's own, so scores are those of the
// whole index.
type windowReader struct {
	*scorch.IndexSnapshot
	docs []uint64 // global document numbers, ascending
}

func (r *windowReader) TermFieldReader(ctx context.Context, term []byte, field string, includeFreq, includeNorm, includeTermVectors bool) (index.TermFieldReader, error) {
	inner, err := r.IndexSnapshot.TermFieldReader(ctx, term, field, includeFreq, includeNorm, includeTermVectors)
	if err != nil {
		return nil, err
	}
	return &windowTermReader{inner: inner, docs: r.docs}, nil
}

func (r *windowReader) DocIDReaderAll() (index.DocIDReader, error) {
	return &windowDocReader{docs: r.docs}, nil
}

// windowTermReader yields the documents of a term that are in the window.
type windowTermReader struct {
	inner index.TermFieldReader
	docs  []uint64
	next  int // the first window document not yet passed
	id    index.IndexInternalID
}

func (t *windowTermReader) Next(pre *index.TermFieldDoc) (*index.TermFieldDoc, error) {
	for t.next < len(t.docs) {
		t.id = index.NewIndexInternalID(t.id, t.docs[t.next])
		d, err := t.inner.Advance(t.id, pre)
		if err != nil || d == nil {
			t.next = len(t.docs)
			return nil, err
		}
		// The term's next document at or after the window's: take it if it
		// is in the window, else look again from the window's next one.
		got := d.ID.Value()
		t.next += sort.Search(len(t.docs)-t.next, func(i int) bool { return t.docs[t.next+i] >= got })
		if t.next < len(t.docs) && t.docs[t.next] == got {
			t.next++
			return d, nil
		}
	}
	return nil, nil
}

func (t *windowTermReader) Advance(id index.IndexInternalID, pre *index.TermFieldDoc) (*index.TermFieldDoc, error) {
	want := id.Value()
	t.next += sort.Search(len(t.docs)-t.next, func(i int) bool { return t.docs[t.next+i] >= want })
	return t.Next(pre)
}

// Count is the term's count in the whole index, which scoring uses.
func (t *windowTermReader) Count() uint64 { return t.inner.Count() }
func (t *windowTermReader) Close() error  { return t.inner.Close() }
func (t *windowTermReader) Size() int     { return t.inner.Size() + 8*len(t.docs) }

// windowDocReader lists the window's documents: what "all documents" means
// inside a window.
type windowDocReader struct {
	docs []uint64
	next int
}

func (d *windowDocReader) Next() (index.IndexInternalID, error) {
	if d.next >= len(d.docs) {
		return nil, nil
	}
	d.next++
	return index.NewIndexInternalID(nil, d.docs[d.next-1]), nil
}

func (d *windowDocReader) Advance(id index.IndexInternalID) (index.IndexInternalID, error) {
	want := id.Value()
	d.next += sort.Search(len(d.docs)-d.next, func(i int) bool { return d.docs[d.next+i] >= want })
	return d.Next()
}

func (d *windowDocReader) Size() int    { return 8 * len(d.docs) }
func (d *windowDocReader) Close() error { return nil }
