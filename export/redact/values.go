package redact

import (
	"strings"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// valuePrefixLen is how much of each value a valueSet's trie holds: its states take
// 2 KB each, and a private key is 2 KB of text.
const valuePrefixLen = 24

// valueSet finds every occurrence of a set of exact values in one pass over a text.
type valueSet struct {
	values   []string
	prefixes *ahocorasick.Trie
	byPrefix [][]int // prefix pattern number → indexes into values
}

func newValueSet(values []string) *valueSet {
	vs := &valueSet{values: values}
	b := ahocorasick.NewTrieBuilder()
	pattern := map[string]int{}
	for i, v := range values {
		p := v[:min(len(v), valuePrefixLen)]
		n, ok := pattern[p]
		if !ok {
			n = len(vs.byPrefix)
			pattern[p] = n
			vs.byPrefix = append(vs.byPrefix, nil)
			b.AddString(p)
		}
		vs.byPrefix[n] = append(vs.byPrefix[n], i)
	}
	vs.prefixes = b.Build()
	return vs
}

// each calls fn with the range and index of every occurrence of a value in text,
// overlapping ones included.
func (vs *valueSet) each(text string, fn func(start, end, i int)) {
	if len(vs.values) == 0 {
		return
	}
	vs.prefixes.Walk([]byte(text), func(end, n, pattern int64) bool {
		s := int(end - n + 1)
		for _, i := range vs.byPrefix[pattern] {
			if strings.HasPrefix(text[s:], vs.values[i]) {
				fn(s, s+len(vs.values[i]), i)
			}
		}
		return true
	})
}

// standsAlone reports whether text[s:e] is not part of a longer word.
func standsAlone(text string, s, e int) bool {
	return !(s > 0 && isNameByte(text[s-1])) && !(e < len(text) && isNameByte(text[e]))
}

// valueCounts reports whether a found value at text[s:e] counts: a long one wherever it
// occurs, a short one (below placeholderMinLen) only where it stands alone.
func valueCounts(text string, s, e int) bool {
	return e-s >= placeholderMinLen || standsAlone(text, s, e)
}

// propagation finds, in a second pass, the values the first pass found anywhere: a
// token detected in a curl command is as secret in the tool output that echoes it, and
// the report (and so every preview) must show it there too.
type propagation struct {
	set   *valueSet
	found []match // rule, category and priority of the first finding of each value
}

func (p *propagation) find(text, _ string, out []match) []match {
	p.set.each(text, func(s, e, i int) {
		if valueCounts(text, s, e) {
			m := p.found[i]
			m.start, m.end = s, e
			out = append(out, m)
		}
	})
	return out
}
