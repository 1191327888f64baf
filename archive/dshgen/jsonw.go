package dshgen

import (
	"strconv"
)

// rawJSON is a pre-encoded JSON value for obj/arr values.
type rawJSON []byte

// kv is one ordered member of an obj.
type kv struct {
	k string
	v any
}

// obj is an ordered JSON object literal used for low-volume events. Values may be
// string, bool, int, int64, nil, rawJSON, obj, arr, []int64 or []string.
type obj []kv

// arr is a JSON array literal with the same value rules as obj.
type arr []any

// appendValue appends v as JSON.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case rawJSON:
		return append(b, v...)
	case obj:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.k)
			b = append(b, ':')
			b = appendValue(b, m.v)
		}
		return append(b, '}')
	case arr:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case []int64:
		return appendInts(b, v)
	case []string:
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		return append(b, ']')
	default:
		panic("dshgen: unsupported JSON value type")
	}
}

// appendString appends s as a JSON string escaped the way JSON.stringify does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// escapeString returns the JSON.stringify escaping of s without the quotes.
func escapeString(s string) string {
	return string(appendEscaped(nil, s))
}

// appendEscaped appends the body of a JSON string for s (no quotes).
func appendEscaped(b []byte, s string) []byte {
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

// appendInts appends a flat JSON number array.
func appendInts(b []byte, v []int64) []byte {
	b = append(b, '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, n, 10)
	}
	return append(b, ']')
}

// strictlyIncreasing reports whether v is strictly increasing.
func strictlyIncreasing(v []int64) bool {
	for i := 1; i < len(v); i++ {
		if v[i] <= v[i-1] {
			return false
		}
	}
	return true
}

// appendSeqs appends a physical sourceEventSeqs value for the logical list v.
func appendSeqs(b []byte, v []int64, enc SeqEncoding) []byte {
	if enc == SeqFlat || !strictlyIncreasing(v) {
		return appendInts(b, v)
	}
	minRun := 3
	if enc == SeqNonCanonical {
		minRun = 1
	}
	b = append(b, '[')
	first := true
	for i := 0; i < len(v); {
		j := i + 1
		for j < len(v) && v[j] == v[j-1]+1 {
			j++
		}
		if j-i >= minRun {
			if !first {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, v[i], 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, v[j-1], 10)
			b = append(b, ']')
			first = false
		} else {
			for _, n := range v[i:j] {
				if !first {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, n, 10)
				first = false
			}
		}
		i = j
	}
	return append(b, ']')
}

// EncodeSeqs returns the physical JSON form of a logical sourceEventSeqs list in the
// requested encoding (SeqCanonical reproduces dsh's encodeSeqRanges).
func EncodeSeqs(seqs []int64, enc SeqEncoding) []byte {
	return appendSeqs(nil, seqs, enc)
}
