package index

// The search query language: what a person types into `logbook search` or the
// UI's search box. People come looking for the one command, error or answer
// they half remember, often pasting code, paths or URLs, so the language is
// forgiving about text (anything that is not clearly syntax is searched as
// text) and precise about syntax (a known filter with a bad value, an open
// quote or an open parenthesis is an error that says where and what was
// expected, never a silently different search).
//
// Grammar (whitespace separates clauses; AND binds tighter than OR, NOT and
// the - prefix tighter than AND; adjacent clauses are ANDed):
//
//	query   = [ or ] .
//	or      = and { "OR" and } .
//	and     = unary { [ "AND" ] unary } .
//	unary   = { "NOT" | "-" | "+" } primary .
//	primary = "(" [ or ] ")" | phrase | field | word .
//	phrase  = '"' { char | '\"' | '\\' } '"' .
//	field   = name ":" ( value | phrase [ "*" ] ) .
//	word    = text [ "*" | "~" [ "1" | "2" ] ] .
//
// Keywords are the uppercase words AND, OR and NOT standing alone; lowercase
// "and" is text. A - or + is an operator only directly before a letter, a
// quote, a group or an emoji; "-" alone, "->", "--force" and "-1" are text.
// "(" opens a group only at the start of a clause and ")" closes one only
// while a group is open, so getUser(id) and ":)" are text. A name:value whose
// name is not a filter (http://x, C:\dir, std::map) is text.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/blevesearch/bleve/v2/search/query"
)

// QueryError reports a search query that cannot be parsed: an unterminated
// quote or group, a dangling operator, or a filter with an invalid value.
type QueryError struct {
	// Pos is the byte offset in the query text where the problem starts, so
	// a UI can put the caret there.
	Pos int
	// Msg says what was wrong or what was expected there.
	Msg string
}

// Error renders the position as a 1-based column, the way people count.
func (e *QueryError) Error() string {
	return fmt.Sprintf("query: col %d: %s", e.Pos+1, e.Msg)
}

// maxQueryNesting bounds parenthesised groups. The parser recurses once per
// group, and nobody types more than a handful; the bound keeps a pasted or
// fuzzed blob from recursing without limit.
const maxQueryNesting = 64

// parseQuery parses the query language in text as Search does: a text over
// MaxQueryBytes is refused, and the tree is held to the other limits
// (limitQuery, whose notices it returns). Relative times (since:7d) count back
// from now. An empty query, or one that is only filters, matches everything the
// filters allow.
func parseQuery(text string, now time.Time) (node, []string, error) {
	if err := checkQueryBytes(text); err != nil {
		return node{}, nil, err
	}
	n, err := parseQueryText(text, now)
	if err != nil {
		return node{}, nil, err
	}
	return limitQuery(n)
}

// bleveQuery is the Bleve query searches run for n: n.query() with its text
// clauses analyzed by the query analyzer (useQueryAnalyzer).
func bleveQuery(n node) query.Query { return useQueryAnalyzer(n.query()) }

// nodeKind says what a node matches.
type nodeKind uint8

const (
	nodeAll        nodeKind = iota // every document: the empty query, or a bare *
	nodeAnd                        // all kids
	nodeOr                         // any kid
	nodeNot                        // not kids[0]
	nodeMatch                      // analyzed match on a text field
	nodePhrase                     // analyzed phrase on a text field
	nodePrefix                     // terms starting with value
	nodeFuzzy                      // terms within fuzz edits of value
	nodeTerm                       // exact keyword
	nodeBool                       // bool field equals flag
	nodeNumber                     // numeric field equals num
	nodeTimeFrom                   // time field >= at
	nodeTimeBefore                 // time field < at
)

// node is the parsed query: a small tree that is easy to test through its
// String form and is then turned into Bleve queries in one place.
type node struct {
	kind  nodeKind
	field string
	value string
	fuzz  int
	num   int64
	flag  bool
	at    time.Time
	kids  []node
	pos   int // byte offset of a text clause in the query, for errors and notices
}

