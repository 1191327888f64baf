package index

import (
	"context"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// timeQuery is the Bleve query of a time filter: the documents whose time is
// in [from, to] (Unix nanoseconds), read from the doc values as the plan reads
// them (snapView.timeRange), each scored alike. Bleve's date range query
// cannot stand in for it: it looks for a term per 4 bits of a time's
// precision, and the index keeps only the full-precision one (timeField).
//
// Searches never run it (the plan evaluates time filters itself, and
// evalExact hands Bleve only phrases); it keeps bleveQuery right for every
// tree, which the tests hold the plan to.
type timeQuery struct {
	from, to int64
}

// newTimeQuery returns the query of the documents with a time in [from, to].
func newTimeQuery(from, to int64) *timeQuery { return &timeQuery{from: from, to: to} }

// timeFrom and timeBefore are the bounds of nodeTimeFrom (time >= at) and
// nodeTimeBefore (time < at) for timeRange and timeQuery.
func timeFrom(atNano int64) (from, to int64)   { return atNano, math.MaxInt64 }
func timeBefore(atNano int64) (from, to int64) { return math.MinInt64 + 1, atNano - 1 }

func (q *timeQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	var snap *scorch.IndexSnapshot
	var within []uint64 // nil: every document of snap
	switch r := r.(type) {
	case *scorch.IndexSnapshot:
		snap = r
	case *windowReader:
		snap, within = r.IndexSnapshot, r.docs
	default:
		return nil, errNotPlannable
	}
	// Caches of its own, read-only: a query writes no time files.
	v := newSnapView(ctx, &segCaches{readOnly: true}, snap, m)
	docs, err := v.timeRange(q.from, q.to)
	if err != nil {
		return nil, err
	}
	list := allDocs(v, docs)
	if within != nil {
		list = intersectSorted(list, within)
	}
	return searcher.NewMatchAllSearcher(ctx, &windowReader{IndexSnapshot: snap, docs: list}, 1, o)
}

// intersectSorted returns the numbers in both ascending lists, ascending.
func intersectSorted(a, b []uint64) []uint64 {
	out := make([]uint64, 0, min(len(a), len(b)))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			a = a[1:]
		case a[0] > b[0]:
			b = b[1:]
		default:
			out = append(out, a[0])
			a, b = a[1:], b[1:]
		}
	}
	return slices.Clip(out)
}
