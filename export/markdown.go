package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
)

// WriteMarkdown writes t as GitHub-flavoured Markdown: a heading per turn and per
// item, prompts and answers as Markdown, reasoning folded into <details>, tool
// arguments and output in fenced blocks longer than any backtick run inside them,
// approvals and compactions as marked quotes. Text from the session can neither
// close a fence nor open an HTML block of ours: unclosed fences are closed where the
// text ends and tags at the start of a line are escaped.
func WriteMarkdown(w io.Writer, t *Transcript) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	m := mdWriter{w: bw}
	m.header(t)
	for i := range t.Items {
		m.item(&t.Items[i])
	}
	return bw.Flush()
}

type mdWriter struct {
	w *bufio.Writer
}

func (m mdWriter) p(format string, args ...any) { fmt.Fprintf(m.w, format, args...) }

func (m mdWriter) header(t *Transcript) {
	s := t.Session
	title := s.Title
	if title == "" {
		title = "(untitled session)"
	}
	m.p("# %s\n\n", mdInline(title))
	m.p("<!-- logbook export: session %s -->\n\n", commentSafe(s.ID))
	m.p("| | |\n|---|---|\n")
	row := func(k, v string) {
		if v != "" {
			m.p("| %s | %s |\n", k, mdInline(v)) // mdInline escapes '|' too
		}
	}
	m.p("| Session | `%s` |\n", codeSpanSafe(strings.ReplaceAll(s.ID, "|", "")))
	row("Agent", s.Agent)
	row("Project", s.Project)
	row("Started", s.CreatedAt.UTC().Format(time.RFC3339))
	row("Last event", s.UpdatedAt.UTC().Format(time.RFC3339))
	row("Models", strings.Join(s.Models, ", "))
	row("Size", fmt.Sprintf("%d turns · %d messages · %d tool calls · %d events", s.Turns, s.Messages, s.ToolCalls, s.Events))
	row("Health", s.Health)
	row("Excerpt", t.Range)
	if t.Redaction != nil {
		row("Redaction", redactionLine(t.Redaction))
	}
	m.p("\n")
	if t.Redaction != nil {
		m.p("<!-- logbook redaction: %s -->\n\n", commentSafe(redactionLine(t.Redaction)))
	}
}

// item writes one timeline item.
func (m mdWriter) item(it *archive.TimelineItem) {
	switch {
	case it.Kind == archive.ItemTurn && it.Marker != nil:
		if strings.HasPrefix(it.Type, "turn/start") || it.Type == "turn/start" {
			m.p("## Turn %s\n\n", turnLabel(it.Turn))
			return
		}
		if st := it.Marker.Status; st != "" && st != "completed" {
			m.p("*Turn %s ended: %s*\n\n", turnLabel(it.Turn), mdInline(st))
		}
	case it.Message != nil:
		m.message(it)
	case it.Tool != nil:
		m.tool(it)
	case it.Approval != nil:
		m.approval(it)
	case it.Compaction != nil:
		m.compaction(it)
	case it.Marker != nil:
		m.p("*%s · seq %d*", mdInline(it.Marker.Label), it.Seq)
		if d := it.Marker.Detail; d != "" {
			if strings.Contains(d, "\n") {
				m.p("\n\n")
				m.fenced(d, "text")
				return
			}
			m.p(": %s", mdInline(d))
		}
		m.p("\n\n")
	}
}

// heading is an item's heading: who, when, where, and its state.
func (m mdWriter) heading(it *archive.TimelineItem, who string) {
	m.p("### %s · %s · seq %d", who, it.Time.UTC().Format("15:04:05"), it.Seq)
	if it.Surface == "shadowed" {
		m.p(" · *shadowed")
		if it.ShadowedBy != nil {
			m.p(" by seq %d", *it.ShadowedBy)
		}
		m.p("*")
	}
	m.p("\n\n")
}

