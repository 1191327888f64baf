package dshgen

import (
	"encoding/json"
	"strconv"

	"github.com/logbook/logbook/archive/internal/jsonw"
)

// rawJSON is a pre-encoded JSON value for obj/arr values.
type rawJSON = json.RawMessage

// kv is one ordered member of an obj.
type kv struct {
	k string
	v any
}

// obj is an ordered JSON object literal used for low-volume events. Values may be
// string, bool, int, int64, nil, rawJSON, obj, arr, []int64 or []string.
type obj []kv

// EachMember calls fn with o's members in order (jsonw.Object).
func (o obj) EachMember(fn func(string, any)) {
	for _, m := range o {
		fn(m.k, m.v)
	}
}

// arr is a JSON array literal with the same value rules as obj.
type arr = []any

// appendValue appends v as JSON, as dsh writes it (JSON.stringify).
func appendValue(b []byte, v any) []byte { return jsonw.Writer{}.Append(b, v) }

// escapeString returns the JSON.stringify escaping of s without the quotes.
func escapeString(s string) string {
	return string(jsonw.AppendEscaped(nil, s))
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
		return appendValue(b, v)
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
