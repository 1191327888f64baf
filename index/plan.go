package index

// The planned search. Bleve answers a query by visiting every matching
// document: scoring it, and for facets reading its doc values. A common word
// in a million blocks is hundreds of thousands of visits, about a second on a
// small machine, while a person expects a search box to answer as they type.
// So Search plans first, on the posting bitmaps of the index's segments:
//
//   - the query is evaluated to one bitmap per segment (exactly for terms,
//     filters, times, AND/OR/NOT; a phrase by the words it needs, a superset
//     that Bleve narrows later; prefixes and typos by the words of the index
//     they stand for, at most MaxTermExpansion each);
//   - the total is the bitmaps' cardinality, and the facets come from each
//     facet value's postings (facetcache.go): milliseconds, however many hits;
//   - Bleve then scores, checks phrases and highlights only a window of the
//     matches (planned.go), through a reader that shows it nothing else: all
//     of them when they are few (windowSize), otherwise the newest ones, with
//     "recent" order exact and relevance ranked within each window of the
//     newest matches, then the next older window, and so on.
//
// Times of documents come from per-segment caches (segcache.go), kept in a
// file beside each segment. This reads scorch's segments (Bleve's index
// format, which Open creates) directly. Query.Exhaustive evaluates exactly and
// has Bleve rank every match in one window.

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// windowSize is how many of the newest matches a relevance search ranks at a
// time. A query matching more is ranked within its newest windowSize matches
// first (Result.RankedAmong says so); a query matching fewer is ranked whole.
const windowSize = 2048

var errNoDocValues = errors.New("index: segment has no doc values")

// bits is a set of documents of one snapshot: a bitmap of local document
// numbers per segment, never holding deleted documents.
type bits []*roaring.Bitmap

func (b bits) card() uint64 {
	var n uint64
	for _, m := range b {
		n += m.GetCardinality()
	}
	return n
}

// snapView is one index snapshot as the planner reads it.
type snapView struct {
	ctx     context.Context
	snap    *scorch.IndexSnapshot
	mapping mapping.IndexMapping
	segs    []segView
	// expanded counts the words the query's prefix and typo terms stand for
	// (see expand).
	expanded int
}

type segView struct {
	seg     segment.Segment
	deleted *roaring.Bitmap // nil when none
	offset  uint64          // the global number of the segment's first document
	cache   *segCache
}

func newSnapView(ctx context.Context, caches *segCaches, snap *scorch.IndexSnapshot, m mapping.IndexMapping) *snapView {
	v := &snapView{ctx: ctx, snap: snap, mapping: m}
	var offset uint64
	live := make([]segment.Segment, 0, len(snap.Segments()))
	for _, ss := range snap.Segments() {
		seg := ss.Segment()
		v.segs = append(v.segs, segView{seg: seg, deleted: ss.Deleted(), offset: offset, cache: caches.get(seg)})
		live = append(live, seg)
		offset += seg.Count()
	}
	caches.prune(live)
	return v
}

// all returns every live document.
func (v *snapView) all() bits {
	out := make(bits, len(v.segs))
	for i, s := range v.segs {
		bm := roaring.New()
		bm.AddRange(0, s.seg.Count())
		if s.deleted != nil {
			bm.AndNot(s.deleted)
		}
		out[i] = bm
	}
	return out
}

func (v *snapView) empty() bits {
	out := make(bits, len(v.segs))
	for i := range out {
		out[i] = roaring.New()
	}
	return out
}