func (m mdWriter) message(it *archive.TimelineItem) {
	msg := it.Message
	who := "Assistant"
	switch {
	case msg.Kind == "injected":
		who = "Injected context"
		if msg.Plugin != "" {
			who += " (" + mdInline(msg.Plugin) + ")"
		}
	case msg.Role == "user":
		who = "User"
	case msg.Model != "":
		who = "Assistant (" + mdInline(msg.Model) + ")"
	}
	if msg.Interrupted {
		who += " · interrupted"
	}
	m.heading(it, who)
	if msg.Reasoning != "" {
		m.details("Reasoning", func() { m.markdown(msg.Reasoning) })
	}
	if msg.Kind == "injected" {
		if msg.Text != "" {
			m.details("Context", func() { m.fenced(msg.Text, "text") })
		}
		return
	}
	if msg.Text != "" {
		m.markdown(msg.Text)
	}
}

func (m mdWriter) tool(it *archive.TimelineItem) {
	tc := it.Tool
	who := "Tool `" + codeSpanSafe(tc.Name) + "`"
	if tc.IsError {
		who += " · **error**"
		if tc.ErrorName != "" {
			who += " " + mdInline(tc.ErrorName)
		}
	}
	m.heading(it, who)
	args := tc.Arguments
	if cmd := jsonString(args, "command"); cmd != "" {
		m.fenced(cmd, "bash")
	}
	if args != "" {
		lang, text := "json", args
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(args), "", "  ") == nil {
			text = buf.String()
		} else {
			lang = "text"
		}
		m.details("Arguments", func() { m.fenced(text, lang) })
	}
	if tc.Output == nil {
		m.p("*no result*\n\n")
		return
	}
	out := *tc.Output
	label := fmt.Sprintf("Output · %d lines", strings.Count(out, "\n")+1)
	if tc.IsError {
		label = "Error output · " + label[len("Output · "):]
	}
	m.details(label, func() { m.fenced(out, outputLanguage(tc)) })
}

func (m mdWriter) approval(it *archive.TimelineItem) {
	a := it.Approval
	outcome := "undecided"
	if a.Outcome != nil {
		outcome = *a.Outcome
	}
	m.p("> **Approval** for `%s` · seq %d · **%s**", codeSpanSafe(a.ToolName), it.Seq, mdInline(outcome))
	if a.Policy != "" {
		m.p(" · policy %s", mdInline(a.Policy))
	}
	m.p("\n")
	if a.Reason != "" {
		m.p(">\n> %s\n", mdInline(strings.Join(strings.Fields(a.Reason), " ")))
	}
	m.p("\n")
}

func (m mdWriter) compaction(it *archive.TimelineItem) {
	k := it.Compaction
	what := "Compaction"
	if k.Kind == "prune" {
		what = "Prune"
	}
	m.p("> **%s** · seq %d · %s", what, it.Seq, mdInline(k.Status))
	if k.ShadowedStart != nil && k.ShadowedEnd != nil {
		m.p(" · shadowed seq %d–%d", *k.ShadowedStart, *k.ShadowedEnd)
	}
	if k.ShadowedTokens != nil {
		m.p(" · %d tokens", *k.ShadowedTokens)
	}
	if k.Error != nil && *k.Error != "" {
		m.p(" · error: %s", mdInline(*k.Error))
	}
	m.p("\n\n")
	if k.Summary != "" {
		m.details("Compaction summary", func() { m.markdown(k.Summary) })
	}
}

// details writes a folded section; body writes block content.
func (m mdWriter) details(summary string, body func()) {
	m.p("<details><summary>%s</summary>\n\n", htmlText(summary))
	body()
	m.p("</details>\n\n")
}

// fenced writes text in a fenced code block.
func (m mdWriter) fenced(text, lang string) {
	f := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	m.p("%s%s\n%s", f, lang, text)
	if !strings.HasSuffix(text, "\n") {
		m.p("\n")
	}
	m.p("%s\n\n", f)
}

// markdown writes session text as Markdown, defused (see mdBlock).
func (m mdWriter) markdown(text string) {
	m.w.WriteString(mdBlock(text))
	m.p("\n\n")
}

