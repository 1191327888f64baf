// Package jsonw writes JSON with object members in the order given, in the
// styles agents' own writers use: the test data generators (archive/dshgen,
// archive/openhandsgen) write their events with it, byte for byte as the agents
// do.
package jsonw

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Style is how a Writer lays JSON out.
type Style int

// The styles.
const (
	// Compact is one line with no spaces, strings escaped as JSON.stringify
	// does (dsh; the OpenHands SDK's EventLog).
	Compact Style = iota
	// Python is Python's json.dumps: ", " and ": " separators, and every
	// character outside printable ASCII as \uXXXX (the 2025 agent-server).
	Python
	// Pretty is indent=2, strings as in Compact (app-server files, fixtures).
	Pretty
)

// Object is a JSON object whose members are written in the order each gives.
type Object interface {
	EachMember(fn func(key string, value any))
}

// Writer writes values in a Style. Values may be nil, string, bool, int, int64,
// float64, json.RawMessage (written as is), Object, []any, []int64 or []string.
type Writer struct {
	Style Style
	// First, when set, is the member written first in every object that has
	// it (Python's json.dumps of a dict built with it first).
	First string
}

// Append appends v as JSON.
func (w Writer) Append(b []byte, v any) []byte { return w.value(b, v, 0) }

func (w Writer) value(b []byte, v any, depth int) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return w.appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	case json.RawMessage:
		return append(b, x...)
	case Object:
		return w.object(b, x, depth)
	case []any:
		return w.list(b, len(x), depth, func(b []byte, i int) []byte { return w.value(b, x[i], depth+1) })
	case []int64:
		return w.list(b, len(x), depth, func(b []byte, i int) []byte { return strconv.AppendInt(b, x[i], 10) })
	case []string:
		return w.list(b, len(x), depth, func(b []byte, i int) []byte { return w.appendString(b, x[i]) })
	}
	panic(fmt.Sprintf("jsonw: cannot write %T", v))
}

func (w Writer) object(b []byte, o Object, depth int) []byte {
	type member struct {
		k string
		v any
	}
	var ms []member
	o.EachMember(func(k string, v any) { ms = append(ms, member{k, v}) })
	if w.First != "" {
		for i, m := range ms {
			if m.k == w.First {
				copy(ms[1:i+1], ms[:i])
				ms[0] = m
				break
			}
		}
	}
	if len(ms) == 0 {
		return append(b, "{}"...)
	}
	b = append(b, '{')
	for i, m := range ms {
		b = w.sep(b, depth, i)
		b = w.appendString(b, m.k)
		b = append(b, ':')
		if w.Style != Compact {
			b = append(b, ' ')
		}
		b = w.value(b, m.v, depth+1)
	}
	return append(w.close(b, depth), '}')
}

func (w Writer) list(b []byte, n, depth int, item func([]byte, int) []byte) []byte {
	if n == 0 {
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i := range n {
		b = item(w.sep(b, depth, i), i)
	}
	return append(w.close(b, depth), ']')
}

func (w Writer) sep(b []byte, depth, i int) []byte {
	if i > 0 {
		b = append(b, ',')
		if w.Style == Python {
			b = append(b, ' ')
		}
	}
	if w.Style == Pretty {
		b = append(b, '\n')
		for range depth + 1 {
			b = append(b, "  "...)
		}
	}
	return b
}

func (w Writer) close(b []byte, depth int) []byte {
	if w.Style == Pretty {
		b = append(b, '\n')
		for range depth {
			b = append(b, "  "...)
		}
	}
	return b
}

func (w Writer) appendString(b []byte, s string) []byte {
	if w.Style == Python {
		return appendASCII(b, s)
	}
	return AppendString(b, s)
}

// AppendString appends s as a JSON string escaped as JSON.stringify does.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendEscaped(b, s)
	return append(b, '"')
}

// AppendEscaped appends the body of a JSON string for s (no quotes), escaped
// as JSON.stringify does: quotes, backslashes and control characters only.
func AppendEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}

// appendASCII appends s as Python's json.dumps (ensure_ascii) writes it.
func appendASCII(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20 || r > 0x7e:
			if r == utf8.RuneError {
				r = 0xfffd
			}
			if r > 0xffff {
				r -= 0x10000
				b = fmt.Appendf(b, `\u%04x\u%04x`, 0xd800+(r>>10)&0x3ff, 0xdc00+r&0x3ff)
				continue
			}
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = append(b, byte(r))
		}
	}
	return append(b, '"')
}
