package index

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/highlight/highlighter/html"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Sort orders for Query.Sort.
const (
	SortRelevance = "relevance" // best match first (the default)
	SortRecent    = "recent"    // newest block first
)

// Result limits.
const (
	DefaultLimit = 20
	MaxLimit     = 500
)

// ErrBadCursor is returned for a Query.Cursor that no search returned, or one
// from a search with another sort order.
var ErrBadCursor = errors.New("index: invalid cursor")

// Query is one search. Text is in the query language (see query.go).
type Query struct {
	Text   string
	Sort   string    // SortRelevance (default) or SortRecent
	Limit  int       // hits per page: DefaultLimit when 0, at most MaxLimit
	Cursor string    // Result.NextCursor of the previous page; "" for the first
	Now    time.Time // the instant relative times (since:7d) count back from; zero means time.Now()
}

// Result is one page of hits, with facet counts over all matches.
type Result struct {
	Total      uint64  `json:"total"`
	Hits       []Hit   `json:"hits"`
	Facets     Facets  `json:"facets"`
	NextCursor string  `json:"next_cursor"` // "" on the last page
	TookMS     float64 `json:"took_ms"`
}

// Hit is one matching block. Its fields come from the index, so showing a result
// list needs no archive lookup; Seq names the event to open in the session.
type Hit struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	Seq       int64     `json:"seq"`
	Kind      string    `json:"kind"`
	Role      string    `json:"role"`
	Tool      string    `json:"tool"`
	Project   string    `json:"project"`
	Surface   string    `json:"surface"`
	Time      time.Time `json:"time"`
	IsError   bool      `json:"is_error"`
	Score     float64   `json:"score"`
	// Fragments are snippets of the block's text, HTML-escaped, with the matched
	// terms wrapped in <mark>…</mark>.
	Fragments []string `json:"fragments"`
}

// Facets counts all matches by kind, tool, project and month ("2006-01", newest
// first); the others are most frequent first. Only the first page (no cursor)
// carries them: later pages of the same query return empty lists.
type Facets struct {
	Kind    []FacetCount `json:"kind"`
	Tool    []FacetCount `json:"tool"`
	Project []FacetCount `json:"project"`
	Month   []FacetCount `json:"month"`
}

// FacetCount is the number of matches with one value of a facet field.
type FacetCount struct {
	Term  string `json:"term"`
	Count int    `json:"count"`
}

// facetSizes are how many values each facet returns.
var facetSizes = map[string]int{fieldKind: 12, fieldTool: 20, fieldProject: 20, fieldMonth: 36}

// Search runs q. A query that does not parse returns an error wrapping a
// *QueryError, whose message and position can be shown to the user.
func (ix *Index) Search(ctx context.Context, q Query) (Result, error) {
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	bq, err := buildQuery(q.Text, now)
	if err != nil {
		return Result{}, fmt.Errorf("search: %w", err)
	}
	bq = useQueryAnalyzer(bq)

	limit := q.Limit
	switch {
	case limit <= 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		limit = MaxLimit
	}
	sortBy := q.Sort
	if sortBy == "" {
		sortBy = SortRelevance
	}
	// One hit more than the page, to know whether another page follows: a page
	// that ends exactly at the last match must not hand out a cursor to nothing.
	req := bleve.NewSearchRequestOptions(bq, limit+1, 0, false)
	switch sortBy {
	case SortRelevance:
		req.SortByCustom(search.SortOrder{&search.SortScore{Desc: true}, &search.SortDocID{}})
	case SortRecent:
		req.SortByCustom(search.SortOrder{
			&search.SortField{Field: fieldTime, Type: search.SortFieldAsDate, Desc: true, Missing: search.SortFieldMissingLast},
			&search.SortDocID{},
		})
	default:
		return Result{}, fmt.Errorf("search: unknown sort %q (want %s or %s)", q.Sort, SortRelevance, SortRecent)
	}
	if q.Cursor != "" {
		after, err := decodeCursor(q.Cursor, sortBy)
		if err != nil {
			return Result{}, fmt.Errorf("search: %w", err)
		}
		req.SetSearchAfter(after)
	}
	req.Fields = storedFields
	req.Highlight = bleve.NewHighlightWithStyle(html.Name)
	req.Highlight.AddField(fieldText)
	// Facets describe the whole result set, which a later page does not change; they
	// are counted on the first page only because counting visits every hit, the
	// dominant cost of a common-term query on a large archive.
	if q.Cursor == "" {
		for field, size := range facetSizes {
			req.AddFacet(field, bleve.NewFacetRequest(field, size))
		}
	}

	ix.mu.RLock()
	bl := ix.bl
	if bl == nil {
		ix.mu.RUnlock()
		return Result{}, ErrClosed
	}
	res, err := bl.SearchInContext(ctx, req)
	ix.mu.RUnlock()
	if err != nil {
		return Result{}, fmt.Errorf("search: %w", err)
	}

	out := Result{
		Total:  res.Total,
		Hits:   make([]Hit, 0, len(res.Hits)),
		TookMS: float64(res.Took.Microseconds()) / 1000,
		Facets: Facets{
			Kind:    facetCounts(res.Facets[fieldKind]),
			Tool:    facetCounts(res.Facets[fieldTool]),
			Project: facetCounts(res.Facets[fieldProject]),
			Month:   facetCounts(res.Facets[fieldMonth]),
		},
	}
	sort.Slice(out.Facets.Month, func(i, j int) bool { return out.Facets.Month[i].Term > out.Facets.Month[j].Term })
	hits := res.Hits
	if len(hits) > limit {
		hits = hits[:limit]
		out.NextCursor = encodeCursor(sortBy, hits[limit-1])
	}
	for _, d := range hits {
		out.Hits = append(out.Hits, newHit(d))
	}
	return out, nil
}

