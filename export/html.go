package export

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
)

//go:embed page/page.css
var pageCSS string

//go:embed page/page.js
var pageJS string

// ScriptHash is the CSP source of the page's one script, "sha256-…": the page
// allows no other script, so nothing from the session can run, even if some text
// escaped its escaping.
var ScriptHash = func() string {
	sum := sha256.Sum256([]byte(pageJS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

// CSP is the Content-Security-Policy of an exported page: no network, inline
// styles, and only our search script.
var CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src '" + ScriptHash + "'"

// WriteHTML writes t as one self-contained HTML page that looks like Logbook's
// conversation view: a table of contents by turn, items in turn sections, reasoning,
// tool arguments and output folded into <details>, and an in-page search. Every text
// is HTML-escaped, the page loads nothing and runs only its own hashed script.
// Items use content-visibility so a long session lays out only what is on screen.
func WriteHTML(w io.Writer, t *Transcript) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	h := htmlWriter{w: bw}
	h.page(t)
	return bw.Flush()
}

type htmlWriter struct{ w *bufio.Writer }

func (h htmlWriter) raw(s string)                 { h.w.WriteString(s) }
func (h htmlWriter) text(s string)                { h.w.WriteString(html.EscapeString(s)) }
func (h htmlWriter) f(format string, args ...any) { fmt.Fprintf(h.w, format, args...) }

func (h htmlWriter) page(t *Transcript) {
	s := t.Session
	title := s.Title
	if title == "" {
		title = "(untitled session)"
	}
	h.raw("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	h.f("<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", html.EscapeString(CSP))
	h.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n")
	h.raw("<meta name=\"generator\" content=\"Logbook export\">\n<title>")
	h.text(title)
	h.raw("</title>\n")
	if t.Redaction != nil {
		h.f("<!-- logbook redaction: %s -->\n", commentSafe(redactionLine(t.Redaction)))
	}
	h.raw("<style>\n" + pageCSS + "</style>\n</head>\n<body>\n<header class=\"top\">\n<h1>")
	h.text(title)
	h.raw("</h1>\n<div class=\"meta\">")
	meta := []string{s.ID, s.Agent, s.Project, s.CreatedAt.UTC().Format(time.RFC3339),
		strings.Join(s.Models, ", "),
		fmt.Sprintf("%d turns · %d messages · %d tool calls · %d events", s.Turns, s.Messages, s.ToolCalls, s.Events)}
	if t.Range != "" {
		meta = append(meta, "excerpt: "+t.Range)
	}
	for _, m := range meta {
		if m != "" {
			h.raw("<span>")
			h.text(m)
			h.raw("</span>")
		}
	}
	h.raw("</div>\n")
	if t.Redaction != nil {
		h.raw("<div class=\"redaction\">")
		h.text(redactionLine(t.Redaction))
		h.raw("</div>\n")
	}
	h.raw("<div class=\"find\"><input id=\"q\" type=\"search\" placeholder=\"Find in this session (Enter: next)\" aria-label=\"Find in this session\">" +
		"<button id=\"prev\" type=\"button\">↑</button><button id=\"next\" type=\"button\">↓</button><span id=\"count\" aria-live=\"polite\"></span></div>\n</header>\n")
	h.raw("<div class=\"layout\">\n")
	h.toc(t)
	h.raw("<main>\n")
	inTurn := false
	open := func(id, label string) {
		if inTurn {
			h.raw("</section>\n")
		}
		h.f("<section class=\"turn\" id=\"%s\"><h2>", id)
		h.text(label)
		h.raw("</h2>\n")
		inTurn = true
	}
	open("start", "Before the first turn")
	for i := range t.Items {
		it := &t.Items[i]
		if it.Kind == archive.ItemTurn && it.Type == "turn/start" {
			open(turnAnchor(it), "Turn "+turnLabel(it.Turn))
			continue
		}
		h.item(it)
	}
	h.raw("</section>\n</main>\n</div>\n<script>" + pageJS + "</script>\n</body>\n</html>\n")
}

// turnAnchor is the id of a turn's section.
func turnAnchor(it *archive.TimelineItem) string {
	return fmt.Sprintf("turn-%s-%d", turnLabel(it.Turn), it.Seq)
}

// toc lists the turns with the start of each turn's first prompt.
func (h htmlWriter) toc(t *Transcript) {
	h.raw("<nav class=\"toc\" aria-label=\"Turns\"><ol>\n")
	for i := range t.Items {
		it := &t.Items[i]
		if it.Kind != archive.ItemTurn || it.Type != "turn/start" {
			continue
		}
		h.f("<li><a href=\"#%s\">", turnAnchor(it))
		label := "Turn " + turnLabel(it.Turn)
		for _, n := range t.Items[i+1:] {
			if n.Kind == archive.ItemTurn {
				break
			}
			if n.Message != nil && n.Message.Role == "user" && n.Message.Kind != "injected" {
				label = firstWords(n.Message.Text, 60)
				break
			}
		}
		h.text(label)
		h.raw("</a></li>\n")
	}
	h.raw("</ol></nav>\n")
}

// firstWords is s on one line, cut to about n characters.
func firstWords(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// itemOpen starts an item's box and its header line.
func (h htmlWriter) itemOpen(it *archive.TimelineItem, class, who string) {
	if it.Surface == "shadowed" {
		class += " shadowed"
	}
	h.f("<article class=\"item %s\" id=\"seq-%d\"><div class=\"who\"><span>", class, it.Seq)
	h.text(who)
	h.raw("</span>")
	if it.Surface == "shadowed" {
		h.raw("<span class=\"tag\">shadowed")
		if it.ShadowedBy != nil {
			h.f(" by seq %d", *it.ShadowedBy)
		}
		h.raw("</span>")
	}
	h.f("<span class=\"when\">%s · seq %d</span></div>\n", it.Time.UTC().Format("2006-01-02 15:04:05"), it.Seq)
}

// fold writes a closed <details> holding text in a <pre>.
func (h htmlWriter) fold(class, summary, text string) {
	h.f("<details class=\"%s\"><summary>", class)
	h.text(summary)
	h.raw("</summary>")
	h.pre("", text)
	h.raw("</details>\n")
}

// pre writes text in a <pre>. A parser drops the newline right after <pre>, so a
// text that starts with one gets another.
func (h htmlWriter) pre(class, text string) {
	if class != "" {
		h.f("<pre class=\"%s\">", class)
	} else {
		h.raw("<pre>")
	}
	if strings.HasPrefix(text, "\n") || strings.HasPrefix(text, "\r\n") {
		h.raw("\n")
	}
	h.text(text)
	h.raw("</pre>\n")
}

func (h htmlWriter) item(it *archive.TimelineItem) {
	switch {
	case it.Message != nil:
		m := it.Message
		class, who := "assistant", "Assistant"
		switch {
		case m.Kind == "injected":
			class, who = "injected", "Injected context"
			if m.Plugin != "" {
				who += " (" + m.Plugin + ")"
			}
		case m.Role == "user":
			class, who = "user", "User"
		case m.Model != "":
			who += " · " + m.Model
		}
		if m.Interrupted {
			who += " · interrupted"
		}
		h.itemOpen(it, class, who)
		if m.Reasoning != "" {
			h.fold("reasoning", fmt.Sprintf("Reasoning · %d lines", lines(m.Reasoning)), m.Reasoning)
		}
		if m.Kind == "injected" {
			h.fold("context", fmt.Sprintf("Context · %d lines", lines(m.Text)), m.Text)
		} else if m.Text != "" {
			h.pre("text", m.Text)
		}
	case it.Tool != nil:
		tc := it.Tool
		class := "tool"
		who := "Tool · " + tc.Name
		if tc.IsError {
			class += " error"
			who += " · error"
			if tc.ErrorName != "" {
				who += " " + tc.ErrorName
			}
		}
		h.itemOpen(it, class, who)
		if cmd := jsonString(tc.Arguments, "command"); cmd != "" {
			h.pre("command", cmd)
		}
		if tc.Arguments != "" {
			h.fold("args", "Arguments · "+firstWords(tc.Arguments, 80), tc.Arguments)
		}
		if tc.Output != nil {
			h.fold("output", fmt.Sprintf("Output · %d lines", lines(*tc.Output)), *tc.Output)
		} else {
			h.raw("<div class=\"meta\">no result</div>\n")
		}
	case it.Approval != nil:
		a := it.Approval
		outcome := "undecided"
		if a.Outcome != nil {
			outcome = *a.Outcome
		}
		h.itemOpen(it, "approval", "Approval · "+a.ToolName+" · "+outcome)
		if a.Reason != "" {
			h.pre("text", a.Reason)
		}
	case it.Compaction != nil:
		k := it.Compaction
		what := "Compaction"
		if k.Kind == "prune" {
			what = "Prune"
		}
		who := what + " · " + k.Status
		if k.ShadowedStart != nil && k.ShadowedEnd != nil {
			who += fmt.Sprintf(" · shadowed seq %d–%d", *k.ShadowedStart, *k.ShadowedEnd)
		}
		if k.Error != nil && *k.Error != "" {
			who += " · error: " + *k.Error
		}
		h.itemOpen(it, "compaction", who)
		if k.Summary != "" {
			h.fold("summary", "Summary", k.Summary)
		}
	case it.Marker != nil:
		if it.Kind == archive.ItemTurn {
			if st := it.Marker.Status; st == "" || st == "completed" {
				return
			}
		}
		h.f("<div class=\"item marker\" id=\"seq-%d\">", it.Seq)
		h.text(it.Marker.Label)
		if it.Marker.Status != "" && it.Kind == archive.ItemTurn {
			h.text(": " + it.Marker.Status)
		}
		if d := it.Marker.Detail; d != "" {
			h.text(" · " + firstWords(d, 200))
		}
		h.raw("</div>\n")
		return
	default:
		return
	}
	h.raw("</article>\n")
}

// lines counts the lines of s.
func lines(s string) int { return strings.Count(strings.TrimRight(s, "\n"), "\n") + 1 }
