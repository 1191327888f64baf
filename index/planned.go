package index

import (
	"context"
	"math"
	"strings"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// planState is what one Search learns from planning, shared by the Bleve
// searches of its windows: the evaluated query of the snapshot they ran on.
type planState struct {
	ix         *Index
	tree       node
	exhaustive bool // evaluate exactly and search everything in one window

	snap *scorch.IndexSnapshot // the snapshot view and docs belong to
	view *snapView
	docs evaluated
	// total is the number of matches (a superset's size when !docs.exact).
	total uint64
}

// evalOn evaluates the query on snap, reusing the last evaluation when a
// window's search runs on the same snapshot.
func (p *planState) evalOn(ctx context.Context, snap *scorch.IndexSnapshot, m mapping.IndexMapping) error {
	if p.snap == snap && p.view != nil {
		p.view.ctx = ctx
		return nil
	}
	// The plan reads the snapshot's segments after Bleve's search on it ends
	// (facets, later windows): hold it until release.
	snap.AddRef()
	p.release()
	p.snap = snap
	v := newSnapView(ctx, &p.ix.caches, snap, m)
	eval := v.eval
	if p.exhaustive {
		eval = v.evalExact
	}
	e, err := eval(p.tree)
	if err != nil {
		return err
	}
	p.view, p.docs, p.total = v, e, e.docs.card()
	return nil
}

// release lets go of the snapshot the plan holds.
func (p *planState) release() {
	if p.snap != nil {
		_ = p.snap.DecRef()
		p.snap, p.view = nil, nil
	}
}

// windowQuery is the Bleve query of one window of a planned search. Bleve asks
// it for a searcher on the snapshot it searches, so the plan and the search
// always see the same documents; it plans there and runs the query on a
// reader that shows only the window's documents (windowReader).
type windowQuery struct {
	plan *planState
	bq   query.Query // the query, run on the window
	// The window: [*lo, hi) when lo is set (a cursor names it), else the
	// newest want matches below hi.
	hi   int64
	lo   *int64
	want int
	// facets asks for the facet counts of all matches (exact plans only).
	facets bool
	// record asks for the window's matches as Bleve finds them (verified).
	record bool

	// Set by Searcher:
	win        window
	cands      int // documents in the window
	facetsDone chan struct{}
	facetsOut  Facets
	facetsErr  error
	verified   *recordingSearcher
}

// wait waits for the facet count Searcher started, if any.
func (w *windowQuery) wait() error {
	if w.facetsDone == nil {
		return nil
	}
	<-w.facetsDone
	return w.facetsErr
}

func (w *windowQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, errNotPlannable
	}
	p := w.plan
	if err := p.evalOn(ctx, snap, m); err != nil {
		return nil, err
	}
	v, docs := p.view, p.docs.docs
	if w.facets && p.docs.exact {
		// Counted beside Bleve's search of the window, on the other core.
		w.facetsDone = make(chan struct{})
		go func() {
			defer close(w.facetsDone)
			w.facetsOut, w.facetsErr = v.facets(docs)
		}()
	}
	var list []uint64
	var err error
	switch {
	case w.lo != nil && *w.lo == math.MinInt64 && w.hi == math.MaxInt64,
		w.lo == nil && w.hi == math.MaxInt64 && p.total <= uint64(w.want):
		// Every match: no times needed.
		w.win = fullWindow
		list = allDocs(v, docs)
	case w.lo != nil:
		w.win = window{lo: *w.lo, hi: w.hi}
		list, err = v.inWindow(docs, w.win)
	default:
		w.win, list, err = v.newest(docs, p.total, w.hi, w.want)
	}
	if err != nil {
		return nil, err
	}
	w.cands = len(list)
	if len(list) == 0 {
		return searcher.NewMatchNoneSearcher(r)
	}
	s, err := w.bq.Searcher(ctx, &windowReader{IndexSnapshot: snap, docs: list}, m, options)
	if err != nil || !w.record {
		return s, err
	}
	w.verified = &recordingSearcher{Searcher: s, view: v, docs: v.empty()}
	return w.verified, nil
}

// recordingSearcher passes on a searcher's matches and records them, so the
// matches Bleve verified in a window can be counted by facet afterwards.
type recordingSearcher struct {
	search.Searcher
	view *snapView
	docs bits
}

func (r *recordingSearcher) record(dm *search.DocumentMatch) {
	if dm != nil {
		seg, local := r.view.locate(dm.IndexInternalID.Value())
		r.docs[seg].Add(uint32(local))
	}
}

