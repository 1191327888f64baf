package redact

import (
	"strings"
	"unicode/utf8"
)

// previewContext is how many bytes of text a preview shows on each side of a finding.
const previewContext = 40

// mask hides most of a secret: a few leading characters, which for keys are the
// recognisable prefix ("sk-p", "ghp_"), and for long secrets the last four.
func mask(secret string) string {
	if strings.HasPrefix(secret, "-----BEGIN") {
		return "-----BEGIN…"
	}
	r := []rune(secret)
	switch {
	case len(r) >= 24:
		return string(r[:4]) + "…" + string(r[len(r)-4:])
	case len(r) >= 12:
		return string(r[:2]) + "…" + string(r[len(r)-2:])
	case len(r) >= 2:
		return string(r[:1]) + "…"
	}
	return "…"
}

// preview shows the text around fs[i] with every finding in view masked and line breaks
// shown as ⏎. A finding cut by the window edge is masked whole.
func preview(text string, fs []Finding, i int) string {
	from, to := fs[i].Start-previewContext, fs[i].End+previewContext
	if from < 0 {
		from = 0
	}
	if to > len(text) {
		to = len(text)
	}
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	p := from
	for _, f := range fs {
		if f.End <= p || f.Start >= to {
			continue
		}
		if f.Start > p {
			b.WriteString(text[p:f.Start])
		}
		b.WriteString(f.Masked)
		p = f.End
	}
	if p < to {
		b.WriteString(text[p:to])
	}
	if to < len(text) {
		b.WriteString("…")
	}
	out := strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "⏎", "\t", " ").Replace(b.String())
	// The same secret may stand in view undetected (say, cut by another rule's match);
	// it must not show through.
	return strings.ReplaceAll(out, fs[i].secret, fs[i].Masked)
}
