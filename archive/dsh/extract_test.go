package dsh

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUndecodablePaths: a problem's path is spelled out whole, at every depth.
func TestUndecodablePaths(t *testing.T) {
	for _, tc := range []struct{ typ, data, want string }{
		{"tool/call", `{"callId":"c","name":7}`, "data.name: expected a string, got a number"},
		{"user/message", `{"id":"u","content":[{"type":"text","text":"a"},{"type":"text","text":5}]}`,
			"data.content[1].text: expected a string, got a number"},
		{"assistant/message", `{"message":{"source":{"kind":1}}}`, "data.message.source.kind: expected a string, got a number"},
		{"tool/result", `{"message":{"content":[{"type":"tool-result","content":[{"type":"text","text":true}]}]}}`,
			"data.message.content[0].content[0].text: expected a string, got a boolean"},
		{"tool/result", `{"message":{"content":{}}}`, "data.message.content: expected an array, got an object"},
	} {
		var d eventData
		_, p := decodeEventData(tc.typ, []byte(tc.data), &d)
		assert.Equal(t, tc.want, p, tc.data)
	}
}
