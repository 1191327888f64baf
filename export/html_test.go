package export_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/export"
)

// htmlPage exports tr as HTML and parses it back (golang.org/x/net/html parses as
// browsers do).
func htmlPage(t *testing.T, tr *export.Transcript) ([]byte, *html.Node) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, export.WriteHTML(&buf, tr))
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	return buf.Bytes(), doc
}

// elements collects the elements of doc by tag name and by id.
func elements(doc *html.Node) (byTag map[string][]*html.Node, byID map[string]*html.Node) {
	byTag, byID = map[string][]*html.Node{}, map[string]*html.Node{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			byTag[n.Data] = append(byTag[n.Data], n)
			for _, a := range n.Attr {
				if a.Key == "id" {
					byID[a.Val] = n
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return byTag, byID
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// checkHTML checks the page's structure: one script, ours, allowed by the CSP by
// its hash; no element that loads anything; an element per message and tool call
// holding its text.
func checkHTML(t *testing.T, tr *export.Transcript) ([]byte, map[string][]*html.Node) {
	t.Helper()
	page, doc := htmlPage(t, tr)
	byTag, byID := elements(doc)
	require.Len(t, byTag["script"], 1, "the page has one script, its own")
	script := textOf(byTag["script"][0])
	sum := sha256.Sum256([]byte(script))
	hash := "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
	assert.Equal(t, export.ScriptHash, hash)
	var csp string
	for _, m := range byTag["meta"] {
		if attr(m, "http-equiv") == "Content-Security-Policy" {
			csp = attr(m, "content")
		}
	}
	assert.Equal(t, "default-src 'none'; style-src 'unsafe-inline'; script-src '"+hash+"'", csp)
	for _, tag := range []string{"img", "iframe", "object", "embed", "link", "base", "form", "video", "audio", "source"} {
		assert.Empty(t, byTag[tag], "no <%s> in the page", tag)
	}
	for _, it := range tr.Items {
		if it.Message == nil && it.Tool == nil {
			continue
		}
		el := byID["seq-"+itoa(it.Seq)]
		require.NotNil(t, el, "seq %d has its element", it.Seq)
		got := textOf(el)
		if it.Message != nil {
			assert.Contains(t, got, strings.ReplaceAll(it.Message.Text, "\r\n", "\n"), "seq %d: message text", it.Seq)
		}
		if it.Tool != nil && it.Tool.Output != nil {
			assert.Contains(t, got, strings.ReplaceAll(*it.Tool.Output, "\r\n", "\n"), "seq %d: tool output", it.Seq)
		}
	}
	return page, byTag
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestHTMLGenerated(t *testing.T) {
	s := openStore(t)
	var logs []*dshgen.Log
	for seed := uint64(1); seed <= 3; seed++ {
		logs = append(logs, dshgen.Generate(dshgen.Options{Seed: seed, Turns: 6}))
	}
	for _, id := range importLogs(t, s, logs...) {
		t.Run(id, func(t *testing.T) {
			tr := load(t, s, id)
			page, byTag := checkHTML(t, tr)
			turns := 0
			for _, it := range tr.Items {
				if it.Kind == "turn" && it.Type == "turn/start" {
					turns++
				}
			}
			assert.Positive(t, turns)
			assert.Len(t, byTag["li"], turns, "the contents list every turn")
			assert.NotContains(t, string(page), "http://")
			assert.NotContains(t, string(page), "https://")
		})
	}
}

func TestHTMLHostile(t *testing.T) {
	s := openStore(t)
	id := importLogs(t, s, hostile())[0]
	page, _ := checkHTML(t, load(t, s, id))
	assert.Contains(t, string(page), "&lt;img src=x onerror=&#34;window.pwned=3&#34;&gt;")
	assert.Contains(t, string(page), "<title>&lt;script&gt;window.pwned=4&lt;/script&gt; title --&gt; `x`</title>")
}

func TestHTMLRealLog(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the real 87k-event log")
	}
	s := openStore(t)
	id := importReal(t, s)
	page, _ := checkHTML(t, load(t, s, id))
	t.Logf("%d bytes of HTML", len(page))
}

// The page's colours are the UI's: every design token of app.css, light and dark,
// has the same value in the exported page's CSS.
func TestHTMLUsesUIColours(t *testing.T) {
	app, err := os.ReadFile("../frontend/src/styles/app.css")
	require.NoError(t, err)
	page, err := os.ReadFile("page/page.css")
	require.NoError(t, err)
	block := func(src []byte, re string) map[string]string {
		m := regexp.MustCompile(re).FindSubmatch(src)
		require.NotNil(t, m, re)
		vars := map[string]string{}
		for _, v := range regexp.MustCompile(`(--[a-z-]+):\s*([^;]+);`).FindAllSubmatch(m[1], -1) {
			vars[string(v[1])] = string(v[2])
		}
		require.NotEmpty(t, vars)
		return vars
	}
	assert.Equal(t, block(app, `(?s):root,\s*\[data-theme='light'\]\s*\{(.*?)\}`), block(page, `(?s)^.*?:root \{(.*?)\}`))
	assert.Equal(t, block(app, `(?s)\[data-theme='dark'\]\s*\{(.*?)\}`), block(page, `(?s)prefers-color-scheme: dark\) \{\s*:root \{(.*?)\}`))
}