// String renders the tree canonically, for tests and debugging, e.g.
// AND(text:"deploy", NOT(tool:"bash")).
func (n node) String() string {
	switch n.kind {
	case nodeAll:
		return "ALL"
	case nodeAnd, nodeOr:
		parts := make([]string, len(n.kids))
		for i, k := range n.kids {
			parts[i] = k.String()
		}
		name := "AND"
		if n.kind == nodeOr {
			name = "OR"
		}
		return name + "(" + strings.Join(parts, ", ") + ")"
	case nodeNot:
		return "NOT(" + n.kids[0].String() + ")"
	case nodeMatch, nodeTerm:
		return n.field + ":" + strconv.Quote(n.value)
	case nodePhrase:
		return n.field + ":phrase(" + strconv.Quote(n.value) + ")"
	case nodePrefix:
		return n.field + ":prefix(" + strconv.Quote(n.value) + ")"
	case nodeFuzzy:
		return fmt.Sprintf("%s:fuzzy(%s, %d)", n.field, strconv.Quote(n.value), n.fuzz)
	case nodeBool:
		return n.field + ":" + strconv.FormatBool(n.flag)
	case nodeNumber:
		return n.field + ":" + strconv.FormatInt(n.num, 10)
	case nodeTimeFrom:
		return n.field + ">=" + n.at.Format(time.RFC3339Nano)
	case nodeTimeBefore:
		return n.field + "<" + n.at.Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("?%d", n.kind)
}

// query builds the Bleve query for the tree. Field names here are the
// contract with the index mapping.
func (n node) query() query.Query {
	switch n.kind {
	case nodeAnd:
		var must, mustNot []query.Query
		for _, k := range n.kids {
			if k.kind == nodeNot {
				mustNot = append(mustNot, k.kids[0].query())
			} else {
				must = append(must, k.query())
			}
		}
		// The query-string flavour skips clauses whose text analyzes to no
		// tokens (a pasted "->" or "|"), which would otherwise make the
		// whole conjunction match nothing. With no negations, its Must is
		// exactly the conjunction we want.
		b := query.NewBooleanQueryForQueryString(must, nil, mustNot)
		if len(mustNot) == 0 {
			return b.Must
		}
		return b
	case nodeOr:
		qs := make([]query.Query, len(n.kids))
		for i, k := range n.kids {
			qs[i] = k.query()
		}
		return query.NewDisjunctionQuery(qs)
	case nodeNot:
		// Bleve starts a must-not-only boolean from match-all.
		return query.NewBooleanQuery(nil, nil, []query.Query{n.kids[0].query()})
	case nodeMatch:
		q := query.NewMatchQuery(n.value)
		q.SetField(n.field)
		// One typed word that the analyzer splits (getUserName, 写入权限,
		// deploy-failed) should find that word, not any one of its parts.
		q.SetOperator(query.MatchQueryOperatorAnd)
		return q
	case nodePhrase:
		q := query.NewMatchPhraseQuery(n.value)
		q.SetField(n.field)
		return q
	case nodePrefix:
		q := query.NewPrefixQuery(n.value)
		q.SetField(n.field)
		return q
	case nodeFuzzy:
		q := query.NewFuzzyQuery(n.value)
		q.SetFuzziness(n.fuzz)
		q.SetField(n.field)
		return q
	case nodeTerm:
		q := query.NewTermQuery(n.value)
		q.SetField(n.field)
		return q
	case nodeBool:
		q := query.NewBoolFieldQuery(n.flag)
		q.SetField(n.field)
		return q
	case nodeNumber:
		q := query.NewTermQuery(strconv.FormatInt(n.num, 10))
		q.SetField(n.field)
		return q
	case nodeTimeFrom:
		return newTimeQuery(timeFrom(n.at.UnixNano()))
	case nodeTimeBefore:
		return newTimeQuery(timeBefore(n.at.UnixNano()))
	}
	return query.NewMatchAllQuery()
}

// parseQueryText parses text into a tree; see the grammar at the top of the
// file. The empty query parses to nodeAll.
func parseQueryText(text string, now time.Time) (node, error) {
	toks, err := lexQuery(text)
	if err != nil {
		return node{}, err
	}
	p := &queryParser{toks: toks, now: now}
	n, ok, err := p.parseOr()
	if err != nil {
		return node{}, err
	}
	if t := p.peek(); t.kind != qtEOF {
		// The lexer only emits ")" inside a group, so this is unreachable
		// unless the parser and lexer disagree; say so rather than ignore.
		return node{}, &QueryError{Pos: t.pos, Msg: "unexpected " + t.kind.String()}
	}
	if !ok {
		return node{kind: nodeAll}, nil
	}
	return n, nil
}

// queryParser is a recursive-descent parser over the token list.
type queryParser struct {
	toks []qtoken
	i    int
	now  time.Time
	nest int // open groups
}

// peek returns the current token without consuming it.
func (p *queryParser) peek() qtoken { return p.toks[p.i] }

// next consumes and returns the current token; qtEOF is never consumed.
func (p *queryParser) next() qtoken {
	t := p.toks[p.i]
	if t.kind != qtEOF {
		p.i++
	}
	return t
}

// startsClause reports whether t can begin a unary clause.
func startsClause(t qtoken) bool {
	switch t.kind {
	case qtLParen, qtNot, qtMinus, qtPlus, qtPhrase, qtWord, qtField:
		return true
	}
	return false
}

// dangling is the error for a keyword without a clause where it needs one.
// Quoting is the way to search for the word itself.
func dangling(t qtoken, side string) error {
	return &QueryError{Pos: t.pos, Msg: fmt.Sprintf("%s needs a term %s it (to search for the word, quote it: \"%s\")", t.kind, side, t.kind)}
}

// parseOr parses or = and { "OR" and }. ok is false when the clauses were
// all empty (empty groups and quotes), which the caller drops.
func (p *queryParser) parseOr() (node, bool, error) {
	if t := p.peek(); t.kind == qtAnd || t.kind == qtOr {
		return node{}, false, dangling(t, "before")
	}
	var parts []node
	n, ok, err := p.parseAnd()
	if err != nil {
		return node{}, false, err
	}
	if ok {
		parts = append(parts, n)
	}
	for p.peek().kind == qtOr {
		op := p.next()
		if !startsClause(p.peek()) {
			return node{}, false, dangling(op, "after")
		}
		n, ok, err := p.parseAnd()
		if err != nil {
			return node{}, false, err
		}
		if ok {
			parts = append(parts, n)
		}
	}
	return combine(nodeOr, parts)
}

// parseAnd parses and = unary { [ "AND" ] unary }.
func (p *queryParser) parseAnd() (node, bool, error) {
	var parts []node
	for first := true; ; first = false {
		t := p.peek()
		switch {
		case t.kind == qtAnd && !first:
			p.next()
			if !startsClause(p.peek()) {
				return node{}, false, dangling(t, "after")
			}
		case t.kind == qtAnd:
			return node{}, false, dangling(t, "before")
		case !startsClause(t):
			return combine(nodeAnd, parts)
		}
		n, ok, err := p.parseUnary()
		if err != nil {
			return node{}, false, err
		}
		if ok {
			parts = append(parts, n)
		}
	}
}

// parseUnary parses unary = { "NOT" | "-" | "+" } primary. + only marks a
// clause required, which every ANDed clause already is.
func (p *queryParser) parseUnary() (node, bool, error) {
	negate := false
	for {
		t := p.peek()
		if t.kind != qtNot && t.kind != qtMinus && t.kind != qtPlus {
			break
		}
		p.next()
		if t.kind != qtPlus {
			negate = !negate
		}
		if !startsClause(p.peek()) {
			// Only NOT gets here: the lexer makes a sign text unless an
			// operand follows it.
			return node{}, false, dangling(t, "after")
		}
	}
	n, ok, err := p.parsePrimary()
	if err != nil || !ok || !negate {
		return n, ok, err
	}
	if n.kind == nodeNot { // -(NOT x) is x
		return n.kids[0], true, nil
	}
	return node{kind: nodeNot, kids: []node{n}}, true, nil
}

// parsePrimary parses a group, phrase, filter or word.
func (p *queryParser) parsePrimary() (node, bool, error) {
	t := p.next()
	switch t.kind {
	case qtLParen:
		if p.nest >= maxQueryNesting {
			return node{}, false, &QueryError{Pos: t.pos, Msg: fmt.Sprintf("groups nested more than %d deep", maxQueryNesting)}
		}
		p.nest++
		defer func() { p.nest-- }()
		var n node
		ok := false
		if p.peek().kind != qtRParen {
			var err error
			if n, ok, err = p.parseOr(); err != nil {
				return node{}, false, err
			}
		}
		if p.next().kind != qtRParen {
			return node{}, false, &QueryError{Pos: t.pos, Msg: `unclosed "(" (to search for a parenthesis, quote it)`}
		}
		return n, ok, nil
	case qtPhrase:
		if strings.TrimSpace(t.text) == "" {
			return node{}, false, nil
		}
		return node{kind: nodePhrase, field: "text", value: t.text, pos: t.pos}, true, nil
	case qtField:
		return p.field(t.name, t.text, t.vpos, true, t.star)
	case qtWord:
		if i := strings.IndexByte(t.text, ':'); i > 0 && isQueryField(t.text[:i]) {
			return p.field(t.text[:i], t.text[i+1:], t.pos+i+1, false, false)
		}
		n := textWord(t.text)
		n.pos = t.pos
		return n, true, nil
	}
	// startsClause was checked by every caller.
	return node{}, false, &QueryError{Pos: t.pos, Msg: "expected a term, found " + t.kind.String()}
}

// combine joins parts under an AND or OR, flattening nested ones of the same
// kind. Match-all drops out of an AND and absorbs an OR. ok is false for no
// parts at all.
func combine(kind nodeKind, parts []node) (node, bool, error) {
	var kids []node
	for _, k := range parts {
		switch {
		case k.kind == kind:
			kids = append(kids, k.kids...)
		case k.kind == nodeAll && kind == nodeOr:
			return node{kind: nodeAll}, true, nil
		case k.kind == nodeAll && kind == nodeAnd:
		default:
			kids = append(kids, k)
		}
	}
	switch {
	case len(parts) == 0:
		return node{}, false, nil
	case len(kids) == 0:
		return node{kind: nodeAll}, true, nil
	case len(kids) == 1:
		return kids[0], true, nil
	}
	return node{kind: kind, kids: kids}, true, nil
}

// textWord interprets an unquoted word searched as text: a trailing * makes
// a prefix, a trailing ~, ~1 or ~2 a fuzzy term, anything else is matched
// through the field's analyzer. Prefix and fuzzy terms skip the analyzer, so
// they are lowercased here as the analyzer would.
func textWord(w string) node {
	if strings.Trim(w, "*") == "" {
		return node{kind: nodeAll}
	}
	if stem, ok := strings.CutSuffix(w, "*"); ok {
		// src/* and foo.* mean the word before the punctuation; the index
		// holds no term ending in punctuation.
		stem = strings.TrimRightFunc(strings.TrimRight(stem, "*"), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		if stem != "" {
			return node{kind: nodePrefix, field: "text", value: strings.ToLower(stem)}
		}
	}
	if k := strings.LastIndexByte(w, '~'); k > 0 {
		// Only ~, ~1 and ~2: HEAD~3 is a git revision, not a typo.
		fuzz := 0
		switch w[k+1:] {
		case "", "1":
			fuzz = 1
		case "2":
			fuzz = 2
		}
		if fuzz > 0 && strings.IndexFunc(w[:k], isAlnum) >= 0 {
			return node{kind: nodeFuzzy, field: "text", value: strings.ToLower(w[:k]), fuzz: fuzz}
		}
	}
	return node{kind: nodeMatch, field: "text", value: w}
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// queryFieldNames are the filter names people type (matched ignoring case).
// The fields they search are the contract with the index mapping: "text"
// (analyzed); "kind", "role", "tool", "project", "session", "agent",
// "surface", "month" (keywords); "is_error" (bool); "time" (datetime);
// "seq", "turn", "step" (numeric).
var queryFieldNames = map[string]bool{
	"text": true, "kind": true, "role": true, "tool": true, "project": true, "session": true,
	"agent": true, "surface": true, "month": true, "is": true, "since": true, "after": true,
	"before": true, "seq": true, "turn": true, "step": true,
}

func isQueryField(name string) bool { return queryFieldNames[strings.ToLower(name)] }

// queryKinds maps the kind: values people type to the block kinds the index
// stores, so either the stored name or the everyday word works.
var queryKinds = map[string]string{
	"human": "human", "prompt": "human",
	"injected": "injected", "context": "injected",
	"assistant": "assistant", "answer": "assistant",
	"reasoning": "reasoning", "thinking": "reasoning",
	"tool_call": "tool_call", "call": "tool_call",
	"tool_result": "tool_result", "result": "tool_result", "output": "tool_result",
	"compaction": "compaction", "summary": "compaction",
	"approval": "approval",
	"title":    "title",
}

const queryKindList = "human (prompt), injected (context), assistant (answer), reasoning (thinking), " +
	"tool_call (call), tool_result (result, output), compaction (summary), approval, title"

// field builds the node for a name:value filter. quoted values are taken
// literally; star is a * after a quoted value. valuePos is where the value
// starts, for errors.
func (p *queryParser) field(name, value string, valuePos int, quoted, star bool) (node, bool, error) {
	key := strings.ToLower(name)
	fail := func(format string, args ...any) (node, bool, error) {
		return node{}, false, &QueryError{Pos: valuePos, Msg: key + ": " + fmt.Sprintf(format, args...)}
	}
	if key == "text" {
		switch {
		case value == "":
			return fail("expected text to search for")
		case quoted && star:
			return node{kind: nodePrefix, field: "text", value: strings.ToLower(value), pos: valuePos}, true, nil
		case quoted:
			return node{kind: nodePhrase, field: "text", value: value, pos: valuePos}, true, nil
		}
		n := textWord(value)
		n.pos = valuePos
		return n, true, nil
	}
	prefixable := key == "tool" || key == "agent" || key == "role" || key == "project" || key == "session"
	if !quoted && prefixable {
		value, star = strings.CutSuffix(value, "*")
	} else if star && !prefixable {
		value += "*" // not a prefix filter: let validation below reject it
	}
	if value == "" {
		if star {
			return fail("expected a value before *")
		}
		return fail("expected a value (to search for the text, quote it: \"%s:\")", name)
	}
	got := strconv.Quote(value)

	switch key {
	case "tool", "agent", "role", "project", "session":
		// Tool, agent and role names are stored lowercase; paths and session
		// IDs are exact.
		if key == "tool" || key == "agent" || key == "role" {
			value = strings.ToLower(value)
		}
		if star {
			return node{kind: nodePrefix, field: key, value: value, pos: valuePos}, true, nil
		}
		return node{kind: nodeTerm, field: key, value: value}, true, nil
	case "kind":
		k, ok := queryKinds[strings.ReplaceAll(strings.ToLower(value), "-", "_")]
		if !ok {
			return fail("expected one of %s; got %s (to search for the text, quote it)", queryKindList, got)
		}
		return node{kind: nodeTerm, field: "kind", value: k}, true, nil
	case "surface":
		s := strings.ReplaceAll(strings.ToLower(value), "_", "-")
		if s != "current" && s != "shadowed" && s != "log-only" {
			return fail("expected current, shadowed or log-only; got %s", got)
		}
		return node{kind: nodeTerm, field: "surface", value: s}, true, nil
	case "month":
		t, err := time.Parse("2006-01", value)
		if err != nil {
			return fail("expected a month like 2026-08; got %s", got)
		}
		return node{kind: nodeTerm, field: "month", value: t.Format("2006-01")}, true, nil
	case "is":
		if strings.ToLower(value) != "error" {
			return fail("expected is:error; got %s", got)
		}
		return node{kind: nodeBool, field: "is_error", flag: true}, true, nil
	case "since", "after", "before":
		t, err := parseQueryTime(value, p.now)
		if err != "" {
			return fail("%s; got %s", err, got)
		}
		if key == "before" {
			return node{kind: nodeTimeBefore, field: "time", at: t}, true, nil
		}
		return node{kind: nodeTimeFrom, field: "time", at: t}, true, nil
	case "seq", "turn", "step":
		n, err := strconv.ParseInt(value, 10, 64)
		// Bleve stores numbers as float64, exact only up to 2^53.
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return fail("expected a whole number; got %s", got)
		}
		return node{kind: nodeNumber, field: key, num: n}, true, nil
	}
	return fail("unknown filter") // unreachable: queryFieldNames and this switch agree
}

// parseQueryTime parses a since:/before: value: a count of hours, days,
// weeks, months or years back from now (24h, 7d, 2w, 3mo, 1y), a date taken
// as UTC midnight, or an RFC 3339 time. The problem, if any, is returned as a
// message.
func parseQueryTime(v string, now time.Time) (time.Time, string) {
	const expected = "expected a duration (24h, 7d, 2w, 3mo, 1y), a date (2026-10-01) or an RFC 3339 time"
	var t time.Time
	lv := strings.ToLower(v)
	digits := len(lv) - len(strings.TrimLeft(lv, "0123456789"))
	switch unit := lv[digits:]; {
	case digits == 0 || strings.HasPrefix(unit, "-"):
		// Not a count: a date or a time, or nothing we know.
		var err error
		if t, err = time.Parse("2006-01-02", v); err != nil {
			if t, err = time.Parse(time.RFC3339, v); err != nil {
				return t, expected
			}
		}
	case digits > 6:
		return t, "duration too long"
	default:
		n, _ := strconv.Atoi(lv[:digits])
		switch unit {
		case "h":
			t = now.Add(-time.Duration(n) * time.Hour)
		case "d":
			t = now.AddDate(0, 0, -n)
		case "w":
			t = now.AddDate(0, 0, -7*n)
		case "mo":
			t = now.AddDate(0, -n, 0)
		case "y":
			t = now.AddDate(-n, 0, 0)
		case "m":
			return t, "unit m is ambiguous: use mo for months or h for hours"
		default:
			return t, expected
		}
	}
	// Bleve encodes times as int64 nanoseconds, which span 1677 to 2262.
	if t.Before(query.MinRFC3339CompatibleTime) || t.After(query.MaxRFC3339CompatibleTime) {
		return t, "time out of range (1678 to 2262)"
	}
	return t.UTC(), ""
}
