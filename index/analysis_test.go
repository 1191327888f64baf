package index

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitIdentifier(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // parts joined by spaces; "" for no parts
	}{
		{"getUserName", "get User Name"},
		{"GetUserName", "Get User Name"},
		{"HTTPServer", "HTTP Server"},
		{"IOError", "IO Error"},
		{"md5Sum", "md5 Sum"},
		{"base64Encode", "base64 Encode"},
		{"max_tokens", "max tokens"},
		{"MAX_TOKENS", "MAX TOKENS"},
		{"main.go", "main go"},
		{"foo.bar_bazQux", "foo bar baz Qux"},
		{"v1.2.3", "v1 2 3"},
		{"__init__", "init"},
		{"plain", "plain"},
		{"utf8", "utf8"},
		{"0x1F", "0x1F"},
		{"3D", "3D"},
		{"don't", "don't"},
		{"ÉcoleNormale", "École Normale"},
		{"___", ""},
		{strings.Repeat("aB", 40), ""}, // too long to be worth splitting
	} {
		t.Run(tc.in, func(t *testing.T) {
			var got []string
			for _, p := range splitIdentifier([]byte(tc.in), nil) {
				got = append(got, tc.in[p[0]:p[1]])
			}
			assert.Equal(t, tc.want, strings.Join(got, " "))
		})
	}
}

// analyze renders an analyzer's output as "term@position" items.
func analyze(t *testing.T, analyzer, text string) string {
	t.Helper()
	im, err := newMapping()
	require.NoError(t, err)
	a := im.AnalyzerNamed(analyzer)
	require.NotNil(t, a, analyzer)
	var out []string
	for _, tok := range a.Analyze([]byte(text)) {
		out = append(out, fmt.Sprintf("%s@%d", tok.Term, tok.Position))
	}
	return strings.Join(out, " ")
}

func TestAnalyzers(t *testing.T) {
	for _, tc := range []struct {
		name, in, index, query string
	}{
		{
			name:  "camelCase keeps the whole word and adds its parts at consecutive positions",
			in:    "call getUserName now",
			index: "call@1 getusername@2 get@2 user@3 name@4 now@5",
			query: "call@1 get@2 user@3 name@4 now@5",
		},
		{
			name:  "snake_case",
			in:    "max_tokens=4096",
			index: "max_tokens@1 max@1 tokens@2 4096@3",
			query: "max@1 tokens@2 4096@3",
		},
		{
			name:  "flags split at hyphens in the segmenter",
			in:    "git push --dry-run",
			index: "git@1 push@2 dry@3 run@4",
			query: "git@1 push@2 dry@3 run@4",
		},
		{
			name:  "paths split at slashes, file names at dots",
			in:    "src/app/main.go",
			index: "src@1 app@2 main.go@3 main@3 go@4",
			query: "src@1 app@2 main@3 go@4",
		},
		{
			name:  "a CJK run is its bigrams, then the next word",
			in:    "写入权限 ok",
			index: "写入@1 入权@2 权限@3 ok@4",
			query: "写入@1 入权@2 权限@3 ok@4",
		},
		{
			name:  "a CJK character standing alone is a unigram",
			in:    "写 ok 用API",
			index: "写@1 ok@2 用@3 api@4",
			query: "写@1 ok@2 用@3 api@4",
		},
		{
			name:  "CJK glued to Latin, full-width Latin folded",
			in:    "dsh客户端 ＡＰＩ",
			index: "dsh@1 客户@2 户端@3 api@4",
			query: "dsh@1 客户@2 户端@3 api@4",
		},
		{
			name:  "very long tokens are dropped",
			in:    "a " + strings.Repeat("x", maxTermBytes+1) + " b",
			index: "a@1 b@3",
			query: "a@1 b@3",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.index, analyze(t, textAnalyzer, tc.in), "index analyzer")
			assert.Equal(t, tc.query, analyze(t, queryAnalyzer, tc.in), "query analyzer")
		})
	}
}

func TestAnalyzerNFC(t *testing.T) {
	// "é" typed on macOS (e + combining acute) and elsewhere (one code point).
	assert.Equal(t, analyze(t, textAnalyzer, "caf\u00e9"), analyze(t, textAnalyzer, "cafe\u0301"))
}
