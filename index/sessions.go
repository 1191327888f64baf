package index

import (
	"context"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// Sessions returns every session holding a match of the query text, each
// once, in no particular order. It evaluates the query exactly, as an
// exhaustive search counts it (phrases checked word order by word order), and
// reads the sessions off the matches' postings: one pass over the index,
// however many sessions match, where paging through hits reads every match's
// stored fields.
func (ix *Index) Sessions(ctx context.Context, text string, now time.Time) ([]string, error) {
	if now.IsZero() {
		now = time.Now()
	}
	tree, _, err := parseQuery(text, now)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bl == nil {
		return nil, ErrClosed
	}
	adv, err := ix.bl.Advanced()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("search: %w", errNotPlannable)
	}
	v := newSnapView(ctx, &ix.caches, snap, ix.bl.Mapping())
	e, err := v.evalExact(tree)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out, err := v.sessions(e.docs)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// sessions returns the sessions of docs, each once.
func (v *snapView) sessions(docs bits) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for i, s := range v.segs {
		if docs[i].IsEmpty() {
			continue
		}
		if err := v.ctx.Err(); err != nil {
			return nil, err
		}
		ff, err := s.cache.facetField(fieldSession)
		if err != nil {
			return nil, err
		}
		postings, err := ff.docsOf()
		if err != nil {
			return nil, err
		}
		for j, p := range postings {
			if id := ff.terms[j]; !seen[id] && docs[i].Intersects(p) {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out, nil
}
