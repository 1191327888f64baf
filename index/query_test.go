package index

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// queryTestNow is the fixed "now" relative times count back from.
var queryTestNow = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// Empty and bare terms.
		{"empty", ``, `ALL`},
		{"blank", " \t\n ", `ALL`},
		{"one word", `deploy`, `text:"deploy"`},
		{"implicit AND", `deploy failed`, `AND(text:"deploy", text:"failed")`},
		{"tabs and newlines", "deploy\tfailed\n", `AND(text:"deploy", text:"failed")`},
		{"case kept for the analyzer", `getUserName`, `text:"getUserName"`},
		{"snake case", `max_tokens`, `text:"max_tokens"`},
		{"hyphenated word", `deploy-failed`, `text:"deploy-failed"`},
		{"lowercase keywords are text", `deploy and not or`, `AND(text:"deploy", text:"and", text:"not", text:"or")`},

		// Boolean operators and precedence.
		{"explicit AND", `deploy AND failed`, `AND(text:"deploy", text:"failed")`},
		{"OR", `deploy OR rollback`, `OR(text:"deploy", text:"rollback")`},
		{"AND over OR left", `a b OR c`, `OR(AND(text:"a", text:"b"), text:"c")`},
		{"AND over OR right", `a OR b c`, `OR(text:"a", AND(text:"b", text:"c"))`},
		{"explicit AND over OR", `a OR b AND c`, `OR(text:"a", AND(text:"b", text:"c"))`},
		{"NOT over AND", `NOT a b`, `AND(NOT(text:"a"), text:"b")`},
		{"NOT over OR", `NOT a OR b`, `OR(NOT(text:"a"), text:"b")`},
		{"OR NOT", `a OR NOT b`, `OR(text:"a", NOT(text:"b"))`},
		{"group", `(a OR b) c`, `AND(OR(text:"a", text:"b"), text:"c")`},
		{"group right", `a (b OR c)`, `AND(text:"a", OR(text:"b", text:"c"))`},
		{"NOT group", `NOT (a OR b)`, `NOT(OR(text:"a", text:"b"))`},
		{"NOT glued to group", `NOT(a OR b)`, `NOT(OR(text:"a", text:"b"))`},
		{"AND glued to group", `a AND(b OR c)`, `AND(text:"a", OR(text:"b", text:"c"))`},
		{"minus group", `-(a OR b)`, `NOT(OR(text:"a", text:"b"))`},
		{"nested AND flattens", `a AND (b AND c)`, `AND(text:"a", text:"b", text:"c")`},
		{"nested OR flattens", `(a OR b) OR c`, `OR(text:"a", text:"b", text:"c")`},
		{"redundant parens", `((a))`, `text:"a"`},
		{"empty parens", `()`, `ALL`},
		{"empty parens between", `a () b`, `AND(text:"a", text:"b")`},
		{"empty parens in OR", `a OR ()`, `text:"a"`},
		{"NOT empty parens", `NOT ()`, `ALL`},
		{"nested empty parens", `(()) deploy`, `text:"deploy"`},
		{"group then word", `(a)b`, `AND(text:"a", text:"b")`},

		// Signs.
		{"minus", `-deploy`, `NOT(text:"deploy")`},
		{"minus after term", `deploy -staging`, `AND(text:"deploy", NOT(text:"staging"))`},
		{"plus", `+deploy failed`, `AND(text:"deploy", text:"failed")`},
		{"plus in OR", `a OR +b`, `OR(text:"a", text:"b")`},
		{"minus phrase", `-"connection refused"`, `NOT(text:phrase("connection refused"))`},
		{"minus filter", `-tool:bash`, `NOT(tool:"bash")`},
		{"only negations", `-a -b`, `AND(NOT(text:"a"), NOT(text:"b"))`},
		{"double NOT", `NOT NOT deploy`, `text:"deploy"`},
		{"NOT minus", `NOT -deploy`, `text:"deploy"`},
		{"minus NOT group", `-(NOT deploy)`, `text:"deploy"`},
		{"triple negation", `NOT NOT -deploy`, `NOT(text:"deploy")`},
		{"minus keyword is text", `-AND`, `NOT(text:"AND")`},
		{"minus NOT is text", `-NOT deploy`, `AND(NOT(text:"NOT"), text:"deploy")`},
		{"long flag is text", `--force`, `text:"--force"`},
		{"short flag is negation", `git push -f`, `AND(text:"git", text:"push", NOT(text:"f"))`},
		{"negative number is text", `exit -1`, `AND(text:"exit", text:"-1")`},
		{"lone minus is text", `a - b`, `AND(text:"a", text:"-", text:"b")`},
		{"lone plus is text", `a + b`, `AND(text:"a", text:"+", text:"b")`},
		{"C++", `C++`, `text:"C++"`},
		{"plus one", `+1`, `text:"+1"`},
		{"trailing minus in group", `(a -)`, `AND(text:"a", text:"-")`},
		{"minus before punctuation is text", `-= +=`, `AND(text:"-=", text:"+=")`},
		{"minus before path is text", `-/tmp`, `text:"-/tmp"`},
		{"minus before star is text", `-*`, `text:"-*"`},
		{"minus CJK", `-写入`, `NOT(text:"写入")`},

		// Phrases.
		{"phrase", `"connection refused"`, `text:phrase("connection refused")`},
		{"phrase and word", `"connection refused" port`, `AND(text:phrase("connection refused"), text:"port")`},
		{"one-word phrase stays literal", `"depl*"`, `text:phrase("depl*")`},
		{"quoted keyword", `"AND"`, `text:phrase("AND")`},
		{"quoted filter", `"tool:bash"`, `text:phrase("tool:bash")`},
		{"escaped quote", `"say \"hi\""`, `text:phrase("say \"hi\"")`},
		{"escaped backslash", `"a\\b"`, `text:phrase("a\\b")`},
		{"other backslashes kept", `"C:\Users\me"`, `text:phrase("C:\\Users\\me")`},
		{"empty phrase", `""`, `ALL`},
		{"blank phrase dropped", `deploy "  "`, `text:"deploy"`},
		{"phrase glued to word", `"a b"c`, `AND(text:phrase("a b"), text:"c")`},
		{"quote inside a word is text", `fmt.Println("hi")`, `text:"fmt.Println(\"hi\")"`},
		{"apostrophe", `don't`, `text:"don't"`},

		// Prefix and fuzzy.
		{"prefix", `depl*`, `text:prefix("depl")`},
		{"prefix lowercased", `Depl*`, `text:prefix("depl")`},
		{"prefix identifier", `getUser*`, `text:prefix("getuser")`},
		{"prefix trailing punctuation", `src/*`, `text:prefix("src")`},
		{"prefix many stars", `depl**`, `text:prefix("depl")`},
		{"star alone", `*`, `ALL`},
		{"star with term", `* deploy`, `text:"deploy"`},
		{"star in OR", `deploy OR *`, `ALL`},
		{"glob is text", `*.go`, `text:"*.go"`},
		{"comment opener is text", `/*`, `text:"/*"`},
		{"inner star is text", `a*b`, `text:"a*b"`},
		{"fuzzy", `deplyo~`, `text:fuzzy("deplyo", 1)`},
		{"fuzzy 1", `deplyo~1`, `text:fuzzy("deplyo", 1)`},
		{"fuzzy 2", `Deplyo~2`, `text:fuzzy("deplyo", 2)`},
		{"git revision", `HEAD~3`, `text:"HEAD~3"`},
		{"home path", `~/.bashrc`, `text:"~/.bashrc"`},
		{"tilde alone", `~`, `text:"~"`},
		{"tilde inside", `a~b`, `text:"a~b"`},

		// Filters.
		{"tool", `tool:bash deploy`, `AND(tool:"bash", text:"deploy")`},
		{"field names ignore case", `Tool:Bash`, `tool:"bash"`},
		{"upper field", `TOOL:bash`, `tool:"bash"`},
		{"tool prefix", `tool:mcp__*`, `tool:prefix("mcp__")`},
		{"quoted tool", `tool:"bash"`, `tool:"bash"`},
		{"role", `role:User`, `role:"user"`},
		{"agent", `agent:dsh`, `agent:"dsh"`},
		{"project", `project:/home/me/src/logbook`, `project:"/home/me/src/logbook"`},
		{"project keeps case", `project:/Users/Me`, `project:"/Users/Me"`},
		{"project prefix", `project:/home/me/*`, `project:prefix("/home/me/")`},
		{"project quoted", `project:"/Users/me/My Project"`, `project:"/Users/me/My Project"`},
		{"project quoted prefix", `project:"/Users/me/My Pro"*`, `project:prefix("/Users/me/My Pro")`},
		{"project quoted star kept", `project:"/tmp/*"`, `project:"/tmp/*"`},
		{"project windows", `project:C:\src\app`, `project:"C:\\src\\app"`},
		{"session", `session:ABC-123`, `session:"ABC-123"`},
		{"session prefix", `session:0196f3*`, `session:prefix("0196f3")`},
		{"session with colon", `session:a:b`, `session:"a:b"`},
		{"filter closes group", `(tool:bash OR tool:zsh)`, `OR(tool:"bash", tool:"zsh")`},
		{"quoted filter then word", `tool:"bash"deploy`, `AND(tool:"bash", text:"deploy")`},
		{"surface", `surface:current`, `surface:"current"`},
		{"surface shadowed", `surface:Shadowed`, `surface:"shadowed"`},
		{"surface log-only", `surface:log-only`, `surface:"log-only"`},
		{"surface underscore", `surface:log_only`, `surface:"log-only"`},
		{"is error", `is:error`, `is_error:true`},
		{"is error upper", `IS:ERROR`, `is_error:true`},
		{"not error", `deploy -is:error`, `AND(text:"deploy", NOT(is_error:true))`},
		{"month", `month:2026-08`, `month:"2026-08"`},
		{"seq", `seq:123`, `seq:123`},
		{"seq negative", `seq:-1`, `seq:-1`},
		{"turn", `turn:3`, `turn:3`},
		{"step", `step:0`, `step:0`},
		{"text field", `text:deploy`, `text:"deploy"`},
		{"text field phrase", `text:"a b"`, `text:phrase("a b")`},
		{"text field prefix", `text:depl*`, `text:prefix("depl")`},
		{"only filters", `tool:bash is:error`, `AND(tool:"bash", is_error:true)`},

		// Times, relative to queryTestNow (2026-10-15T12:00:00Z).
		{"since days", `since:7d`, `time>=2026-10-08T12:00:00Z`},
		{"since hours", `since:24h`, `time>=2026-10-14T12:00:00Z`},
		{"since weeks", `since:2w`, `time>=2026-10-01T12:00:00Z`},
		{"since months", `since:3mo`, `time>=2026-07-15T12:00:00Z`},
		{"since years", `since:1y`, `time>=2025-10-15T12:00:00Z`},
		{"since zero", `since:0d`, `time>=2026-10-15T12:00:00Z`},
		{"since upper", `SINCE:7D`, `time>=2026-10-08T12:00:00Z`},
		{"since date", `since:2026-10-01`, `time>=2026-10-01T00:00:00Z`},
		{"since RFC 3339", `since:2026-10-01T09:30:00+02:00`, `time>=2026-10-01T07:30:00Z`},
		{"since fractional", `since:2026-10-01T09:30:00.5Z`, `time>=2026-10-01T09:30:00.5Z`},
		{"since quoted", `since:"2026-10-01"`, `time>=2026-10-01T00:00:00Z`},
		{"after alias", `after:2026-10-01`, `time>=2026-10-01T00:00:00Z`},
		{"before date", `before:2026-10-01`, `time<2026-10-01T00:00:00Z`},
		{"before relative", `before:1d`, `time<2026-10-14T12:00:00Z`},
		{"window", `since:7d before:1d tool:bash`, `AND(time>=2026-10-08T12:00:00Z, time<2026-10-14T12:00:00Z, tool:"bash")`},

		// Kind aliases are covered in TestParseQueryKinds.
		{"kind", `kind:tool_result`, `kind:"tool_result"`},

		// Unknown field names, paths, URLs and code are text.
		{"unknown field", `foo:bar`, `text:"foo:bar"`},
		{"code", `a:b`, `text:"a:b"`},
		{"url", `https://github.com/x/y?q=is:open`, `text:"https://github.com/x/y?q=is:open"`},
		{"host port", `localhost:8080`, `text:"localhost:8080"`},
		{"c++ scope", `std::vector`, `text:"std::vector"`},
		{"windows path", `C:\Users\me\file.go`, `text:"C:\\Users\\me\\file.go"`},
		{"windows path with space", `C:\Program Files\x`, `AND(text:"C:\\Program", text:"Files\\x")`},
		{"leading colon", `:wq`, `text:":wq"`},
		{"unknown quoted field", `foo:"bar baz"`, `AND(text:"foo:\"bar", text:"baz\"")`},

		// Parentheses inside words.
		{"call", `foo()`, `text:"foo()"`},
		{"call with argument", `getUser(id)`, `text:"getUser(id)"`},
		{"call inside group", `(getUser(id) OR x)`, `OR(text:"getUser(id)", text:"x")`},
		{"smiley", `:)`, `text:":)"`},
		{"frown", `:(`, `text:":("`},
		{"stray close paren", `a)`, `text:"a)"`},
		{"lone close paren", `a ) b`, `AND(text:"a", text:")", text:"b")`},
		{"open paren inside word", `foo(`, `text:"foo("`},
		{"closing extra paren", `(a))`, `AND(text:"a", text:")")`},

		// Punctuation and symbols.
		{"arrow", `a -> b`, `AND(text:"a", text:"->", text:"b")`},
		{"pipe", `ps | grep`, `AND(text:"ps", text:"|", text:"grep")`},
		{"shell ops", `a && b || c`, `AND(text:"a", text:"&&", text:"b", text:"||", text:"c")`},
		{"dollar", `$HOME`, `text:"$HOME"`},
		{"hash", `#123`, `text:"#123"`},
		{"at", `@user`, `text:"@user"`},
		{"equals", `key=value`, `text:"key=value"`},

		// CJK and emoji.
		{"cjk", `写入权限`, `text:"写入权限"`},
		{"cjk words", `写入权限 失败`, `AND(text:"写入权限", text:"失败")`},
		{"cjk phrase", `"写入 权限"`, `text:phrase("写入 权限")`},
		{"cjk prefix", `写入*`, `text:prefix("写入")`},
		{"cjk with filter", `kind:answer 権限`, `AND(kind:"assistant", text:"権限")`},
		{"ideographic space", "写入\u3000权限", `AND(text:"写入", text:"权限")`},
		{"emoji", `🚀 deploy`, `AND(text:"🚀", text:"deploy")`},
		{"emoji negated", `deploy -🎉`, `AND(text:"deploy", NOT(text:"🎉"))`},
		{"emoji zwj", "👩\u200d💻", `text:"👩\u200d💻"`}, // strconv.Quote escapes the joiner
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := parseQueryText(tt.in, queryTestNow)
			require.NoError(t, err, "query %q", tt.in)
			assert.Equal(t, tt.want, n.String(), "query %q", tt.in)
		})
	}
}