// term returns the live documents holding term in field.
func (v *snapView) term(field, term string) (bits, error) {
	out := make(bits, len(v.segs))
	for i, s := range v.segs {
		d, err := s.seg.Dictionary(field)
		if err != nil {
			return nil, err
		}
		if out[i], err = postingsBitmap(d, term, s.deleted); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// timeRange returns the live documents with a time in [from, to].
func (v *snapView) timeRange(from, to int64) (bits, error) {
	out := make(bits, len(v.segs))
	for i, s := range v.segs {
		if err := s.cache.loadTimes(); err != nil {
			return nil, err
		}
		times := s.cache.times
		words := make([]uint64, (len(times)+63)/64)
		for d, t := range times {
			if t != noTime && t >= from && t <= to {
				words[d/64] |= 1 << (d % 64)
			}
		}
		bm := roaring.FromDense(words, false)
		if s.deleted != nil {
			bm.AndNot(s.deleted)
		}
		out[i] = bm
	}
	return out, nil
}

func and(a, b bits) bits {
	for i := range a {
		a[i].And(b[i])
	}
	return a
}

func or(a, b bits) bits {
	for i := range a {
		a[i].Or(b[i])
	}
	return a
}

func andNot(a, b bits) bits {
	for i := range a {
		a[i].AndNot(b[i])
	}
	return a
}

// evaluated is the result of evaluating a query node.
type evaluated struct {
	docs bits
	// none reports that Bleve would make a MatchNoneSearcher of the node (text
	// that analyzes to no tokens, a prefix that expands to no term): the query
	// language's AND skips such clauses, so "foo ->" searches foo.
	none bool
	// exact is false when docs is a superset of the matches: a phrase whose
	// word order has not been checked.
	exact bool
}

// eval evaluates the query tree n exactly as Bleve would run bleveQuery(n);
// TestPlanMatchesBleve holds them together.
func (v *snapView) eval(n node) (evaluated, error) {
	if err := v.ctx.Err(); err != nil {
		return evaluated{}, err
	}
	switch n.kind {
	case nodeAll:
		return evaluated{docs: v.all(), exact: true}, nil
	case nodeAnd:
		return v.evalAnd(n.kids, v.eval)
	case nodeOr:
		return v.evalOr(n.kids, v.eval)
	case nodeNot:
		// A must-not-only boolean over a plain disjunction of the clause, which
		// is never "none": all documents but the clause's.
		e, err := v.evalExact(n.kids[0])
		if err != nil {
			return evaluated{}, err
		}
		return evaluated{docs: andNot(v.all(), e.docs), exact: true}, nil
	case nodeTerm, nodeNumber:
		value := n.value
		if n.kind == nodeNumber {
			value = fmt.Sprint(n.num)
		}
		docs, err := v.term(n.field, value)
		return evaluated{docs: docs, exact: true}, err
	case nodeBool:
		value := "F"
		if n.flag {
			value = "T"
		}
		docs, err := v.term(n.field, value)
		return evaluated{docs: docs, exact: true}, err
	case nodeTimeFrom:
		docs, err := v.timeRange(timeFrom(n.at.UnixNano()))
		return evaluated{docs: docs, exact: true}, err
	case nodeTimeBefore:
		docs, err := v.timeRange(timeBefore(n.at.UnixNano()))
		return evaluated{docs: docs, exact: true}, err
	case nodeMatch, nodePhrase:
		return v.evalQuery(bleveQuery(n))
	}
	// Prefix and typo terms: the words they stand for, bounded (limits.go).
	return v.evalExpanded(n)
}

// evalAnd evaluates a conjunction of kids, each by evalKid (eval or evalExact)
// but for negated ones, which are always exact.
func (v *snapView) evalAnd(kids []node, evalKid func(node) (evaluated, error)) (evaluated, error) {
	// As node.query builds it: the positive clauses are a query-string
	// conjunction (skipping "none" clauses), the negated ones a must-not;
	// a boolean with no positive clause left starts from all documents,
	// and one with nothing at all matches nothing.
	var pos, neg []evaluated
	for _, k := range kids {
		if k.kind == nodeNot {
			e, err := v.evalExact(k.kids[0])
			if err != nil {
				return evaluated{}, err
			}
			if !e.none {
				neg = append(neg, e)
			}
			continue
		}
		e, err := evalKid(k)
		if err != nil {
			return evaluated{}, err
		}
		if !e.none {
			pos = append(pos, e)
		}
	}
	if len(pos) == 0 && len(neg) == 0 {
		return evaluated{docs: v.empty(), none: true, exact: true}, nil
	}
	out := evaluated{exact: true}
	if len(pos) == 0 {
		out.docs = v.all()
	}
	for _, e := range pos {
		if out.docs == nil {
			out.docs = e.docs
		} else {
			out.docs = and(out.docs, e.docs)
		}
		out.exact = out.exact && e.exact
	}
	for _, e := range neg {
		out.docs = andNot(out.docs, e.docs)
	}
	return out, nil
}

// evalOr evaluates a disjunction of kids, each by evalKid. A plain disjunction
// keeps "none" clauses, so it is never "none" itself: it just gains nothing
// from them.
func (v *snapView) evalOr(kids []node, evalKid func(node) (evaluated, error)) (evaluated, error) {
	out := evaluated{docs: v.empty(), exact: true}
	for _, k := range kids {
		e, err := evalKid(k)
		if err != nil {
			return evaluated{}, err
		}
		out.docs = or(out.docs, e.docs)
		out.exact = out.exact && e.exact
	}
	return out, nil
}

// evalExact evaluates n, running Bleve for a phrase whose order eval left
// unchecked: a negated clause must be exact, or NOT would drop too much.
// Bleve runs those phrases alone, never a clause around them, whose documents
// are combined as eval combines them. Nor could Bleve run a time filter: the
// index keeps only the term of a time its doc values need (timeField), not
// the terms Bleve's numeric range searcher looks for.
func (v *snapView) evalExact(n node) (evaluated, error) {
	switch n.kind {
	case nodeAnd:
		return v.evalAnd(n.kids, v.evalExact)
	case nodeOr:
		return v.evalOr(n.kids, v.evalExact)
	}
	e, err := v.eval(n)
	if err != nil || e.exact {
		return e, err
	}
	return v.bleveDocs(bleveQuery(n))
}

// evalQuery evaluates the text queries useQueryAnalyzer leaves: terms,
// match phrases, and conjunctions or disjunctions of them (one typed word
// split into several).
func (v *snapView) evalQuery(q query.Query) (evaluated, error) {
	switch q := q.(type) {
	case *query.TermQuery:
		docs, err := v.term(v.field(q.FieldVal), q.Term)
		return evaluated{docs: docs, exact: true}, err
	case *query.MatchPhraseQuery:
		if q.Fuzziness != 0 {
			return v.bleveDocs(q)
		}
		positions, err := v.phrasePositions(q.Analyzer, q.FieldVal, q.MatchPhrase)
		if err != nil {
			return evaluated{}, err
		}
		return v.evalPhrase(positions, q.FieldVal)
	case *cappedPhrase:
		if q.Fuzziness != 0 || q.FieldVal == "" {
			return v.bleveDocs(q)
		}
		return v.evalPhrase(q.Terms, q.FieldVal)
	case *query.MatchNoneQuery:
		return evaluated{docs: v.empty(), none: true, exact: true}, nil
	case *query.ConjunctionQuery:
		// Not a query-string conjunction: a "none" conjunct matches nothing,
		// and so does the whole.
		out := evaluated{exact: true}
		for _, c := range q.Conjuncts {
			e, err := v.evalQuery(c)
			if err != nil {
				return evaluated{}, err
			}
			if out.docs == nil {
				out.docs = e.docs
			} else {
				out.docs = and(out.docs, e.docs)
			}
			out.exact = out.exact && e.exact
		}
		if out.docs == nil {
			return evaluated{docs: v.empty(), none: true, exact: true}, nil
		}
		return out, nil
	case *query.DisjunctionQuery:
		out := evaluated{docs: v.empty(), exact: true, none: len(q.Disjuncts) == 0}
		for _, d := range q.Disjuncts {
			e, err := v.evalQuery(d)
			if err != nil {
				return evaluated{}, err
			}
			out.docs = or(out.docs, e.docs)
			out.exact = out.exact && e.exact
		}
		return out, nil
	case *query.MatchQuery:
		tokens, err := v.analyze(q.Analyzer, q.FieldVal, q.Match)
		if err != nil {
			return evaluated{}, err
		}
		if len(tokens) == 0 {
			return evaluated{docs: v.empty(), none: true, exact: true}, nil
		}
		out := evaluated{exact: true}
		for _, t := range tokens {
			docs, err := v.term(v.field(q.FieldVal), t)
			if err != nil {
				return evaluated{}, err
			}
			switch {
			case out.docs == nil:
				out.docs = docs
			case q.Operator == query.MatchQueryOperatorAnd:
				out.docs = and(out.docs, docs)
			default:
				out.docs = or(out.docs, docs)
			}
		}
		return out, nil
	}
	return v.bleveDocs(q)
}

// evalPhrase evaluates a phrase: tokens by position, each position any of
// its tokens (none: any token). One position is exact; more give the
// documents holding a token of every position, a superset.
func (v *snapView) evalPhrase(positions [][]string, field string) (evaluated, error) {
	if len(positions) == 0 {
		return evaluated{docs: v.empty(), none: true, exact: true}, nil
	}
	field = v.field(field)
	out := evaluated{exact: len(positions) == 1}
	for _, alts := range positions {
		if len(alts) == 0 {
			continue // a gap in positions: any token fits
		}
		var pos bits
		for _, t := range alts {
			docs, err := v.term(field, t)
			if err != nil {
				return evaluated{}, err
			}
			if pos == nil {
				pos = docs
			} else {
				pos = or(pos, docs)
			}
		}
		if out.docs == nil {
			out.docs = pos
		} else {
			out.docs = and(out.docs, pos)
		}
	}
	if out.docs == nil {
		out.docs = v.all()
	}
	return out, nil
}

func (v *snapView) field(f string) string {
	if f == "" {
		return v.mapping.DefaultSearchField()
	}
	return f
}

func (v *snapView) analyze(analyzerName, field, text string) ([]string, error) {
	positions, err := v.phrasePositions(analyzerName, field, text)
	var out []string
	for _, p := range positions {
		out = append(out, p...)
	}
	return out, err
}

// phrasePositions analyzes text the way a match query on field does and groups
// the tokens by position.
func (v *snapView) phrasePositions(analyzerName, field, text string) ([][]string, error) {
	if analyzerName == "" {
		analyzerName = v.mapping.AnalyzerNameForPath(v.field(field))
	}
	a := v.mapping.AnalyzerNamed(analyzerName)
	if a == nil {
		return nil, fmt.Errorf("no analyzer named %q", analyzerName)
	}
	return tokenPositions(a.Analyze([]byte(text))), nil
}

// bleveDocs evaluates q by running Bleve's searcher for it without scoring,
// collecting every document it matches: exact for any query, at the cost of
// visiting each match.
func (v *snapView) bleveDocs(q query.Query) (evaluated, error) {
	// Term vectors: a phrase searcher checks word order with them, and
	// without them passes every block holding the words.
	s, err := q.Searcher(v.ctx, v.snap, v.mapping, search.SearcherOptions{Score: "none", IncludeTermVectors: true})
	if err != nil {
		return evaluated{}, err
	}
	defer s.Close()
	if _, ok := s.(*searcher.MatchNoneSearcher); ok {
		return evaluated{docs: v.empty(), none: true, exact: true}, nil
	}
	out := v.empty()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := v.ctx.Err(); err != nil {
				return evaluated{}, err
			}
		}
		dm, err := s.Next(sctx)
		if err != nil {
			return evaluated{}, err
		}
		if dm == nil {
			break
		}
		seg, local := v.locate(dm.IndexInternalID.Value())
		out[seg].Add(uint32(local))
		sctx.DocumentMatchPool.Put(dm)
	}
	return evaluated{docs: out, exact: true}, nil
}

// locate maps a global document number to its segment and local number.
func (v *snapView) locate(global uint64) (seg int, local uint64) {
	i := sort.Search(len(v.segs), func(i int) bool { return v.segs[i].offset > global }) - 1
	return i, global - v.segs[i].offset
}

var (
	errNotPlannable     = errors.New("index: not a scorch index")
	errExhaustiveCursor = fmt.Errorf("%w: it pages an exhaustive search, not a planned one", ErrBadCursor)
	errPlannedCursor    = fmt.Errorf("%w: it pages a planned search, not an exhaustive one", ErrBadCursor)
)
