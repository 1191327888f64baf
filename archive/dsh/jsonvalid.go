package dsh

// maxDepth bounds nesting like encoding/json does, so hostile input cannot exhaust
// the stack.
const maxDepth = 10000

// validJSON reports whether b is exactly one valid JSON value (RFC 8259), surrounded
// by optional whitespace. It is a single allocation-free pass, several times faster
// than json.Valid, which matters because every stored line is validated. Like
// json.Valid it does not judge UTF-8.
func validJSON(b []byte) bool {
	v := validator{b: b}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(b)
}

type validator struct {
	b []byte
	i int
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) || depth > maxDepth {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '"':
		return v.str()
	case c == '{':
		v.i++
		v.space()
		if v.i < len(v.b) && v.b[v.i] == '}' {
			v.i++
			return true
		}
		for {
			if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
				return false
			}
			v.space()
			if v.i >= len(v.b) || v.b[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
			if !v.value(depth + 1) {
				return false
			}
			v.space()
			if v.i >= len(v.b) {
				return false
			}
			if v.b[v.i] == '}' {
				v.i++
				return true
			}
			if v.b[v.i] != ',' {
				return false
			}
			v.i++
			v.space()
		}
	case c == '[':
		v.i++
		v.space()
		if v.i < len(v.b) && v.b[v.i] == ']' {
			v.i++
			return true
		}
		for {
			if !v.value(depth + 1) {
				return false
			}
			v.space()
			if v.i >= len(v.b) {
				return false
			}
			if v.b[v.i] == ']' {
				v.i++
				return true
			}
			if v.b[v.i] != ',' {
				return false
			}
			v.i++
			v.space()
		}
	case c == 't':
		return v.lit("true")
	case c == 'f':
		return v.lit("false")
	case c == 'n':
		return v.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return v.num()
	}
	return false
}

func (v *validator) lit(s string) bool {
	if len(v.b)-v.i < len(s) || string(v.b[v.i:v.i+len(s)]) != s {
		return false
	}
	v.i += len(s)
	return true
}

func (v *validator) str() bool {
	v.i++ // opening quote
	for v.i < len(v.b) {
		// Most of a string is plain characters: pass them in a loop over
		// locals, not through the switch and v's fields.
		b, j := v.b, v.i
		for j < len(b) && b[j] >= 0x20 && b[j] != '"' && b[j] != '\\' {
			j++
		}
		if v.i = j; j == len(b) {
			return false
		}
		c := b[j]
		switch {
		case c == '"':
			v.i++
			return true
		case c == '\\':
			v.i++
			if v.i >= len(v.b) {
				return false
			}
			switch v.b[v.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				v.i++
			case 'u':
				if len(v.b)-v.i < 5 {
					return false
				}
				for _, h := range v.b[v.i+1 : v.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				v.i += 5
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			v.i++
		}
	}
	return false
}

func (v *validator) digits() int {
	n := 0
	for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
		v.i++
		n++
	}
	return n
}

func (v *validator) num() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	if v.i >= len(v.b) {
		return false
	}
	if v.b[v.i] == '0' {
		v.i++
	} else if v.digits() == 0 {
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if v.digits() == 0 {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if v.digits() == 0 {
			return false
		}
	}
	return true
}