func TestParseQueryKinds(t *testing.T) {
	tests := map[string]string{
		"human": "human", "prompt": "human", "Prompt": "human",
		"injected": "injected", "context": "injected",
		"assistant": "assistant", "answer": "assistant",
		"reasoning": "reasoning", "thinking": "reasoning",
		"tool_call": "tool_call", "call": "tool_call", "tool-call": "tool_call",
		"tool_result": "tool_result", "result": "tool_result", "output": "tool_result", "TOOL_RESULT": "tool_result",
		"compaction": "compaction", "summary": "compaction",
		"approval": "approval",
		"title":    "title",
	}
	for in, want := range tests {
		n, err := parseQueryText("kind:"+in, queryTestNow)
		require.NoError(t, err, in)
		assert.Equal(t, `kind:"`+want+`"`, n.String(), in)
	}
}

func TestParseQueryErrors(t *testing.T) {
	tests := []struct {
		name, in string
		pos      int
		msg      string // a substring of the message
	}{
		{"unterminated quote", `"connection refused`, 0, "unterminated quote"},
		{"unterminated after word", `deploy "fail`, 7, "unterminated quote"},
		{"unterminated by escape", `"C:\dir\"`, 0, `write \\ for a backslash`},
		{"unterminated negated", `-"x`, 1, "unterminated quote"},
		{"unterminated filter value", `project:"/tmp`, 8, "unterminated quote"},
		{"unclosed group", `(a OR b`, 0, `unclosed "("`},
		{"unclosed inner group", `a (b (c)`, 2, `unclosed "("`},
		{"unclosed empty group", `(`, 0, `unclosed "("`},
		{"AND alone", `AND`, 0, "AND needs a term before it"},
		{"leading AND", `AND deploy`, 0, "AND needs a term before it"},
		{"leading OR", `OR deploy`, 0, "OR needs a term before it"},
		{"trailing AND", `deploy AND`, 7, "AND needs a term after it"},
		{"trailing OR", `deploy OR`, 7, "OR needs a term after it"},
		{"trailing NOT", `deploy NOT`, 7, "NOT needs a term after it"},
		{"NOT alone", `NOT`, 0, "NOT needs a term after it"},
		{"AND OR", `a AND OR b`, 2, "AND needs a term after it"},
		{"OR OR", `a OR OR b`, 2, "OR needs a term after it"},
		{"NOT AND", `NOT AND b`, 0, "NOT needs a term after it"},
		{"AND in empty group", `(AND)`, 1, "AND needs a term before it"},
		{"OR opening group", `a (OR b)`, 3, "OR needs a term before it"},
		{"OR closing group", `(a OR)`, 3, "OR needs a term after it"},
		{"NOT closing group", `(a NOT)`, 3, "NOT needs a term after it"},
		{"since banana", `since:banana`, 6, "since: expected a duration"},
		{"since empty", `since:`, 6, "since: expected a value"},
		{"since then space", `since: 7d`, 6, "since: expected a value"},
		{"since minutes", `since:7m`, 6, "ambiguous"},
		{"since unknown unit", `since:7x`, 6, "expected a duration"},
		{"since too long", `since:12345678d`, 6, "too long"},
		{"since too old", `since:0001-01-01`, 6, "out of range"},
		{"since far back", `since:999999y`, 6, "out of range"},
		{"since bad date", `since:2026-13-01`, 6, "expected a duration"},
		{"since star", `since:7d*`, 6, "expected a duration"},
		{"after bad", `after:yesterday`, 6, "after: expected"},
		{"before bad", `deploy before:soon`, 14, "before: expected"},
		{"kind unknown", `kind:Deployment`, 5, "kind: expected one of"},
		{"kind yaml", `kind: Service`, 5, "kind: expected a value"},
		{"kind prefix", `kind:tool*`, 5, "kind: expected one of"},
		{"surface unknown", `surface:gone`, 8, "surface: expected current, shadowed or log-only"},
		{"is unknown", `is:open`, 3, "is: expected is:error"},
		{"month short", `month:2026-8`, 6, "month: expected a month"},
		{"month word", `month:August`, 6, "month: expected a month"},
		{"seq word", `seq:abc`, 4, "seq: expected a whole number"},
		{"turn fraction", `turn:1.5`, 5, "turn: expected a whole number"},
		{"seq huge", `seq:99999999999999999999`, 4, "seq: expected a whole number"},
		{"step beyond float", `step:9007199254740993`, 5, "step: expected a whole number"},
		{"tool empty", `tool:`, 5, "tool: expected a value"},
		{"tool quoted empty", `tool:""`, 5, "tool: expected a value"},
		{"tool star only", `tool:*`, 5, "tool: expected a value before *"},
		{"text empty", `text:`, 5, "text: expected text"},
		{"error in group", `(deploy since:x)`, 14, "since: expected"},
		{"error after CJK", `写入 since:x`, 13, "since: expected"},
		{"too deep", strings.Repeat("(", maxQueryNesting+1) + "a" + strings.Repeat(")", maxQueryNesting+1), maxQueryNesting, "nested"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parseQuery(tt.in, queryTestNow)
			var qe *QueryError
			require.ErrorAs(t, err, &qe, "query %q", tt.in)
			assert.Equal(t, tt.pos, qe.Pos, "query %q: %v", tt.in, err)
			assert.Contains(t, qe.Msg, tt.msg, "query %q", tt.in)
		})
	}
}

