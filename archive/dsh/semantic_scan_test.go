package dsh_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dsh"
)

// TestCheckerScanMatchesJSON holds the Checker's scanner to encoding/json on the
// data of every event of the real log, a generated log and the malformation
// catalogue, and on shapes at the edges of what it accepts.
func TestCheckerScanMatchesJSON(t *testing.T) {
	lines := sampleLines(t)
	var d dsh.LineDecoder
	scanned := 0
	for _, l := range lines {
		rec, p := d.Decode(l, 2)
		if p != nil || rec.Packed != "" {
			continue
		}
		n, diff := dsh.ScanMatchesJSON(rec.Events[0].Data)
		require.Empty(t, diff, "%s", l)
		scanned += n
	}
	assert.Greater(t, scanned, 500)

	edges := []string{
		`{"turn":1,"step":2,"message":{"content":[{"type":"tool-call","id":"c","name":"n","arguments":"{}"},null]}}`,
		`{"turn":-0,"step":null,"message":null,"content":[]}`,
		`{"message":{"content":[],"source":{"callId":"c\u00e9"}},"callId":"x","error":{"name":"E","code":"C"}}`,
		`{"message":{"content":null,"source":null},"error":null}`,
		`{"Turn":1}`, `{"turn":1,"turn":2}`, `{"turn":1.0}`, `{"turn":1e2}`, `{"turn":"1"}`, `{"turn":99999999999999999999}`,
		`{"message":{"Content":[]}}`, `{"message":{"content":[{"ID":"c"}]}}`, `{"message":{"content":[{"id":"c","id":"d"}]}}`,
		`{"message":{"content":[1]}}`, `{"message":[]}`, `{"error":{"name":"E","code":1}}`, `{"callId":"\ud800"}`,
		"{\"callId\":\"\xff\"}", `{"message":{"source":{"callID":"c"}}}`, `{"ſtep":1}`, `"text"`, `null`, `[]`, `{}`,
	}
	for _, e := range edges {
		_, diff := dsh.ScanMatchesJSON([]byte(e))
		assert.Empty(t, diff, "%s", e)
	}
}

// FuzzCheckerScan: wherever the Checker's scanner accepts data, it reads it as
// encoding/json does.
func FuzzCheckerScan(f *testing.F) {
	f.Add([]byte(`{"turn":1,"step":2,"message":{"content":[{"type":"tool-call","id":"c","name":"n","arguments":"{}"}],"source":{"callId":"c"}},"error":{"name":"E","code":"C"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) || !json.Valid(data) {
			return
		}
		if _, diff := dsh.ScanMatchesJSON(bytes.TrimSpace(data)); diff != "" {
			t.Fatalf("%s: %s", data, diff)
		}
	})
}
