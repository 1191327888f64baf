package export_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/export"
)

// The Markdown is checked by parsing it back with goldmark, a CommonMark + GFM
// parser (GitHub's renderer is CommonMark + GFM too): string checks cannot tell
// whether a fence or an HTML block swallowed what follows it; a parse tree can.
// goldmark is a test dependency only.

// mdTree is what parsing an export found.
type mdTree struct {
	headings []string          // text of every level-3 heading
	fences   map[string]string // content of each fenced block → its info string
	rows     [][]string        // the header table's rows, as cell texts
	opens    int               // HTML blocks that open a <details>
	closes   int               // HTML blocks that close one
}

func parseMarkdown(t *testing.T, src []byte) mdTree {
	t.Helper()
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := md.Parser().Parse(text.NewReader(src))
	tree := mdTree{fences: map[string]string{}}
	require.NoError(t, ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level == 3 {
				tree.headings = append(tree.headings, string(n.Text(src)))
			}
		case *ast.FencedCodeBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(src))
			}
			tree.fences[normal(b.String())] = string(n.Language(src))
		case *east.TableRow:
			var cells []string
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, string(c.Text(src)))
			}
			tree.rows = append(tree.rows, cells)
		case *ast.HTMLBlock:
			first := n.Lines().At(0)
			line := string(first.Value(src))
			switch {
			case strings.HasPrefix(line, "<details>"):
				tree.opens++
			case strings.HasPrefix(line, "</details>"):
				tree.closes++
			}
		}
		return ast.WalkContinue, nil
	}))
	return tree
}

// normal is text as a Markdown code block holds it: LF line ends, NUL replaced,
// one final newline.
func normal(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	return strings.TrimRight(s, "\n") + "\n"
}

// seqHeading matches the headings the Markdown writer gives items.
var seqHeading = regexp.MustCompile(` · seq (\d+)`)

// checkMarkdown exports tr as Markdown, parses it back and checks that every
// message and tool call has its heading, every tool output and argument list is one
// fenced block holding exactly its text, and every <details> is closed by ours.
func checkMarkdown(t *testing.T, tr *export.Transcript) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, export.WriteMarkdown(&buf, tr))
	tree := parseMarkdown(t, buf.Bytes())
	headings := map[string]bool{}
	for _, h := range tree.headings {
		// Ours say "… · seq N"; the session's own Markdown may hold other headings.
		if m := seqHeading.FindStringSubmatch(h); m != nil {
			headings[m[1]] = true
		}
	}
	var messages, tools int
	for _, it := range tr.Items {
		switch {
		case it.Message != nil:
			messages++
			require.True(t, headings[fmt.Sprint(it.Seq)], "message seq %d has its heading", it.Seq)
		case it.Tool != nil:
			tools++
			require.True(t, headings[fmt.Sprint(it.Seq)], "tool call seq %d has its heading", it.Seq)
			if o := it.Tool.Output; o != nil {
				_, ok := tree.fences[normal(*o)]
				require.True(t, ok, "tool seq %d: its output is one fenced block", it.Seq)
			}
		}
	}
	assert.Equal(t, tree.opens, tree.closes, "every <details> is closed by its own </details>")
	assert.Equal(t, messages+tools, len(headings), "no item heading lost")
	t.Logf("%d messages, %d tool calls, %d bytes of Markdown", messages, tools, buf.Len())
	return buf.Bytes()
}

func TestMarkdownGenerated(t *testing.T) {
	s := openStore(t)
	var logs []*dshgen.Log
	for seed := uint64(1); seed <= 4; seed++ {
		logs = append(logs, dshgen.Generate(dshgen.Options{Seed: seed, Turns: 6, ASCII: seed%2 == 0}))
	}
	for _, id := range importLogs(t, s, logs...) {
		t.Run(id, func(t *testing.T) { checkMarkdown(t, load(t, s, id)) })
	}
}

func TestMarkdownHostile(t *testing.T) {
	s := openStore(t)
	id := importLogs(t, s, hostile())[0]
	tr := load(t, s, id)
	md := checkMarkdown(t, tr)
	tree := parseMarkdown(t, md)
	assert.Equal(t, "bash", tree.fences[normal("echo '```' && cat <<EOF\n</script>\nEOF")], "the command is a bash block")
	assert.Equal(t, "go", tree.fences[normal("package main\n\nfunc main() {}\n")], "a Go file read is highlighted as Go")
	var approvals, compactions int
	for _, it := range tr.Items {
		if it.Approval != nil {
			approvals++
		}
		if it.Compaction != nil {
			compactions++
		}
	}
	require.Positive(t, approvals)
	require.Positive(t, compactions)
	assert.Equal(t, approvals, bytes.Count(md, []byte("> **Approval**")))
	assert.Equal(t, compactions, bytes.Count(md, []byte("> **Compaction**"))+bytes.Count(md, []byte("> **Prune**")))
	assert.NotContains(t, string(md), "\n</details>\n<!-- comment", "session text cannot open an HTML comment block")
	for _, r := range tree.rows {
		assert.Len(t, r, 2, "a '|' in a value stays in its cell: %q", r)
	}
	var out bytes.Buffer
	require.NoError(t, goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md, &out))
	assert.Contains(t, out.String(), `<td>/work/a|b\c</td>`)
}

func TestMarkdownRealLog(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the real 87k-event log")
	}
	s := openStore(t)
	id := importReal(t, s)
	checkMarkdown(t, load(t, s, id))
}
