package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Session logs are untrusted text: a tool's output or a crafted prompt can hold
// terminal control sequences (ESC]0; retitles the window, ESC]52; writes the
// clipboard, ESC[2J clears the screen) and bidirectional overrides that make text
// read differently from what it is. Everything the CLI prints for a person from a
// session passes through termSafe or a safeWriter; --json output and exports are
// data and stay exact.

// termSafe returns s with every control character made visible and harmless:
// C0 controls (but newline and tab) become their control pictures (ESC is ␛),
// C1 controls and bidi controls become ⟨U+XXXX⟩, a carriage return before a
// newline is dropped (Windows line ends) and a lone one is shown as ␍, and bytes
// that are not UTF-8 become U+FFFD.
func termSafe(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				b.WriteRune('␍')
			}
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r <= 0x9f, isBidiControl(r):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII, newlines and tabs only: the common
// case, passed through without a copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == 0x7f || (c < 0x20 && c != '\n' && c != '\t') {
			return false
		}
	}
	return true
}

// isBidiControl reports the invisible characters that reorder text: the marks,
// embeddings, overrides and isolates of the Unicode bidirectional algorithm.
func isBidiControl(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// safeWriter passes text through termSafe. A UTF-8 sequence split between two
// writes is held back until it is complete, so it is never mistaken for bad bytes.
type safeWriter struct {
	w    io.Writer
	tail []byte
}

func (s *safeWriter) Write(p []byte) (int, error) {
	buf := append(s.tail, p...)
	cut := len(buf)
	// Hold back an incomplete rune at the end (at most 3 bytes).
	for k := 1; k <= 3 && k <= len(buf); k++ {
		c := buf[len(buf)-k]
		if c < 0x80 {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				cut = len(buf) - k
			}
			break
		}
	}
	if _, err := io.WriteString(s.w, termSafe(string(buf[:cut]))); err != nil {
		return 0, err
	}
	s.tail = append(s.tail[:0], buf[cut:]...)
	return len(p), nil
}

// human is where a command prints text for a person: standard output, with every
// control sequence from session content made harmless.
func (e *env) human() io.Writer { return &safeWriter{w: e.stdout} }

// clip shortens s to at most n runes, the last of them an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// oneLine joins s onto one line, every run of white space one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// indent puts pre before every line of s.
func indent(s, pre string) string { return pre + strings.ReplaceAll(s, "\n", "\n"+pre) }
