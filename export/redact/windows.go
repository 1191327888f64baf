package redact

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// span is a byte range [start, end) of a doc.
type span struct{ start, end int }

// windows returns the merged ranges around every occurrence of an anchor in lower, from
// before bytes ahead of it to after bytes past its end, skipping occurrences keep
// rejects. Running a regexp only on these ranges instead of the whole doc is what makes
// rules without a literal prefix affordable: Go's regexp walks every byte otherwise.
func windows(text, lower string, anchors []string, before, after int, keep func(at, end int) bool) []span {
	var ws []span
	for _, a := range anchors {
		for i := 0; ; {
			j := indexFrom(lower, a, i)
			if j < 0 {
				break
			}
			i = j + 1
			if keep != nil && !keep(j, j+len(a)) {
				continue
			}
			s, e := max(0, j-before), min(len(text), j+len(a)+after)
			for s > 0 && !utf8.RuneStart(text[s]) {
				s--
			}
			for e < len(text) && !utf8.RuneStart(text[e]) {
				e++
			}
			ws = append(ws, span{s, e})
		}
	}
	return mergeSpans(ws)
}

// mergeSpans sorts spans and merges the ones that overlap or touch.
func mergeSpans(ws []span) []span {
	if len(ws) < 2 {
		return ws
	}
	slices.SortFunc(ws, func(a, b span) int { return a.start - b.start })
	out := ws[:1]
	for _, w := range ws[1:] {
		if last := &out[len(out)-1]; w.start <= last.end {
			last.end = max(last.end, w.end)
		} else {
			out = append(out, w)
		}
	}
	return out
}

// indexFrom is strings.Index(s[from:], sub) as an offset into s, or -1.
func indexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	j := strings.Index(s[from:], sub)
	if j < 0 {
		return -1
	}
	return from + j
}

// asciiLower lowers ASCII letters only, so that offsets into the result are offsets
// into s, which strings.ToLower does not promise for every Unicode letter.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