func TestQueryErrorMessage(t *testing.T) {
	_, _, err := parseQuery(`deploy "fail`, queryTestNow)
	require.Error(t, err)
	assert.Equal(t, "query: col 8: unterminated quote", err.Error())

	_, _, err = parseQuery(`since:banana`, queryTestNow)
	require.Error(t, err)
	assert.Equal(t, `query: col 7: since: expected a duration (24h, 7d, 2w, 3mo, 1y), a date (2026-10-01) or an RFC 3339 time; got "banana"`, err.Error())
}

func TestParseQueryDeepNegationChain(t *testing.T) {
	// Chains of prefixes loop rather than recurse; any length parses.
	n, err := parseQueryText(strings.Repeat("NOT ", 10001)+"x", queryTestNow)
	require.NoError(t, err)
	assert.Equal(t, `NOT(text:"x")`, n.String())
}

// TestBleveQuery: the Bleve queries searches run for a query text (parseQuery,
// then bleveQuery), text clauses already analyzed by the query analyzer.
func TestBleveQuery(t *testing.T) {
	build := func(t *testing.T, in string) query.Query {
		t.Helper()
		n, _, err := parseQuery(in, queryTestNow)
		require.NoError(t, err, in)
		q := bleveQuery(n)
		if v, ok := q.(query.ValidatableQuery); ok {
			require.NoError(t, v.Validate(), in)
		}
		return q
	}
	// match checks a word that analyzes to one term.
	match := func(t *testing.T, q query.Query, want string) {
		t.Helper()
		m, ok := q.(*query.TermQuery)
		require.True(t, ok, "%T", q)
		assert.Equal(t, want, m.Term)
		assert.Equal(t, "text", m.FieldVal)
	}
	phrase := func(t *testing.T, q query.Query, want ...string) {
		t.Helper()
		p, ok := q.(*cappedPhrase)
		require.True(t, ok, "%T", q)
		var terms [][]string
		for _, w := range want {
			terms = append(terms, []string{w})
		}
		assert.Equal(t, terms, p.Terms)
		assert.Equal(t, "text", p.FieldVal)
	}

	t.Run("empty matches all", func(t *testing.T) {
		assert.IsType(t, &query.MatchAllQuery{}, build(t, ""))
		assert.IsType(t, &query.MatchAllQuery{}, build(t, "()"))
	})

	t.Run("filter and word", func(t *testing.T) {
		c, ok := build(t, "tool:bash deploy").(*query.ConjunctionQuery)
		require.True(t, ok)
		require.Len(t, c.Conjuncts, 2)
		term, ok := c.Conjuncts[0].(*query.TermQuery)
		require.True(t, ok, "%T", c.Conjuncts[0])
		assert.Equal(t, "bash", term.Term)
		assert.Equal(t, "tool", term.FieldVal)
		match(t, c.Conjuncts[1], "deploy")
	})

	t.Run("a CJK word is the phrase of its overlapping pairs", func(t *testing.T) {
		phrase(t, build(t, "写入权限"), "写入", "入权", "权限")
		// One character: wherever the index has it, alone or in a bigram.
		d, ok := build(t, "写").(*query.DisjunctionQuery)
		require.True(t, ok, "%T", build(t, "写"))
		require.Len(t, d.Disjuncts, 2)
		assert.Equal(t, "写", d.Disjuncts[0].(*query.PrefixQuery).Prefix)
		assert.Equal(t, ".写", d.Disjuncts[1].(*query.RegexpQuery).Regexp)
	})

	t.Run("an identifier is the phrase of its parts", func(t *testing.T) {
		phrase(t, build(t, "getUserName"), "get", "user", "name")
	})

	t.Run("negation", func(t *testing.T) {
		b, ok := build(t, "deploy -is:error").(*query.BooleanQuery)
		require.True(t, ok)
		must, ok := b.Must.(*query.ConjunctionQuery)
		require.True(t, ok, "%T", b.Must)
		require.Len(t, must.Conjuncts, 1)
		match(t, must.Conjuncts[0], "deploy")
		not, ok := b.MustNot.(*query.DisjunctionQuery)
		require.True(t, ok, "%T", b.MustNot)
		require.Len(t, not.Disjuncts, 1)
		bf, ok := not.Disjuncts[0].(*query.BoolFieldQuery)
		require.True(t, ok, "%T", not.Disjuncts[0])
		assert.True(t, bf.Bool)
		assert.Equal(t, "is_error", bf.FieldVal)
		assert.Nil(t, b.Should)
	})

	t.Run("only a negation", func(t *testing.T) {
		b, ok := build(t, "-tool:bash").(*query.BooleanQuery)
		require.True(t, ok)
		assert.Nil(t, b.Must)
		not, ok := b.MustNot.(*query.DisjunctionQuery)
		require.True(t, ok)
		require.Len(t, not.Disjuncts, 1)
		assert.IsType(t, &query.TermQuery{}, not.Disjuncts[0])
	})

	t.Run("or", func(t *testing.T) {
		d, ok := build(t, "deploy OR rollback").(*query.DisjunctionQuery)
		require.True(t, ok)
		require.Len(t, d.Disjuncts, 2)
		match(t, d.Disjuncts[0], "deploy")
		match(t, d.Disjuncts[1], "rollback")
	})

	t.Run("phrase", func(t *testing.T) {
		phrase(t, build(t, `"connection refused"`), "connection", "refused")
	})

	t.Run("prefix", func(t *testing.T) {
		p, ok := build(t, "Depl*").(*query.PrefixQuery)
		require.True(t, ok)
		assert.Equal(t, "depl", p.Prefix)
		assert.Equal(t, "text", p.FieldVal)

		p, ok = build(t, "project:/home/me/*").(*query.PrefixQuery)
		require.True(t, ok)
		assert.Equal(t, "/home/me/", p.Prefix)
		assert.Equal(t, "project", p.FieldVal)
	})

	t.Run("fuzzy", func(t *testing.T) {
		f, ok := build(t, "Deplyo~2").(*query.FuzzyQuery)
		require.True(t, ok)
		assert.Equal(t, "deplyo", f.Term)
		assert.Equal(t, 2, f.Fuzziness)
		assert.Equal(t, "text", f.FieldVal)

		f, ok = build(t, "deplyo~").(*query.FuzzyQuery)
		require.True(t, ok)
		assert.Equal(t, 1, f.Fuzziness)

		// The limits apply: two edits of a short word are searched as one.
		f, ok = build(t, "dply~2").(*query.FuzzyQuery)
		require.True(t, ok)
		assert.Equal(t, 1, f.Fuzziness)
	})

	t.Run("time window", func(t *testing.T) {
		c, ok := build(t, "since:7d before:2026-10-14").(*query.ConjunctionQuery)
		require.True(t, ok)
		require.Len(t, c.Conjuncts, 2)
		since, ok := c.Conjuncts[0].(*timeQuery)
		require.True(t, ok)
		assert.Equal(t, queryTestNow.AddDate(0, 0, -7).UnixNano(), since.from, "since: is inclusive")
		assert.Equal(t, int64(math.MaxInt64), since.to)

		before, ok := c.Conjuncts[1].(*timeQuery)
		require.True(t, ok)
		assert.Equal(t, int64(math.MinInt64+1), before.from, "a block without a time matches neither")
		assert.Equal(t, time.Date(2026, 10, 14, 0, 0, 0, 0, time.UTC).UnixNano()-1, before.to, "before: is exclusive")
	})

	t.Run("numbers", func(t *testing.T) {
		n, ok := build(t, "seq:123").(*query.TermQuery)
		require.True(t, ok, "seq, turn and step are exact-match keyword fields")
		assert.Equal(t, "seq", n.FieldVal)
		assert.Equal(t, "123", n.Term)
	})

	t.Run("keywords", func(t *testing.T) {
		for in, want := range map[string][2]string{
			"month:2026-08":    {"month", "2026-08"},
			"kind:prompt":      {"kind", "human"},
			"surface:log_only": {"surface", "log-only"},
			"session:ABC":      {"session", "ABC"},
			"agent:DSH":        {"agent", "dsh"},
			"role:user":        {"role", "user"},
		} {
			term, ok := build(t, in).(*query.TermQuery)
			require.True(t, ok, in)
			assert.Equal(t, want[0], term.FieldVal, in)
			assert.Equal(t, want[1], term.Term, in)
		}
	})
}

