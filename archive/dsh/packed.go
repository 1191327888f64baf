package dsh

// decodePackedFast decodes a packed chunk row written exactly as dsh writes it, in
// one pass that validates as it reads:
//
//	{"type":T,"seq0":N,"time0":N,"data":{"turn":N,"step":N,"index":N,"dt":[N,…],"texts":[S,…]}}
//
// (tool-call rows carry "id":S and optionally "name":S before "args" instead of
// "texts"), with no whitespace, keys in that order and integers written as plain
// digits. Such rows are most of a log's lines. It returns nil for anything else,
// valid or not: decode then takes the general path, which accepts every row this
// accepts, decodes it the same way, and alone words the problems of bad rows.
func (d *recordDecoder) decodePackedFast(line []byte, lineNo int64) *Record {
	p := fastParser{b: line}
	if !p.lit(`{"type":"`) {
		return nil
	}
	var tag, kind, payloadKey string
	switch {
	case p.lit(`text-chunks"`):
		tag, kind, payloadKey = RowTextChunks, "text-delta", `,"texts":[`
	case p.lit(`reasoning-chunks"`):
		tag, kind, payloadKey = RowReasoningChunks, "reasoning-delta", `,"texts":[`
	case p.lit(`tool-call-chunks"`):
		tag, kind, payloadKey = RowToolCallChunks, "tool-call-delta", `,"args":[`
	default:
		return nil
	}
	var seq0, time0 int64
	proto := Chunk{Kind: kind}
	ok := p.lit(`,"seq0":`) && p.uint(&seq0) &&
		p.lit(`,"time0":`) && p.int(&time0) &&
		p.lit(`,"data":{"turn":`) && p.uint(&proto.Turn) &&
		p.lit(`,"step":`) && p.uint(&proto.Step) &&
		p.lit(`,"index":`) && p.uint(&proto.Index) &&
		p.lit(`,"dt":[`)
	if !ok {
		return nil
	}
	d.dts = d.dts[:0]
	if !p.lit(`]`) {
		for {
			var gap int64
			if !p.int(&gap) {
				return nil
			}
			d.dts = append(d.dts, gap)
			if p.lit(`]`) {
				break
			}
			if !p.lit(`,`) {
				return nil
			}
		}
	}
	if tag == RowToolCallChunks {
		var id []byte
		if !p.lit(`,"id":`) || !p.str(&id) {
			return nil
		}
		if s, ok := jsonString(id); ok && s != "" {
			proto.ID = s
		} else {
			return nil
		}
		if p.lit(`,"name":`) {
			var name []byte
			if !p.str(&name) {
				return nil
			}
			if proto.Name, ok = jsonString(name); !ok {
				return nil
			}
			proto.HasName = true
		}
	}
	if !p.lit(payloadKey) {
		return nil
	}
	d.texts = d.texts[:0]
	for {
		var text []byte
		if !p.str(&text) {
			return nil
		}
		d.texts = append(d.texts, text)
		if p.lit(`]`) {
			break
		}
		if !p.lit(`,`) {
			return nil
		}
	}
	if !p.lit(`}}`) || p.i != len(line) || len(d.dts) != len(d.texts)-1 {
		return nil
	}
	t := time0
	for _, gap := range d.dts {
		if t += gap; t > maxSafeInt || t < -maxSafeInt {
			return nil
		}
	}
	return d.packedRecord(line, lineNo, tag, seq0, time0, proto)
}

// fastParser reads JSON of a fixed shape, token by token. Every method reports false,
// without consuming anything useful, where the input departs from what it expects.
type fastParser struct {
	b []byte
	i int
}

// lit consumes s if the input continues with it.
func (p *fastParser) lit(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// maxFastDigits bounds the integers the fast path reads: 15 digits are always below
// 2^53, so such an integer is safe without further checks.
const maxFastDigits = 15

// uint reads a non-negative integer in plain digits (valid JSON: no leading zeros).
func (p *fastParser) uint(dst *int64) bool {
	var n int64
	k := 0
	for p.i+k < len(p.b) && k <= maxFastDigits {
		c := p.b[p.i+k]
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
		k++
	}
	if k == 0 || k > maxFastDigits || (k > 1 && p.b[p.i] == '0') {
		return false
	}
	p.i += k
	*dst = n
	return true
}

// int reads an integer in plain digits with an optional minus sign; -0 reads as 0,
// as safeInt reads it.
func (p *fastParser) int(dst *int64) bool {
	neg := p.lit(`-`)
	if !p.uint(dst) {
		return false
	}
	if neg {
		*dst = -*dst
	}
	return true
}

// str reads a string literal, validated as validJSON validates strings, and sets
// *dst to the literal with its quotes.
func (p *fastParser) str(dst *[]byte) bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	v := validator{b: p.b, i: p.i}
	if !v.str() {
		return false
	}
	*dst = p.b[p.i:v.i]
	p.i = v.i
	return true
}