func (r *recordingSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	dm, err := r.Searcher.Next(ctx)
	r.record(dm)
	return dm, err
}

func (r *recordingSearcher) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	dm, err := r.Searcher.Advance(ctx, id)
	r.record(dm)
	return dm, err
}

// allDocs lists docs by global number, ascending.
func allDocs(v *snapView, docs bits) []uint64 {
	out := make([]uint64, 0, docs.card())
	v.eachDoc(docs, func(s *segView, d uint32) { out = append(out, s.offset+uint64(d)) })
	return out
}

// searchPlanned answers a search window by window (see plan.go); exhaustive,
// in one window holding every match. The caller holds ix.mu.
func (ix *Index) searchPlanned(ctx context.Context, tree node, limit int, sortBy string, cur *cursor, exhaustive bool) (Result, error) {
	plan := &planState{ix: ix, tree: tree, exhaustive: exhaustive}
	defer plan.release()
	bq := bleveQuery(scoringTree(tree))
	hi, after := int64(math.MaxInt64), []string(nil)
	var lo *int64
	if exhaustive {
		lo = &fullWindow.lo
	}
	if cur != nil {
		switch {
		case cur.Windowed && exhaustive:
			return Result{}, errPlannedCursor
		case !cur.Windowed && !exhaustive:
			return Result{}, errExhaustiveCursor
		case cur.Resume:
			hi = cur.Hi
		case cur.Windowed:
			lo, hi = &cur.Lo, cur.Hi
		}
		if !cur.Resume {
			after = cur.After
		}
	}
	exactTree := exhaustive || treeExact(tree)
	want := ix.window
	switch {
	case sortBy == SortRecent && exactTree:
		// Every candidate matches: the next page's worth are the newest ones.
		want = limit + 1
	case !exactTree:
		// Bleve checks word order candidate by candidate, the dearest part of
		// a phrase search: start with an eighth of a window, then take as
		// many more as the rate of matches so far says the page needs.
		want = max(ix.window/8, limit+1)
	}

	out := Result{TotalExact: true, Facets: emptyFacets()}
	type pageHit struct {
		hit Hit
		dm  *search.DocumentMatch
		win window
	}
	var page []pageHit
	// For a phrase the plan could not check (!exactTree), the first page
	// counts what Bleve verified in the windows it searched.
	var candidates uint64
	var verified bits
	// checked bounds the candidates one request has Bleve check for a phrase:
	// a phrase of two common words that rarely stand together would otherwise
	// be checked in every block holding both. Past it the page ends early with
	// a cursor that goes on below the last window searched.
	checked, resume := 0, false
	var matched uint64 // of the candidates checked
	for step := 0; len(page) <= limit; step++ {
		first := cur == nil
		wq := &windowQuery{plan: plan, bq: bq, hi: hi, lo: lo, want: want,
			facets: first && step == 0, record: first && !exactTree}
		res, err := ix.bl.SearchInContext(ctx, newRequest(wq, limit+1-len(page), sortBy, after))
		if ferr := wq.wait(); err == nil {
			err = ferr
		}
		if err != nil {
			return Result{}, err
		}
		if step == 0 {
			// Every page counts an exact plan's matches (a bitmap's size);
			// a phrase's count is estimated on the first page only.
			if exactTree {
				out.Total = plan.total
			} else if !first {
				out.TotalExact = false
			}
			if wq.facets && exactTree {
				out.Facets = wq.facetsOut
			}
		}
		if wq.verified != nil {
			candidates += uint64(wq.cands)
			if verified == nil {
				verified = wq.verified.docs
			} else {
				verified = or(verified, wq.verified.docs)
			}
		}
		if first && sortBy == SortRelevance && len(page) == 0 && len(res.Hits) > 0 && wq.win != fullWindow {
			// The page starts with the best matches of this window.
			out.RankedAmong = res.Total
		}
		for _, d := range res.Hits {
			page = append(page, pageHit{hit: newHit(d), dm: d, win: wq.win})
		}
		if len(page) > limit || wq.win.lo == math.MinInt64 {
			break // a full page, or no older matches
		}
		// The window ran out: go on to the next older one.
		hi, lo, after = wq.win.lo, nil, nil
		checked += wq.cands
		matched += res.Total
		if !exactTree && checked >= phraseChecksPerWindow*ix.window {
			resume = true
			break
		}
		switch {
		case exactTree:
			want = min(4*want, ix.window)
		case matched > 0:
			// Enough candidates, at the rate they matched so far, to fill the
			// page with a margin: each candidate costs Bleve a word-order check.
			need := float64(limit+1-len(page)) * float64(checked) / float64(matched)
			want = min(max(int(1.5*need)+1, 64), ix.window)
		default:
			want = min(4*want, ix.window)
		}
	}
	if cur == nil && !exactTree {
		// Exact when the windows searched hold every candidate; else
		// scaled up from them to all the candidates the plan found.
		scale := 1.0
		if (candidates < plan.total || resume) && candidates > 0 {
			scale = float64(plan.total) / float64(candidates)
			out.TotalExact = false
		}
		if verified == nil {
			verified = plan.view.empty()
		}
		f, err := plan.view.facets(verified)
		if err != nil {
			return Result{}, err
		}
		out.Total = scale1(verified.card(), scale)
		out.Facets = scaleFacets(f, scale)
	}
	if resume {
		out.NextCursor = encodeResumeCursor(sortBy, hi)
	}
	if len(page) > limit {
		last := page[limit-1]
		var w *window
		if !exhaustive {
			w = &last.win
		}
		out.NextCursor = encodeCursor(sortBy, last.dm, w)
		page = page[:limit]
	}
	out.Hits = make([]Hit, len(page))
	for i, h := range page {
		out.Hits[i] = h.hit
	}
	return out, nil
}

