package dsh

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

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

func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\"c\\d\/e\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, `"\u0000\t"`, `"é😀"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		// Only exact string literals (values as the scanner hands them over), and
		// valid UTF-8: invalid bytes are kept as written rather than replaced.
		if json.Unmarshal(b, &want) != nil || len(b) < 2 || b[0] != '"' || skipString(b, 0) != len(b) || !utf8.Valid(b) {
			return
		}
		got, ok := jsonString(b)
		if !ok || got != want {
			t.Fatalf("jsonString(%q) = %q, %v; encoding/json says %q", b, got, ok, want)
		}
	})
}

// FuzzScanObject: scanObject judges validity as encoding/json does and splits a valid
// object into the members eachMember finds.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",{"b":null}],"c":2}`, ` { "k\u0031" : "v" , "k" : {} } `, `{}`, `[1]`, `{"a":1,}`, `{"a" 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		members, valid, object := scanObject(b, nil)
		if valid != json.Valid(b) {
			t.Fatalf("scanObject says valid=%v on %q", valid, b)
		}
		if !valid {
			return
		}
		var want []member
		if err := eachMember(b, func(k, v []byte) error {
			want = append(want, member{key: k, val: v})
			return nil
		}); (err == nil) != object {
			t.Fatalf("scanObject says object=%v on %q", object, b)
		}
		if object {
			assert.Equal(t, want, members)
		}
	})
}
