package index

import (
	"context"
	"slices"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// cappedPhrase is a phrase on the text field that also finds it in blocks past
// maxTermLocations: a block keeps the locations of a term's first
// maxTermLocations occurrences only, so a phrase whose only occurrence comes
// later has no positions to match there. Such blocks name the term in
// fieldCapped; the ones holding every word of the phrase are checked against
// their stored text.
//
// When no block is capped for any of the phrase's words (nearly always), it
// searches exactly as the plain phrase does.
type cappedPhrase struct {
	*query.MultiPhraseQuery
}

func newCappedPhrase(positions [][]string, field string, boost *query.Boost) *cappedPhrase {
	p := query.NewMultiPhraseQuery(positions, field)
	p.BoostVal = boost
	return &cappedPhrase{p}
}

// Searcher implements query.Query.
func (q *cappedPhrase) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	phrase, err := q.MultiPhraseQuery.Searcher(ctx, r, m, o)
	if err != nil {
		return nil, err
	}
	if q.Fuzziness != 0 {
		return phrase, nil
	}
	field := q.FieldVal
	if field == "" {
		field = m.DefaultSearchField()
	}
	if field != fieldText {
		return phrase, nil
	}
	capped, err := q.cappedTerms(ctx, r)
	if err != nil {
		_ = phrase.Close()
		return nil, err
	}
	if len(capped) == 0 {
		return phrase, nil
	}
	// The blocks capped for one of the words that hold a word of every position.
	var conjuncts []query.Query
	for _, alts := range q.Terms {
		if len(alts) == 0 {
			continue
		}
		conjuncts = append(conjuncts, termsOf(alts, field))
	}
	conjuncts = append(conjuncts, termsOf(capped, fieldCapped))
	cands, err := query.NewConjunctionQuery(conjuncts).Searcher(ctx, r, m, o)
	if err != nil {
		_ = phrase.Close()
		return nil, err
	}
	checked := searcher.NewFilteringSearcher(ctx, cands, func(_ *search.SearchContext, d *search.DocumentMatch) bool {
		return phraseInBlock(r, d.IndexInternalID, q.Terms)
	})
	return searcher.NewDisjunctionSearcher(ctx, r, []search.Searcher{phrase, checked}, 0, o)
}

// cappedTerms returns the phrase's words some block is capped for.
func (q *cappedPhrase) cappedTerms(ctx context.Context, r index.IndexReader) ([]string, error) {
	var out []string
	for _, alts := range q.Terms {
		for _, t := range alts {
			if slices.Contains(out, t) {
				continue
			}
			tfr, err := r.TermFieldReader(ctx, []byte(t), fieldCapped, false, false, false)
			if err != nil {
				return nil, err
			}
			n := tfr.Count()
			if err := tfr.Close(); err != nil {
				return nil, err
			}
			if n > 0 {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// termsOf matches any of terms in field.
func termsOf(terms []string, field string) query.Query {
	qs := make([]query.Query, len(terms))
	for i, t := range terms {
		tq := query.NewTermQuery(t)
		tq.SetField(field)
		qs[i] = tq
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return query.NewDisjunctionQuery(qs)
}

// phraseInBlock reports whether the stored text of the block id holds the
// phrase positions, as Bleve's phrase searcher would find it given every
// location. A block whose text cannot be read counts as holding it: a hit too
// many, never one missed.
func phraseInBlock(r index.IndexReader, id index.IndexInternalID, positions [][]string) bool {
	ext, err := r.ExternalID(id)
	if err != nil {
		return true
	}
	doc, err := r.Document(ext)
	if err != nil || doc == nil {
		return true
	}
	var text []byte
	doc.VisitFields(func(f index.Field) {
		if f.Name() == fieldText {
			text = f.Value()
		}
	})
	return phraseIn(text, positions)
}

// phraseIn reports whether text, analyzed as the text field is, holds
// positions: at some position p, for each i, a token at p+i among positions[i]
// (an empty positions[i] takes any token).
func phraseIn(text []byte, positions [][]string) bool {
	first := slices.IndexFunc(positions, func(alts []string) bool { return len(alts) > 0 })
	if first < 0 {
		return false
	}
	ts := tokensPool.Get().(*tokens)
	defer tokensPool.Put(ts)
	ts.arena = ts.arena[:0]
	codeAnalyzer{keepWhole: true}.run(text, ts)
	words := map[string]bool{}
	for _, alts := range positions {
		for _, w := range alts {
			words[w] = true
		}
	}
	at := map[int][]string{} // the phrase's words in text, by position
	for _, t := range ts.out {
		if words[string(t.term)] {
			at[t.pos] = append(at[t.pos], string(t.term))
		}
	}
	for _, t := range ts.out {
		if !words[string(t.term)] || !slices.Contains(positions[first], string(t.term)) {
			continue
		}
		p := t.pos - first
		ok := true
		for i, alts := range positions {
			if len(alts) == 0 {
				continue
			}
			if !slices.ContainsFunc(at[p+i], func(s string) bool { return slices.Contains(alts, s) }) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
