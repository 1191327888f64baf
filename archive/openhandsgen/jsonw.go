package openhandsgen

import (
	"bytes"
	"encoding/json"

	"github.com/logbook/logbook/archive/internal/jsonw"
)

// Style is how event JSON is written.
type Style = jsonw.Style

// The styles the OpenHands writers use (doc §1.1, §6).
const (
	// Compact is the SDK EventLog form: one line, no spaces, kind last.
	Compact = jsonw.Compact
	// Python is the 2025 agent-server form: ", " and ": " separators,
	// \uXXXX escapes, kind first.
	Python = jsonw.Python
	// Pretty is indent=2 (app-server files, fixtures, V0 arrays).
	Pretty = jsonw.Pretty
)

// obj is a JSON object with its keys in writing order.
type obj []kv

type kv struct {
	k string
	v any
}

// with returns o plus one member.
func (o obj) with(k string, v any) obj { return append(o[:len(o):len(o)], kv{k, v}) }

// get returns a member's value.
func (o obj) get(k string) any {
	for _, m := range o {
		if m.k == k {
			return m.v
		}
	}
	return nil
}

// without returns o minus member k.
func (o obj) without(k string) obj {
	var out obj
	for _, m := range o {
		if m.k != k {
			out = append(out, m)
		}
	}
	return out
}

// EachMember calls fn with o's members in order (jsonw.Object).
func (o obj) EachMember(fn func(string, any)) {
	for _, m := range o {
		fn(m.k, m.v)
	}
}

// encode writes v in style s; in Python style "kind" comes first, as Python's
// json.dumps of the 2025 agent-server wrote it.
func encode(v any, s Style) []byte {
	w := jsonw.Writer{Style: s}
	if s == Python {
		w.First = "kind"
	}
	return w.Append(nil, v)
}

// reindent returns an already encoded value for nesting one level deep: in
// Pretty style its lines are shifted by one indent.
func reindent(data []byte, s Style) json.RawMessage {
	if s != Pretty {
		return json.RawMessage(data)
	}
	return json.RawMessage(bytes.ReplaceAll(data, []byte("\n"), []byte("\n  ")))
}