// TestQuerySearchesIndex runs queries through Search on a small index, to
// check the semantics the query types alone do not show: clauses that analyze
// to nothing, negation-only queries, and the range bounds.
func TestQuerySearchesIndex(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 10, d, 8, 0, 0, 0, time.UTC) }
	blk := func(id, text, tool, kind, project string, isErr bool, tm time.Time, seq int64) archive.Block {
		return archive.Block{ID: id, SessionID: "s", Text: text, Tool: tool, Kind: kind, Project: project,
			IsError: isErr, Time: tm, Seq: seq, Agent: "dsh", Role: "assistant", Surface: "current"}
	}
	src := &memSource{revs: map[string]int64{"s": 1}, blocks: map[string][]archive.Block{"s": {
		blk("a", "deploy failed: connection refused", "bash", archive.BlockToolResult, "/home/me/app", true, day(14), 1),
		blk("b", "deploy succeeded", "bash", archive.BlockToolResult, "/home/me/app", false, day(10), 2),
		blk("c", "the deploy script -> refused to start", "", archive.BlockAssistant, "/home/me/web", false, day(1), 3),
		blk("d", "unrelated chatter", "", archive.BlockHuman, "/srv/other", false, day(14), 4),
	}}}
	ix := openIndex(t)
	_, err := ix.Sync(context.Background(), src, nil)
	require.NoError(t, err)

	tests := []struct{ in, want string }{
		{"", "a b c d"},
		{"deploy", "a b c"},
		{"deploy refused", "a c"},
		{"deploy -> refused", "a c"},  // "->" analyzes to nothing and is skipped
		{"the deploy", "c"},           // no stop words: "the" is searched
		{"deploy -bash", "a b c"},     // -bash negates text, and no text says bash
		{"deploy -tool:bash", "c"},    // the filter
		{"-tool:bash", "c d"},         // negation alone starts from all
		{"NOT NOT tool:bash", "a b"},  // double negation
		{"-is:error deploy", "b c"},   // bool
		{"is:error", "a"},             // bool
		{`"connection refused"`, "a"}, // phrase
		{`"refused connection"`, ""},  // phrase order matters
		{"depl*", "a b c"},            // prefix
		{"deploi~", "a b c"},          // fuzzy, one edit
		{"deplyo~", "a b c"},          // a transposition is one edit to the term dictionary's automaton
		{"deplyo~2", "a b c"},         // fuzzy, two edits
		{"succeeded OR chatter", "b d"},
		{"deploy failed OR chatter", "a d"},
		{"since:2d", "a d"},          // 2026-10-13T12:00 onwards
		{"before:2026-10-14", "b c"}, // exclusive upper bound
		{"since:2026-10-10 before:2026-10-11", "b"},
		{"seq:3", "c"},
		{"kind:answer", "c"},
		{"project:/home/me/*", "a b c"},
		{"project:/home/me/app", "a b"},
		{"project:/home/me", ""}, // exact, not a prefix
		{"(deploy OR chatter) -kind:human", "a b c"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			ids := searchAll(t, ix, Query{Text: tt.in, Now: queryTestNow})
			assert.ElementsMatch(t, strings.Fields(tt.want), ids)
		})
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		``, `deploy failed`, `"connection refused"`, `"unterminated`, `a OR b c`, `NOT (a OR b)`,
		`-tool:bash kind:result`, `since:7d before:2026-10-01`, `since:banana`, `depl* deplyo~2`,
		`写入权限 🚀`, `C:\Users\me "C:\dir\\"`, `getUser(id) :) (a`, `AND`, `a OR`, `-"x" +y --z -1`,
		`project:"/a b"* session:0196*`, `seq:-1 turn:3 step:x`, `month:2026-08 is:error -is:error`,
		`((()))`, `\"`, `"\`, `tool:"`, `NOT(`, `-(`, `~ * ** ~1`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, _, err := parseQuery(s, queryTestNow)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("%q: error %T is not a *QueryError: %v", s, err, err)
			}
			if qe.Pos < 0 || qe.Pos > len(s) {
				t.Fatalf("%q: position %d outside the query", s, qe.Pos)
			}
			return
		}
		q := bleveQuery(n)
		if q == nil {
			t.Fatalf("%q: nil query without an error", s)
		}
		if v, ok := q.(query.ValidatableQuery); ok {
			if err := v.Validate(); err != nil {
				t.Fatalf("%q: invalid query: %v", s, err)
			}
		}
		_ = n.String()
	})
}
