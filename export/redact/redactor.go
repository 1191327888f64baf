package redact

import (
	"fmt"
	"slices"
	"strings"
)

// Decisions say which findings to redact. A decision on a finding overrides one on its
// category, which overrides the default: the zero value redacts every finding, which is
// what --yes means.
type Decisions struct {
	// Categories maps a category to true (redact) or false (keep).
	Categories map[Category]bool `json:"categories,omitempty"`
	// Findings maps a finding ID to true (redact) or false (keep).
	Findings map[string]bool `json:"findings,omitempty"`
}

// Accepts reports whether f is to be redacted.
func (d Decisions) Accepts(f Finding) bool {
	if v, ok := d.Findings[f.ID]; ok {
		return v
	}
	if v, ok := d.Categories[f.Category]; ok {
		return v
	}
	return true
}

// Summary is what an exported file records about its redaction: counts, never secrets.
type Summary struct {
	// Ruleset names the rules that ran.
	Ruleset string `json:"ruleset"`
	// Redacted counts accepted findings per category.
	Redacted map[Category]int `json:"redacted"`
	// Distinct counts distinct redacted values per category.
	Distinct map[Category]int `json:"distinct"`
	// Kept counts findings the person chose to keep.
	Kept int `json:"kept"`
}

// Redactor replaces accepted secrets with placeholders such as
// "[REDACTED:aws-access-token#1]". The same secret gets the same placeholder in every doc
// of the Report, so the story stays readable. It is safe for concurrent use.
type Redactor struct {
	byDoc        map[string][]Finding // accepted findings per doc, by position
	secrets      []secretPlaceholder  // every accepted value, longest first
	values       *valueSet            // the secrets, to find them in one pass
	placeholders map[string]string    // fingerprint → placeholder
	summary      Summary
}

type secretPlaceholder struct {
	secret, placeholder string
}

// placeholderMinLen is the length from which a value is replaced wherever it occurs;
// shorter values (user names, short passwords) only where they stand as a word, so
// that "ann" does not eat into "annotate".
const placeholderMinLen = 8

// Redactor returns a Redactor for the findings d accepts.
func (r *Report) Redactor(d Decisions) *Redactor {
	rd := &Redactor{
		byDoc:   map[string][]Finding{},
		summary: Summary{Ruleset: r.Ruleset, Redacted: map[Category]int{}, Distinct: map[Category]int{}},
	}
	placeholders := map[string]string{} // fingerprint → placeholder
	numbers := map[string]int{}         // rule → last number used
	for _, f := range r.Findings {
		if !d.Accepts(f) {
			rd.summary.Kept++
			continue
		}
		rd.summary.Redacted[f.Category]++
		if _, ok := placeholders[f.Fingerprint]; !ok {
			numbers[f.Rule]++
			p := fmt.Sprintf("[REDACTED:%s#%d]", f.Rule, numbers[f.Rule])
			placeholders[f.Fingerprint] = p
			rd.secrets = append(rd.secrets, secretPlaceholder{f.secret, p})
			rd.summary.Distinct[f.Category]++
		}
		rd.byDoc[f.Doc] = append(rd.byDoc[f.Doc], f)
	}
	// Longest first, so a value that contains another is replaced whole.
	slices.SortStableFunc(rd.secrets, func(a, b secretPlaceholder) int { return len(b.secret) - len(a.secret) })
	rd.placeholders = placeholders
	values := make([]string, len(rd.secrets))
	for i, sp := range rd.secrets {
		values[i] = sp.secret
	}
	rd.values = newValueSet(values)
	return rd
}

// Placeholder returns what f's secret becomes, or "" if f was not accepted; the UI can
// show it next to the masked preview.
func (rd *Redactor) Placeholder(f Finding) string { return rd.placeholders[f.Fingerprint] }

// Summary returns the counts to record in the exported file.
func (rd *Redactor) Summary() Summary { return rd.summary }

// Redact returns doc's text with the accepted findings in it replaced, and with every
// other occurrence of an accepted value too (a secret repeated where no rule fired, say
// in a title), so that nothing accepted survives anywhere in the export.
func (rd *Redactor) Redact(doc Doc) string {
	text := doc.Text
	type repl struct {
		start, end int
		with       string
	}
	var spans []repl
	for _, f := range rd.byDoc[doc.ID] {
		// Only trust a position if the doc is the one that was scanned.
		if f.End <= len(text) && text[f.Start:f.End] == f.secret {
			spans = append(spans, repl{f.Start, f.End, rd.placeholders[f.Fingerprint]})
		}
	}
	rd.values.each(text, func(s, e, i int) {
		if valueCounts(text, s, e) {
			spans = append(spans, repl{s, e, rd.secrets[i].placeholder})
		}
	})
	if len(spans) == 0 {
		return text
	}
	// Earliest first and, at the same start, longest first; a span inside one already
	// taken is dropped.
	slices.SortFunc(spans, func(a, b repl) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var b strings.Builder
	b.Grow(len(text))
	p := 0
	for _, sp := range spans {
		if sp.start < p {
			// A span reaching past the one taken would leave its tail readable; drop
			// that tail rather than show part of a secret.
			p = max(p, sp.end)
			continue
		}
		b.WriteString(text[p:sp.start])
		b.WriteString(sp.with)
		p = sp.end
	}
	b.WriteString(text[p:])
	return b.String()
}
