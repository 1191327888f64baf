package redact

import "strings"

// valueSet finds every occurrence of a set of exact values in one pass over a text.
//
// Each value is anchored on its first anchorLen bytes (all of a shorter one), held
// as an integer in a table per anchor length; the pass slides an 8-byte window over
// the text and looks up each position's anchors, behind a bitset that rules out
// nearly every position for a shift and a load. A value costs tens of bytes: an
// Aho-Corasick trie over them took 2 KB a state, about 45 KB a value, so that
// the thousands of distinct values a bundle of many sessions finds took hundreds
// of MB.
type valueSet struct {
	values  []string
	anchors []anchorTable // one per anchor length the values have
}

// anchorLen is the longest anchor: the window the pass slides, one machine word.
const anchorLen = 8

// anchorTable holds the values whose anchors are n bytes long.
type anchorTable struct {
	n     int
	mask  uint64           // the low n bytes of the window
	bits  []uint64         // bit hash(anchor) is set for every anchor in byKey
	shift uint             // hash(k) = k*anchorMul >> shift: an index into bits
	byKey map[uint64][]int // anchor → indexes into values
}

// anchorMul is a Fibonacci hashing multiplier (2^64 / the golden ratio).
const anchorMul = 0x9E3779B97F4A7C15

func newValueSet(values []string) *valueSet {
	vs := &valueSet{values: values}
	byLen := map[int]map[uint64][]int{}
	for i, v := range values {
		if v == "" {
			continue
		}
		n := min(len(v), anchorLen)
		if byLen[n] == nil {
			byLen[n] = map[uint64][]int{}
		}
		k := window(v, 0)
		if n < anchorLen {
			k &= 1<<(8*n) - 1
		}
		byLen[n][k] = append(byLen[n][k], i)
	}
	for n := anchorLen; n > 0; n-- {
		keys := byLen[n]
		if keys == nil {
			continue
		}
		// About 16 bits per anchor: one text position in 16 reaches the map.
		logBits := uint(6)
		for 1<<logBits < 16*len(keys) {
			logBits++
		}
		a := anchorTable{n: n, mask: ^uint64(0), bits: make([]uint64, 1<<(logBits-6)), shift: 64 - logBits, byKey: keys}
		if n < anchorLen {
			a.mask = 1<<(8*n) - 1
		}
		for k := range keys {
			h := k * anchorMul >> a.shift
			a.bits[h>>6] |= 1 << (h & 63)
		}
		vs.anchors = append(vs.anchors, a)
	}
	return vs
}

// window is text[i:i+8] as a little-endian integer, zero past the end of text.
func window(text string, i int) uint64 {
	var w uint64
	for j := 0; j < anchorLen && i+j < len(text); j++ {
		w |= uint64(text[i+j]) << (8 * j)
	}
	return w
}

// each calls fn with the range and index of every occurrence of a value in text,
// overlapping ones included.
func (vs *valueSet) each(text string, fn func(start, end, i int)) {
	if len(vs.anchors) == 0 || text == "" {
		return
	}
	w := window(text, 0)
	for i := 0; i < len(text); i++ {
		if i > 0 {
			w >>= 8
			if i+anchorLen-1 < len(text) {
				w |= uint64(text[i+anchorLen-1]) << (8 * (anchorLen - 1))
			}
		}
		for a := range vs.anchors {
			t := &vs.anchors[a]
			if i+t.n > len(text) {
				continue
			}
			k := w & t.mask
			h := k * anchorMul >> t.shift
			if t.bits[h>>6]&(1<<(h&63)) == 0 {
				continue
			}
			for _, vi := range t.byKey[k] {
				if v := vs.values[vi]; strings.HasPrefix(text[i:], v) {
					fn(i, i+len(v), vi)
				}
			}
		}
	}
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
