package dsh

import "testing"

// BenchmarkDecodeMessage decodes an assistant message of three content blocks, as
// the import does for every message.
func BenchmarkDecodeMessage(b *testing.B) {
	data := []byte(`{"turn":1,"step":1,"message":{"id":"a-6","role":"assistant","content":[{"type":"reasoning","text":"think"},{"type":"text","text":"abc"},{"type":"tool-call","id":"call-1","name":"shell","arguments":"{}"}],"source":{"kind":"model","provider":"deepseek","model":"v4"}},"usage":{"inputTokens":10,"outputTokens":5}}`)
	b.ReportAllocs()
	for range b.N {
		var d eventData
		if ok, p := decodeEventData("assistant/message", data, &d); !ok || p != "" {
			b.Fatal(p)
		}
	}
}