// phraseChecksPerWindow bounds how many candidates, in windows, one search has
// Bleve check for word order before it returns what it found: at most a few
// tens of milliseconds.
const phraseChecksPerWindow = 2

func scale1(n uint64, scale float64) uint64 { return uint64(math.Round(float64(n) * scale)) }

// scaleFacets multiplies every count of f by scale.
func scaleFacets(f Facets, scale float64) Facets {
	for _, list := range [][]FacetCount{f.Kind, f.Tool, f.Project, f.Agent, f.Month} {
		for i := range list {
			list[i].Count = int(scale1(uint64(list[i].Count), scale))
		}
	}
	return f
}

// scoringTree is what Bleve runs on a window: tree without the clauses the
// plan has already applied exactly and that add the same score to every match
// (keyword, flag and time filters, and negations, in the top-level AND), so
// Bleve scores and highlights the text and skips reading postings that
// cannot change the order. An OR keeps all its clauses: a window document may
// match through any of them.
func scoringTree(n node) node {
	switch n.kind {
	case nodeNot, nodeTerm, nodeBool, nodeNumber, nodeTimeFrom, nodeTimeBefore:
		return node{kind: nodeAll}
	case nodeAnd:
		var kids []node
		for _, k := range n.kids {
			if k := scoringTree(k); k.kind != nodeAll {
				kids = append(kids, k)
			}
		}
		switch {
		case len(kids) == 0:
			return node{kind: nodeAll}
		case len(kids) < len(n.kids):
			// The clauses left may all be "none" (text that analyzes to
			// nothing, a prefix of no word), which the AND skips: the window's
			// documents matched through the clauses taken out, so keep a
			// match-all, which adds the same score to each.
			kids = append(kids, node{kind: nodeAll})
		}
		return node{kind: nodeAnd, kids: kids}
	}
	return n
}

// treeExact reports whether planning evaluates tree exactly, with no phrase
// (a match of several tokens) left for Bleve to check. It errs towards false.
func treeExact(n node) bool {
	switch n.kind {
	case nodePhrase:
		_, phrase := textPhrase(n.value, fieldText, nil).(*cappedPhrase)
		return !phrase
	case nodeMatch:
		for _, w := range strings.Fields(n.value) {
			if _, ok := textPhrase(w, fieldText, nil).(*cappedPhrase); ok {
				return false
			}
		}
		return true
	case nodeNot:
		return true // evaluated exactly (evalExact)
	}
	for _, k := range n.kids {
		if k.kind != nodeNot && !treeExact(k) {
			return false
		}
	}
	return true
}

func emptyFacets() Facets {
	return Facets{Kind: []FacetCount{}, Tool: []FacetCount{}, Project: []FacetCount{}, Agent: []FacetCount{}, Month: []FacetCount{}}
}

// plannable reports whether the index is one the planner can read (scorch,
// which Open creates). The caller holds ix.mu.
func (ix *Index) plannable() bool {
	adv, err := ix.bl.Advanced()
	if err != nil {
		return false
	}
	_, ok := adv.(*scorch.Scorch)
	return ok
}
