package openhandsgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Style is how event JSON is written.
type Style int

// The styles the OpenHands writers use (doc §1.1, §6).
const (
	// Compact is the SDK EventLog form: one line, no spaces, kind last.
	Compact Style = iota
	// Python is the 2025 agent-server form: ", " and ": " separators,
	// \uXXXX escapes, kind first.
	Python
	// Pretty is indent=2 (app-server files, fixtures, V0 arrays).
	Pretty
)

// obj is a JSON object with its keys in writing order.
type obj []kv

type kv struct {
	k string
	v any
}

// with returns o plus one member.
func (o obj) with(k string, v any) obj { return append(o[:len(o):len(o)], kv{k, v}) }

// get returns a member's value.
func (o obj) get(k string) any {
	for _, m := range o {
		if m.k == k {
			return m.v
		}
	}
	return nil
}

// without returns o minus member k.
func (o obj) without(k string) obj {
	var out obj
	for _, m := range o {
		if m.k != k {
			out = append(out, m)
		}
	}
	return out
}

// kindFirst moves "kind" to the front, as Python's json.dumps of the 2025
// agent-server did.
func (o obj) kindFirst() obj {
	if o.get("kind") == nil {
		return o
	}
	return append(obj{{"kind", o.get("kind")}}, o.without("kind")...)
}

// encode writes v in style s.
func encode(v any, s Style) []byte {
	var b bytes.Buffer
	write(&b, v, s, 0)
	return b.Bytes()
}

func write(b *bytes.Buffer, v any, s Style, depth int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case obj:
		if s == Python {
			x = x.kindFirst()
		}
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range x {
			sep(b, s, depth, i)
			writeString(b, m.k, s)
			if s == Compact {
				b.WriteByte(':')
			} else {
				b.WriteString(": ")
			}
			write(b, m.v, s, depth+1)
		}
		closeIndent(b, s, depth)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			sep(b, s, depth, i)
			write(b, e, s, depth+1)
		}
		closeIndent(b, s, depth)
		b.WriteByte(']')
	case string:
		writeString(b, x, s)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	case json.RawMessage:
		b.Write(x)
	default:
		panic(fmt.Sprintf("openhandsgen: cannot write %T", v))
	}
}

func sep(b *bytes.Buffer, s Style, depth, i int) {
	if i > 0 {
		b.WriteByte(',')
		if s == Python {
			b.WriteByte(' ')
		}
	}
	if s == Pretty {
		b.WriteByte('\n')
		b.Write(bytes.Repeat([]byte("  "), depth+1))
	}
}

func closeIndent(b *bytes.Buffer, s Style, depth int) {
	if s == Pretty {
		b.WriteByte('\n')
		b.Write(bytes.Repeat([]byte("  "), depth))
	}
}

// writeString writes a JSON string; Python style escapes non-ASCII as \uXXXX.
func writeString(b *bytes.Buffer, str string, s Style) {
	if s != Python {
		enc, _ := json.Marshal(str)
		// encoding/json escapes <, > and & as \u003c...; OpenHands does not.
		enc = bytes.ReplaceAll(enc, []byte(`\u003c`), []byte("<"))
		enc = bytes.ReplaceAll(enc, []byte(`\u003e`), []byte(">"))
		enc = bytes.ReplaceAll(enc, []byte(`\u0026`), []byte("&"))
		b.Write(enc)
		return
	}
	b.WriteByte('"')
	for _, r := range str {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				r1, r2 := utf16Pair(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, r1, r2)
				continue
			}
			if r == utf8.RuneError {
				r = 0xfffd
			}
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// reindent returns an already encoded value for nesting one level deep: in
// Pretty style its lines are shifted by one indent.
func reindent(data []byte, s Style) json.RawMessage {
	if s != Pretty {
		return json.RawMessage(data)
	}
	return json.RawMessage(bytes.ReplaceAll(data, []byte("\n"), []byte("\n  ")))
}