func turnLabel(t *int64) string {
	if t == nil {
		return "(none)"
	}
	return fmt.Sprint(*t)
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// jsonString is the string field key of a JSON object, or "".
func jsonString(obj, key string) string {
	if !strings.HasPrefix(strings.TrimSpace(obj), "{") {
		return ""
	}
	var v map[string]any
	if json.Unmarshal([]byte(obj), &v) != nil {
		return ""
	}
	s, _ := v[key].(string)
	return s
}

// langByExt maps file extensions to the languages GitHub's highlighter names.
var langByExt = map[string]string{
	".go": "go", ".ts": "typescript", ".tsx": "tsx", ".js": "javascript", ".jsx": "jsx",
	".mjs": "javascript", ".py": "python", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".rb": "ruby", ".sh": "bash", ".bash": "bash",
	".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".md": "markdown",
	".html": "html", ".css": "css", ".svelte": "svelte", ".sql": "sql", ".xml": "xml",
	".swift": "swift", ".kt": "kotlin", ".php": "php", ".lua": "lua", ".mod": "text",
	".diff": "diff", ".patch": "diff",
}

// outputLanguage guesses the language of a tool's output: the file's language for a
// tool that reads a file, diff for patches, text otherwise.
func outputLanguage(tc *archive.ToolCall) string {
	name := strings.ToLower(tc.Name)
	if tc.IsError {
		return "text"
	}
	if strings.Contains(name, "read") || strings.Contains(name, "view") || name == "cat" {
		for _, k := range []string{"file_path", "path", "filePath", "file"} {
			if p := jsonString(tc.Arguments, k); p != "" {
				if l, ok := langByExt[strings.ToLower(path.Ext(p))]; ok {
					return l
				}
			}
		}
	}
	if strings.Contains(name, "diff") || strings.Contains(name, "patch") {
		return "diff"
	}
	return "text"
}

// mdInline escapes text for one line of Markdown: newlines become spaces and every
// character that could start inline markup is backslash-escaped.
func mdInline(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case '\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '!', '~', '&', '{', '}', '(', ')':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codeSpanSafe is s fit for a one-backtick code span.
func codeSpanSafe(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ", "\r", " ").Replace(s)
}

// htmlText escapes s for HTML text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}

// commentSafe keeps s from ending an HTML comment.
func commentSafe(s string) string {
	return strings.NewReplacer("--", "- -", ">", "&gt;", "\n", " ").Replace(s)
}

// mdBlock defuses session text for use as Markdown block content. Outside fenced
// code it escapes a '<' that starts a line (so no HTML block of the text's can
// swallow what follows or close our <details>) and every '<' that could start an
// inline tag outside code spans; a fence the text leaves open is closed at its end.
func mdBlock(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(text) + 16)
	var open string // the open fence's marker run, "" outside fences
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if indent <= 3 {
			if run, ok := fenceRun(trimmed); ok {
				switch {
				case open == "":
					if run[0] == '~' || !strings.Contains(trimmed[len(run):], "`") {
						open = run
					}
				case run[0] == open[0] && len(run) >= len(open) && strings.TrimSpace(trimmed[len(run):]) == "":
					open = ""
				}
				b.WriteString(line)
				continue
			}
		}
		if open != "" || indent >= 4 {
			b.WriteString(line)
			continue
		}
		b.WriteString(line[:indent])
		b.WriteString(escapeTags(trimmed))
	}
	if open != "" {
		b.WriteString("\n" + open)
	}
	return b.String()
}

// fenceRun returns the run of ``` or ~~~ (3 or more) that line starts with.
func fenceRun(line string) (string, bool) {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return "", false
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	return line[:n], n >= 3
}

// escapeTags backslash-escapes each '<' of a line that is followed by a letter, '/',
// '!' or '?' (a tag, comment or declaration could start there), skipping code spans.
func escapeTags(line string) string {
	if !strings.Contains(line, "<") {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '`' {
			n := 1
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			run := line[i : i+n]
			if j := closingRun(line[i+n:], n); j >= 0 {
				end := i + n + j + n
				b.WriteString(line[i:end])
				i = end - 1
				continue
			}
			b.WriteString(run)
			i += n - 1
			continue
		}
		if c == '<' && i+1 < len(line) {
			d := line[i+1]
			if d == '/' || d == '!' || d == '?' || (d|0x20 >= 'a' && d|0x20 <= 'z') {
				b.WriteByte('\\')
			}
		}
		if c == '\\' && i+1 < len(line) {
			b.WriteString(line[i : i+2])
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// closingRun is the index in s of a run of exactly n backticks, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}
