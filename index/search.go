package index

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search"
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
	// Exhaustive ranks and counts every match with Bleve, however many: exact
	// relevance order and counts for a query matching a large part of the
	// archive, at a cost that grows with the matches (see plan.go).
	Exhaustive bool
}

// Result is one page of hits, with facet counts over all matches.
type Result struct {
	// Total is the number of matches, on every page; for a phrase it is
	// counted (or estimated) on the first page only, and a later page has 0
	// with TotalExact false.
	Total uint64 `json:"total"`
	// TotalExact is false when Total and the facet counts are estimates: a
	// phrase matching a large part of the archive is checked word order by
	// word order only in the window of matches ranked so far (see plan.go).
	TotalExact bool   `json:"total_exact"`
	Hits       []Hit  `json:"hits"`
	Facets     Facets `json:"facets"`
	// RankedAmong is set when a relevance search matched more than it ranks
	// at once: the page is the best of the RankedAmong newest matches, and
	// later pages go on to older windows of matches. 0 means ranked across all.
	RankedAmong uint64  `json:"ranked_among,omitempty"`
	NextCursor  string  `json:"next_cursor"` // "" on the last page
	TookMS      float64 `json:"took_ms"`
	// Notice tells the user how the search differs from what they typed:
	// text left out because it has no searchable words (symbols and emoji
	// are not indexed), a typo term searched with fewer typos. "" when none.
	Notice string `json:"notice,omitempty"`
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
	Agent     string    `json:"agent"` // the session's format: "dsh", "openhands"
	Surface   string    `json:"surface"`
	Time      time.Time `json:"time"`
	IsError   bool      `json:"is_error"`
	Score     float64   `json:"score"`
	// Fragments are snippets of the block's text, HTML-escaped, with the matched
	// terms wrapped in <mark>…</mark>.
	Fragments []string `json:"fragments"`
}

// Facets counts all matches by kind, tool, project, agent and month ("2006-01", newest
// first); the others are most frequent first. Only the first page (no cursor)
// carries them: later pages of the same query return empty lists.
type Facets struct {
	Kind    []FacetCount `json:"kind"`
	Tool    []FacetCount `json:"tool"`
	Project []FacetCount `json:"project"`
	Agent   []FacetCount `json:"agent"`
	Month   []FacetCount `json:"month"`
}

// FacetCount is the number of matches with one value of a facet field.
type FacetCount struct {
	Term  string `json:"term"`
	Count int    `json:"count"`
}

// facetSizes are how many values each facet returns.
var facetSizes = map[string]int{fieldKind: 12, fieldTool: 20, fieldProject: 20, fieldAgent: 8, fieldMonth: 36}

// Search runs q. A query that does not parse, or is over a limit (limits.go),
// returns an error wrapping a *QueryError, whose message and position can be
// shown to the user. Search stops with ctx's error when ctx is cancelled.
//
// Search is planned (see plan.go): its cost follows the page asked for, not
// the number of matches. Query.Exhaustive runs Bleve over every match instead.
func (ix *Index) Search(ctx context.Context, q Query) (Result, error) {
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	tree, notices, err := parseQuery(q.Text, now)
	if err != nil {
		return Result{}, fmt.Errorf("search: %w", err)
	}
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
	if sortBy != SortRelevance && sortBy != SortRecent {
		return Result{}, fmt.Errorf("search: unknown sort %q (want %s or %s)", q.Sort, SortRelevance, SortRecent)
	}
	var cur *cursor
	if q.Cursor != "" {
		if cur, err = decodeCursor(q.Cursor, sortBy); err != nil {
			return Result{}, fmt.Errorf("search: %w", err)
		}
	}

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bl == nil {
		return Result{}, ErrClosed
	}
	if !ix.plannable() {
		return Result{}, fmt.Errorf("search: %w", errNotPlannable)
	}
	start := time.Now()
	out, err := ix.searchPlanned(ctx, tree, limit, sortBy, cur, q.Exhaustive)
	if err != nil {
		return Result{}, fmt.Errorf("search: %w", err)
	}
	out.TookMS = float64(time.Since(start).Microseconds()) / 1000
	out.Notice = strings.Join(notices, "; ")
	return out, nil
}

