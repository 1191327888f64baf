package dsh

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxSafeInt is JavaScript's Number.MAX_SAFE_INTEGER: dsh validates every integer
// field with Number.isSafeInteger, so the importer does too.
const maxSafeInt = 1<<53 - 1

var errNotObject = errors.New("not a JSON object")

// eachMember calls fn for every top-level member of the JSON object b, in order, with
// the member's key (unescaped) and its raw value. b must already be valid JSON (the
// caller checks with json.Valid); keys are returned as strings only when they hold an
// escape, otherwise as a sub-slice, to avoid an allocation per key on the hot path.
func eachMember(b []byte, fn func(key []byte, val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		kEnd := skipString(b, i)
		key := b[i+1 : kEnd-1]
		if indexByte(key, '\\') >= 0 {
			var s string
			if err := json.Unmarshal(b[i:kEnd], &s); err != nil {
				return err
			}
			key = []byte(s)
		}
		i = skipSpace(b, kEnd)
		i = skipSpace(b, i+1) // ':'
		vEnd := skipValue(b, i)
		if err := fn(key, b[i:vEnd]); err != nil {
			return err
		}
		i = skipSpace(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		break
	}
	return nil
}

// eachElement calls fn for every element of the JSON array b (already validated).
func eachElement(b []byte, fn func(val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errors.New("not a JSON array")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		vEnd := skipValue(b, i)
		if err := fn(b[i:vEnd]); err != nil {
			return err
		}
		i = skipSpace(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		break
	}
	return nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string literal starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	// Jump from quote to quote (IndexByte is vectorised): a quote ends the
	// string unless an odd run of backslashes escapes it.
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		escaped := false
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			escaped = !escaped
		}
		if !escaped {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}

// jsonKind names the JSON type of a raw value, for error messages.
func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// safeInt parses a JSON number that must be a safe integer the way
// Number.isSafeInteger judges it: 1e3 and 2.0 count, 1.5 and 2^53 do not. negZero
// reports a -0, which dsh rejects wherever a non-negative integer is required.
func safeInt(v []byte) (n int64, negZero bool, ok bool) {
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return 0, false, false
	}
	// Fast path: plain digits.
	plain := true
	start := 0
	if v[0] == '-' {
		start = 1
	}
	for _, c := range v[start:] {
		if c < '0' || c > '9' {
			plain = false
			break
		}
	}
	if plain && len(v)-start <= 16 {
		x, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, false, false
		}
		if x > maxSafeInt || x < -maxSafeInt {
			return 0, false, false
		}
		return x, x == 0 && v[0] == '-', true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInt {
		return 0, false, false
	}
	return int64(f), f == 0 && math.Signbit(f), true
}

// nonNegInt accepts a non-negative safe integer that is not -0.
func nonNegInt(v []byte) (int64, bool) {
	n, negZero, ok := safeInt(v)
	if !ok || negZero || n < 0 {
		return 0, false
	}
	return n, true
}

// jsonString decodes a JSON string value; ok is false if v is not a string.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if indexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	return unescape(inner)
}

// unescape decodes the body of a JSON string literal that holds escapes. Invalid
// escapes and lone surrogates decode as U+FFFD, as encoding/json does.
func unescape(in []byte) (string, bool) {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(in) {
			return "", false
		}
		switch in[i] {
		case '"', '\\', '/':
			out = append(out, in[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(in[i+1:])
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if i+6 < len(in) && in[i+1] == '\\' && in[i+2] == 'u' {
					if r2, ok := hex4(in[i+3:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return string(out), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// errStop ends a member scan early.
var errStop = errors.New("stop")

// TurnStep reads the top-level "turn" and "step" numbers of an event's data object
// without decoding the rest; absent or non-integer values report ok false.
func TurnStep(data []byte) (turn int64, hasTurn bool, step int64, hasStep bool) {
	_ = eachMember(data, func(k, v []byte) error {
		switch string(k) {
		case "turn":
			turn, _, hasTurn = safeInt(v)
		case "step":
			step, _, hasStep = safeInt(v)
		}
		if hasTurn && hasStep {
			return errStop
		}
		return nil
	})
	return
}

// Members calls fn for each top-level member of the JSON object b, in order; it
// returns false if b is not an object. b must be valid JSON (every line a Reader
// returns is), which is what makes this scan fast: it never re-validates.
func Members(b []byte, fn func(key, val []byte)) bool {
	return eachMember(b, func(k, v []byte) error {
		fn(k, v)
		return nil
	}) == nil
}

// Elements calls fn for each element of the JSON array b (valid JSON); it returns
// false if b is not an array.
func Elements(b []byte, fn func(val []byte)) bool {
	return eachElement(b, func(v []byte) error {
		fn(v)
		return nil
	}) == nil
}

// String decodes a JSON string value; ok is false for any other kind of value.
func String(v []byte) (string, bool) { return jsonString(v) }

// Int decodes a JSON number that is a safe integer.
func Int(v []byte) (int64, bool) {
	n, _, ok := safeInt(v)
	return n, ok
}
