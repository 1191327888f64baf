package dsh

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidJSONMatchesEncodingJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e-3, -0, true, false, null, "x\u00e9\n"]} `, `"\ud83d\ude00"`,
		`{"a":}`, `{"a" 1}`, `{,}`, `[1,]`, `01`, `1.`, `.5`, `-`, `1e`, `1e+`, `"\x"`, `"\u12"`, "\"a\tb\"",
		`{"a":1}x`, `tru`, `nul`, `[`, `{"a":{"b":[{}]}}`, `"unterminated`, "", " ", `{"a":1,}`, `[[[]]]`,
		`{"k":"v","k":"w"}`, `1 2`, `-01`, `2E5`, `"é"`, strings.Repeat("[", 20) + strings.Repeat("]", 20),
	}
	for _, c := range cases {
		assert.Equal(t, json.Valid([]byte(c)), validJSON([]byte(c)), "%q", c)
	}
}

func FuzzValidJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,"x",{"b":null}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if json.Valid(b) != validJSON(b) {
			t.Fatalf("validJSON disagrees with encoding/json on %q", b)
		}
	})
}
