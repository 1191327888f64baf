package jsonw_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/logbook/logbook/archive/internal/jsonw"
)

type obj [][2]any

func (o obj) EachMember(fn func(string, any)) {
	for _, m := range o {
		fn(m[0].(string), m[1])
	}
}

// TestStyles writes one value in each style, as dsh and the OpenHands writers
// do: member order kept (and First moved to the front), their separators and
// indentation, and their string escapes.
func TestStyles(t *testing.T) {
	v := obj{{"text", "a\"b\\c\n\t\x01é😀<>&\u2028"}, {"n", []any{1, int64(-2), 1.5, true, nil}},
		{"e", []any{}}, {"o", obj{}}, {"raw", json.RawMessage(`{"x":1}`)}, {"ids", []string{"a"}}, {"kind", "K"}}
	assert.Equal(t, `{"text":"a\"b\\c\n\t\u0001é😀<>&`+"\u2028"+`","n":[1,-2,1.5,true,null],"e":[],"o":{},"raw":{"x":1},"ids":["a"],"kind":"K"}`,
		string(jsonw.Writer{}.Append(nil, v)))
	assert.Equal(t, `{"kind": "K", "text": "a\"b\\c\n\t\u0001\u00e9\ud83d\ude00<>&\u2028", "n": [1, -2, 1.5, true, null], "e": [], "o": {}, "raw": {"x":1}, "ids": ["a"]}`,
		string(jsonw.Writer{Style: jsonw.Python, First: "kind"}.Append(nil, v)))
	assert.Equal(t, "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    }\n  ]\n}",
		string(jsonw.Writer{Style: jsonw.Pretty}.Append(nil, obj{{"a", []any{1, obj{{"b", []int64{}}}}}})))
	assert.Panics(t, func() { jsonw.Writer{}.Append(nil, struct{}{}) })
}