// newRequest is the Bleve request for one page of q: size hits in sortBy order,
// after the sort values of a cursor, with stored fields and highlighting.
func newRequest(q query.Query, size int, sortBy string, after []string) *bleve.SearchRequest {
	req := bleve.NewSearchRequestOptions(q, size, 0, false)
	if sortBy == SortRecent {
		req.SortByCustom(search.SortOrder{
			&search.SortField{Field: fieldTime, Type: search.SortFieldAsDate, Desc: true, Missing: search.SortFieldMissingLast},
			&search.SortDocID{},
		})
	} else {
		req.SortByCustom(search.SortOrder{&search.SortScore{Desc: true}, &search.SortDocID{}})
	}
	if after != nil {
		req.SetSearchAfter(after)
	}
	req.Fields = storedFields
	req.Highlight = bleve.NewHighlightWithStyle(highlighterName)
	req.Highlight.AddField(fieldText)
	return req
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
		Agent:     str(fieldAgent),
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

// cursor is what a NextCursor encodes: the sort order it belongs to, the sort
// values of the last hit of the page, for SearchAfter, and for a planned search
// the window of matches that hit was ranked in (see plan.go).
type cursor struct {
	Sort     string   `json:"s"`
	After    []string `json:"a"`
	Windowed bool     `json:"w,omitempty"`
	Lo       int64    `json:"l,omitempty"`
	Hi       int64    `json:"h,omitempty"`
	// Resume: no hit yet; start with the newest matches below Hi. A phrase
	// search that stopped checking before its page was full hands this out.
	Resume bool `json:"r,omitempty"`
}

func encodeResumeCursor(sortBy string, hi int64) string {
	b, _ := json.Marshal(cursor{Sort: sortBy, Windowed: true, Hi: hi, Resume: true})
	return base64.RawURLEncoding.EncodeToString(b)
}

func encodeCursor(sortBy string, last *search.DocumentMatch, w *window) string {
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
	if w != nil {
		c.Windowed, c.Lo, c.Hi = true, w.lo, w.hi
	}
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s, sortBy string) (*cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, ErrBadCursor
	}
	if c.Sort != sortBy {
		return nil, fmt.Errorf("%w: it pages a %s search, not %s", ErrBadCursor, c.Sort, sortBy)
	}
	if c.Resume {
		if !c.Windowed || len(c.After) != 0 {
			return nil, ErrBadCursor
		}
		return &c, nil
	}
	if len(c.After) != 2 || c.Windowed && c.Lo >= c.Hi {
		return nil, ErrBadCursor
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
	return &c, nil
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
		if isText(q.FieldVal) && q.Analyzer == "" && q.Fuzziness == 0 {
			return textPhrase(q.MatchPhrase, q.FieldVal, q.BoostVal)
		}
	case *query.MatchQuery:
		if !isText(q.FieldVal) || q.Analyzer != "" || q.Fuzziness != 0 || q.Prefix != 0 {
			break
		}
		words := strings.Fields(q.Match)
		phrases := make([]query.Query, len(words))
		for i, w := range words {
			phrases[i] = textPhrase(w, q.FieldVal, q.BoostVal)
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

// textPhrase returns the query for text as a phrase of the query analyzer's
// tokens: match-none when there are none (a "none" clause the query
// language's AND skips), a term query for one token, else a phrase. Bleve
// runs a phrase of one token with a phrase searcher all the same, reading the
// term's positions in every matching block to check nothing: a common word
// cost twice its term query.
//
// A CJK character standing alone at either end of text (a word of one
// character, or 用 in 用API) may sit inside a longer run in a block, where the
// index holds only its bigrams: it becomes cjkChar, required beside the phrase
// of the rest, rather than a unigram position the block lacks.
func textPhrase(text, field string, boost *query.Boost) query.Query {
	a, err := queryTokenizer()
	if err != nil {
		p := query.NewMatchPhraseQuery(text)
		p.SetField(field)
		p.Analyzer = queryAnalyzer
		p.BoostVal = boost
		return p
	}
	tokens, chars := loneEdges(a.Analyze([]byte(text)))
	var clauses []query.Query
	for _, c := range chars {
		clauses = append(clauses, cjkChar(c, field, boost))
	}
	positions := tokenPositions(tokens)
	switch {
	case len(positions) == 0 && len(clauses) == 0:
		return query.NewMatchNoneQuery()
	case len(positions) == 0:
	case len(positions) == 1 && len(positions[0]) == 1:
		t := query.NewTermQuery(positions[0][0])
		t.SetField(field)
		t.BoostVal = boost
		clauses = append(clauses, t)
	default:
		clauses = append(clauses, newCappedPhrase(positions, field, boost))
	}
	if len(clauses) == 1 {
		return clauses[0]
	}
	return query.NewConjunctionQuery(clauses)
}

// loneEdges takes the lone CJK characters (unigrams) off both ends of tokens
// and returns the rest and those characters. One inside stays: with other
// words on both sides it stands alone in a matching block too.
func loneEdges(tokens analysis.TokenStream) (analysis.TokenStream, []string) {
	var chars []string
	if len(tokens) > 0 && tokens[0].Type == analysis.Single {
		chars = append(chars, string(tokens[0].Term))
		tokens = tokens[1:]
	}
	if n := len(tokens); n > 0 && tokens[n-1].Type == analysis.Single {
		chars = append(chars, string(tokens[n-1].Term))
		tokens = tokens[:n-1]
	}
	return tokens, chars
}

// cjkChar matches a CJK character wherever the index has it: alone (a unigram)
// or in a bigram, first or second. A one-character query is the rare one that
// reads many terms; how many depends on the character's company in the text.
func cjkChar(c, field string, boost *query.Boost) query.Query {
	first := query.NewPrefixQuery(c) // c itself, and the bigrams it starts
	first.SetField(field)
	second := query.NewRegexpQuery("." + regexp.QuoteMeta(c))
	second.SetField(field)
	q := query.NewDisjunctionQuery([]query.Query{first, second})
	q.BoostVal = boost
	return q
}

// tokenPositions groups tokens by position, from the first; a position with
// no token is an empty slot (any token matches there).
func tokenPositions(tokens analysis.TokenStream) [][]string {
	if len(tokens) == 0 {
		return nil
	}
	first, last := tokens[0].Position, tokens[0].Position
	for _, t := range tokens {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	out := make([][]string, last-first+1)
	for _, t := range tokens {
		out[t.Position-first] = append(out[t.Position-first], string(t.Term))
	}
	return out
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