func newHit(d *search.DocumentMatch) Hit {
	str := func(k string) string { s, _ := d.Fields[k].(string); return s }
	h := Hit{
		ID:        d.ID,
		SessionID: str(fieldSession),
		Kind:      str(fieldKind),
		Role:      str(fieldRole),
		Tool:      str(fieldTool),
		Project:   str(fieldProject),
		Surface:   str(fieldSurface),
		Score:     d.Score,
	}
	if v, err := strconv.ParseInt(str(fieldSeq), 10, 64); err == nil {
		h.Seq = v
	}
	if ms, err := strconv.ParseInt(str(fieldTime), 10, 64); err == nil {
		h.Time = time.UnixMilli(ms).UTC()
	}
	h.IsError, _ = d.Fields[fieldIsError].(bool)
	h.Fragments = make([]string, len(d.Fragments[fieldText]))
	for i, f := range d.Fragments[fieldText] {
		h.Fragments[i] = joinMarks.ReplaceAllString(f, "$1")
	}
	return h
}

// joinMarks finds two marks with nothing or only in-word punctuation between them.
// Bleve marks each matched token on its own, so a CJK phrase comes back as one mark
// per character or bigram and main.go as main and go. The formatter escapes the
// text, so "</mark>" and "<mark>" can only be marks.
var joinMarks = regexp.MustCompile(`</mark>([._:/\\-]{0,2})<mark>`)

func facetCounts(f *search.FacetResult) []FacetCount {
	out := []FacetCount{}
	if f == nil || f.Terms == nil {
		return out
	}
	for _, t := range f.Terms.Terms() {
		if t.Term == "" {
			continue
		}
		out = append(out, FacetCount{Term: t.Term, Count: t.Count})
	}
	return out
}

// cursor is what a NextCursor encodes: the sort order it belongs to and the sort
// values of the last hit of the page, for SearchAfter.
type cursor struct {
	Sort  string   `json:"s"`
	After []string `json:"a"`
}

func encodeCursor(sortBy string, last *search.DocumentMatch) string {
	c := cursor{Sort: sortBy}
	switch sortBy {
	case SortRelevance:
		// The score sort value is the literal "_score"; SearchAfter wants the
		// score itself, written so it parses back to the same float64.
		c.After = []string{strconv.FormatFloat(last.Score, 'g', -1, 64), last.ID}
	default:
		// DecodedSort holds the time as RFC 3339 with nanoseconds, the form
		// SearchAfter parses for a date sort.
		c.After = []string{last.DecodedSort[0], last.ID}
	}
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s, sortBy string) ([]string, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || len(c.After) != 2 {
		return nil, ErrBadCursor
	}
	if c.Sort != sortBy {
		return nil, fmt.Errorf("%w: it pages a %s search, not %s", ErrBadCursor, c.Sort, sortBy)
	}
	switch sortBy {
	case SortRelevance:
		_, err = strconv.ParseFloat(c.After[0], 64)
	default:
		_, err = time.Parse(time.RFC3339Nano, c.After[0])
	}
	if err != nil {
		return nil, ErrBadCursor
	}
	return c.After, nil
}

