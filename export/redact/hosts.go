package redact

import (
	"net/netip"
	"strings"
)

// ipv4Rule finds dotted quads by hand: a regexp without a literal prefix would walk every
// byte of every doc far slower than this loop.
type ipv4Rule struct{}

func (ipv4Rule) find(text, _ string, out []match) []match {
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '.')
		if j < 0 {
			break
		}
		dot := i + j
		// Walk back over the digits before the first dot of a candidate.
		s := dot
		for s > 0 && s > dot-3 && isDigit(text[s-1]) {
			s--
		}
		// Inside a word or a version ("v1.2.3.4", "MinGit-2.45.1.2-64-bit") it is not an address.
		if s == dot || (s > 0 && (isAlnum(text[s-1]) || text[s-1] == '.')) ||
			(s > 1 && (text[s-1] == '-' || text[s-1] == '_') && isAlnum(text[s-2])) {
			i = dot + 1
			continue
		}
		e, ok := dottedQuad(text, s)
		if !ok {
			i = dot + 1
			continue
		}
		if a, err := netip.ParseAddr(text[s:e]); err == nil && reportableIP(a) {
			out = append(out, match{start: s, end: e, rule: "ipv4", cat: CategoryHost, prio: prioHost})
		}
		i = e
	}
	return out
}

// dottedQuad returns the end of four dot-separated 1–3 digit groups starting at s, not
// followed by more of a version number.
func dottedQuad(text string, s int) (int, bool) {
	p := s
	for g := 0; g < 4; g++ {
		if g > 0 {
			if p >= len(text) || text[p] != '.' {
				return 0, false
			}
			p++
		}
		n := 0
		for p < len(text) && isDigit(text[p]) && n < 4 {
			p++
			n++
		}
		if n == 0 || n > 3 {
			return 0, false
		}
	}
	if p < len(text) && (isAlnum(text[p]) || (text[p] == '.' && p+1 < len(text) && isDigit(text[p+1]))) {
		return 0, false
	}
	return p, true
}

// ipv6Rule finds IPv6 addresses around "::" or runs of hex groups and validates them.
type ipv6Rule struct{}

func (ipv6Rule) find(text, _ string, out []match) []match {
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], ':')
		if j < 0 {
			break
		}
		c := i + j
		s, e := c, c
		for s > 0 && isHexOrColon(text[s-1]) {
			s--
		}
		for e < len(text) && isHexOrColon(text[e]) {
			e++
		}
		i = e + 1
		if (s > 0 && (isAlnum(text[s-1]) || text[s-1] == '_')) || (e < len(text) && (isAlnum(text[e]) || text[e] == '_')) {
			continue
		}
		// A single colon at either end is punctuation ("at fe80::1: …"); "::" belongs to the address.
		if e-s > 1 && text[e-1] == ':' && text[e-2] != ':' {
			e--
		}
		if e-s > 1 && text[s] == ':' && text[s+1] != ':' {
			s++
		}
		cand := text[s:e]
		if strings.Count(cand, ":") < 2 || len(cand) < 6 || !hasHexGroup(cand) {
			continue
		}
		a, err := netip.ParseAddr(cand)
		if err != nil || !a.Is6() || !reportableIP(a) {
			continue
		}
		out = append(out, match{start: s, end: e, rule: "ipv6", cat: CategoryHost, prio: prioHost})
	}
	return out
}

// hasHexGroup requires one group of three or more hex digits, so that short code-like
// pairs such as "a::b" are not taken for addresses.
func hasHexGroup(s string) bool {
	for _, g := range strings.Split(s, ":") {
		if len(g) >= 3 {
			return true
		}
	}
	return false
}

// reportableIP drops addresses that say nothing about anyone's network.
func reportableIP(a netip.Addr) bool {
	if a.IsLoopback() || a.IsUnspecified() || a.IsMulticast() {
		return false
	}
	if a.Is4() {
		b := a.As4()
		// Netmasks and the broadcast address.
		if b[0] == 255 {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool      { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isHexOrColon(c byte) bool { return isDigit(c) || c == ':' || (c|0x20 >= 'a' && c|0x20 <= 'f') }
