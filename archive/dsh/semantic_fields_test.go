package dsh

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFieldsMirrorEncodingJSON: whenever the scanner reads a user/message's or a
// title's fields, it reads what decode (encoding/json) reads; on anything else it
// declines, and the checks decode as before.
func TestFieldsMirrorEncodingJSON(t *testing.T) {
	user := []string{
		`{"id":"m1","role":"user","content":[{"type":"text","text":"hi \"there\""}],"source":{"kind":"user","rpcId":"x"}}`,
		`{"content":"x","source":{"kind":"plugin","plugin":"compact","compactionId":"c1","sourceCommandId":"s1"}}`,
		`{"id":null,"source":null}`,
		`{"id":"a","id":null}`,
		`{"id":"\u00e9\ud83d\ude00","source":{"kind":"us\u0065r"}}`,
		`{"ID":"upper"}`,
		`{"Source":{"kind":"user"}}`,
		`{"source":{"Kind":"user"}}`,
		`{"source":{"compactionid":"lower"}}`,
		`{"source":{"\u212Aind":"kelvin"}}`,
		`{"id":5}`,
		`{"source":"user"}`,
		`{"source":{"kind":1}}`,
		"{\"id\":\"\xff\"}",
		`[1,2]`,
		`"text"`,
		`{"id":"x",}`,
		``,
		`{}`,
	}
	for _, data := range user {
		var d struct {
			ID     *string
			Source messageSource
		}
		if !userMessageFields([]byte(data), &d.ID, &d.Source) {
			continue
		}
		var want struct {
			ID     *string
			Source messageSource
		}
		assert.True(t, decode([]byte(data), &want), "%s decodes", data)
		assert.Equal(t, want, d, "%s", data)
	}
	title := []string{
		`{"title":"T","messageSeqs":[2,5],"source":{"kind":"llm"}}`,
		`{"title":"T","messageSeqs":[],"source":{"kind":"user"}}`,
		`{"messageSeqs":null}`,
		`{"messageSeqs":[1],"messageSeqs":[3,4]}`,
		`{"messageSeqs":[1.5]}`,
		`{"messageSeqs":[1e2]}`,
		`{"messageSeqs":[99999999999999999999]}`,
		`{"messageSeqs":["1"]}`,
		`{"messageSeqs":3}`,
		`{"MessageSeqs":[1]}`,
		`{"source":{"KIND":"user"}}`,
		`{"source":null,"messageSeqs":[-0]}`,
	}
	for _, data := range title {
		var d struct {
			MessageSeqs []int64 `json:"messageSeqs"`
			Source      struct{ Kind string }
		}
		if !titleFields([]byte(data), &d.MessageSeqs, &d.Source.Kind) {
			continue
		}
		var want struct {
			MessageSeqs []int64 `json:"messageSeqs"`
			Source      struct{ Kind string }
		}
		assert.True(t, decode([]byte(data), &want), "%s decodes", data)
		assert.Equal(t, want, d, "%s", data)
	}
	// The common shapes take the fast path.
	var id *string
	var src messageSource
	assert.True(t, userMessageFields([]byte(user[0]), &id, &src))
	var seqs []int64
	var kind string
	assert.True(t, titleFields([]byte(title[0]), &seqs, &kind))
	assert.Equal(t, []int64{2, 5}, seqs)
	// And the ones encoding/json reads otherwise do not.
	for _, data := range []string{`{"ID":"upper"}`, `{"source":{"\u212Aind":"kelvin"}}`, `{"id":5}`, "{\"id\":\"\xff\"}"} {
		assert.False(t, userMessageFields([]byte(data), &id, &src), "%s", data)
	}
}