// useQueryAnalyzer rewrites the text queries in q to analyze with queryAnalyzer,
// in place. A match on one typed word becomes a phrase of its tokens, so the word
// is found as written rather than as any scattering of its parts: max_tokens,
// getUser (inside getUserName), src/app/main.go and 写入权限 are each a run of
// adjacent tokens in the index. A word (or quoted phrase) that yields one token
// becomes a term query for that token (see singleTerm). Fuzzy and prefix
// matches, other fields, and queries that chose an analyzer are left alone.
func useQueryAnalyzer(q query.Query) query.Query {
	isText := func(field string) bool { return field == fieldText || field == "" }
	switch q := q.(type) {
	case *query.BooleanQuery:
		if q.Must != nil {
			q.Must = useQueryAnalyzer(q.Must)
		}
		if q.Should != nil {
			q.Should = useQueryAnalyzer(q.Should)
		}
		if q.MustNot != nil {
			q.MustNot = useQueryAnalyzer(q.MustNot)
		}
	case *query.ConjunctionQuery:
		for i := range q.Conjuncts {
			q.Conjuncts[i] = useQueryAnalyzer(q.Conjuncts[i])
		}
	case *query.DisjunctionQuery:
		for i := range q.Disjuncts {
			q.Disjuncts[i] = useQueryAnalyzer(q.Disjuncts[i])
		}
	case *query.MatchPhraseQuery:
		if isText(q.FieldVal) && q.Analyzer == "" {
			if t := singleTerm(q.MatchPhrase, q.FieldVal, q.BoostVal); t != nil {
				return t
			}
			q.Analyzer = queryAnalyzer
		}
	case *query.MatchQuery:
		if !isText(q.FieldVal) || q.Analyzer != "" || q.Fuzziness != 0 || q.Prefix != 0 {
			break
		}
		words := strings.Fields(q.Match)
		phrases := make([]query.Query, len(words))
		for i, w := range words {
			if t := singleTerm(w, q.FieldVal, q.BoostVal); t != nil {
				phrases[i] = t
				continue
			}
			p := query.NewMatchPhraseQuery(w)
			p.SetField(q.FieldVal)
			p.Analyzer = queryAnalyzer
			p.BoostVal = q.BoostVal
			phrases[i] = p
		}
		switch {
		case len(phrases) == 1:
			return phrases[0]
		case len(phrases) > 1 && q.Operator == query.MatchQueryOperatorAnd:
			return query.NewConjunctionQuery(phrases)
		case len(phrases) > 1:
			return query.NewDisjunctionQuery(phrases)
		}
	}
	return q
}

// singleTerm returns a term query for text when the query analyzer makes one token
// of it, and nil otherwise. Bleve runs a match phrase of one token as a phrase
// searcher all the same, which reads the term's positions in every matching block
// to check a phrase there is nothing to check: a common word cost twice as much as
// its term query.
func singleTerm(text, field string, boost *query.Boost) query.Query {
	a, err := queryTokenizer()
	if err != nil {
		return nil
	}
	toks := a.Analyze([]byte(text))
	if len(toks) != 1 {
		return nil
	}
	t := query.NewTermQuery(string(toks[0].Term))
	t.SetField(field)
	t.BoostVal = boost
	return t
}

// queryTokenizer is the query analyzer, for singleTerm. Analyzers are safe for
// concurrent use.
var queryTokenizer = sync.OnceValues(func() (analysis.Analyzer, error) {
	im, err := newMapping()
	if err != nil {
		return nil, err
	}
	a := im.AnalyzerNamed(queryAnalyzer)
	if a == nil {
		return nil, fmt.Errorf("no analyzer %s", queryAnalyzer)
	}
	return a, nil
})
