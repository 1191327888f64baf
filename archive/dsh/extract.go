package dsh

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/logbook/logbook/archive/format"
)

// KindUndecodableEvent is the warning for an event whose data the projection could
// not read in full: the event is archived byte for byte and exported as written, but a
// view may miss what the unreadable part held. The import report names the event
// type, line and seq, and the field that had an unexpected shape.
const KindUndecodableEvent = format.KindUndecodableEvent

// decoder collects the first shape problem met while reading an event's data, so the
// projection can read what it can and say what it could not.
type decoder struct{ problem string }

// at is where a member sits: base, then [index] when index >= 0, then name
// (data.message.content[2].text). It is spelled out only when a problem is met,
// so reading a good event, as every import does for every message, builds no path.
type at struct {
	base, list string // the path up to the array (or member): base + list
	index      int
	name       string
}

// field is the member name of base.
func field(base, name string) at { return at{base: base, index: -1, name: name} }

// with is a at the member name.
func (a at) with(name string) at { a.name = name; return a }

func (a at) String() string {
	if a.index < 0 {
		return a.base + a.list + a.name
	}
	return fmt.Sprintf("%s%s[%d]%s", a.base, a.list, a.index, a.name)
}

// fail records a problem at a (the first one wins).
func (dc *decoder) fail(a at, format string, args ...any) {
	if dc.problem == "" {
		dc.problem = a.String() + ": " + fmt.Sprintf(format, args...)
	}
}

// str reads a JSON string member; anything else but null is a problem at a.
func (dc *decoder) str(v []byte, a at) string {
	s, ok := String(v)
	if !ok && string(v) != "null" {
		dc.fail(a, "expected a string, got %s", jsonKind(v))
	}
	return s
}

// boolean reads a JSON boolean member; anything else but null is a problem at a.
func (dc *decoder) boolean(v []byte, a at) bool {
	switch string(v) {
	case "true":
		return true
	case "false", "null":
		return false
	}
	dc.fail(a, "expected true or false, got %s", jsonKind(v))
	return false
}

// object walks a JSON object's members; anything else is a problem at a.
func (dc *decoder) object(v []byte, a at, fn func(k, v []byte)) bool {
	if !Members(v, fn) {
		dc.fail(a, "expected an object, got %s", jsonKind(v))
		return false
	}
	return true
}

// decodeEventData fills d from an event's data and returns the first shape problem
// met, or "". The bulky, frequent types (messages, tool calls and results) are read
// with dsh's scanner, which walks the already validated line without reflection;
// that is several times faster than encoding/json here and import spends most of its
// parsing time on them. Rare types use encoding/json, one struct per type, so that a
// member one type spells differently from another (`source` is an object on a title
// and a string on an approval policy) is never read with the wrong shape. ok is false
// when nothing could be read (the data is not an object): the event is then not
// projected at all.
func decodeEventData(typ string, data []byte, d *eventData) (ok bool, problem string) {
	var dc decoder
	switch typ {
	case "user/message":
		d.Message = new(message)
		ok = dc.message(data, "data", d.Message)
	case "assistant/message", "tool/result":
		ok = dc.object(data, field("data", ""), func(k, v []byte) {
			switch string(k) {
			case "message":
				d.Message = new(message)
				if !dc.message(v, "data.message", d.Message) {
					d.Message = nil
				}
			case "usage":
				d.Usage = new(usage)
				if err := json.Unmarshal(v, d.Usage); err != nil {
					dc.fail(field("data", ".usage"), "%s", unmarshalProblem(err))
				}
			case "interrupted":
				d.Interrupted = dc.boolean(v, field("data", ".interrupted"))
			case "error":
				d.Error = json.RawMessage(v)
			}
		})
		if ok && d.Message == nil && dc.problem == "" {
			dc.fail(field("data", ".message"), "missing")
		}
	case "tool/call":
		ok = dc.object(data, field("data", ""), func(k, v []byte) {
			switch string(k) {
			case "callId":
				d.CallID = dc.str(v, field("data", ".callId"))
			case "name":
				d.Name = dc.str(v, field("data", ".name"))
			case "arguments":
				d.Arguments = dc.str(v, field("data", ".arguments"))
			}
		})
	case "session/title":
		var t struct {
			Title  string       `json:"title"`
			Source *titleSource `json:"source"`
		}
		ok, problem = unmarshalData(data, &t)
		d.Title, d.TitleSource = t.Title, t.Source
		return ok, problem
	default:
		return unmarshalData(data, d)
	}
	return ok, dc.problem
}

// unmarshalData decodes data with encoding/json. A member of the wrong type is a
// problem, not a failure: encoding/json fills every other field and names the one
// it skipped.
func unmarshalData(data []byte, v any) (ok bool, problem string) {
	err := json.Unmarshal(data, v)
	if err == nil {
		return true, ""
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return true, unmarshalProblem(err)
	}
	return false, "data: " + unmarshalProblem(err)
}

// unmarshalProblem words an encoding/json error as "data.field: expected …".
func unmarshalProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		what := te.Value
		if what == "" {
			what = "a value"
		} else {
			what = "a " + what
		}
		if te.Field == "" {
			return fmt.Sprintf("expected %s, got %s", te.Type, what)
		}
		return fmt.Sprintf("data.%s: expected %s, got %s", te.Field, te.Type, what)
	}
	return err.Error()
}

// message reads a message object {id, role, content, source} at path.
func (dc *decoder) message(b []byte, path string, m *message) bool {
	return dc.object(b, field(path, ""), func(k, v []byte) {
		switch string(k) {
		case "id":
			m.ID = dc.str(v, field(path, ".id"))
		case "role":
			m.Role = dc.str(v, field(path, ".role"))
		case "content":
			m.Content = dc.blocks(v, field(path, ".content"))
		case "source":
			dc.object(v, field(path, ".source"), func(k, v []byte) {
				switch string(k) {
				case "kind":
					m.Source.Kind = dc.str(v, field(path, ".source.kind"))
				case "plugin":
					m.Source.Plugin = dc.str(v, field(path, ".source.plugin"))
				case "provider":
					m.Source.Provider = dc.str(v, field(path, ".source.provider"))
				case "model":
					m.Source.Model = dc.str(v, field(path, ".source.model"))
				case "callId":
					m.Source.CallID = dc.str(v, field(path, ".source.callId"))
				case "compactionId":
					m.Source.CompactionID = dc.str(v, field(path, ".source.compactionId"))
				}
			})
		}
	})
}

// blocks reads an array of content blocks, keeping the fields views use. Only the
// block types the projection reads (text, reasoning, tool-result) are held to their
// shapes: other kinds (an image, a tool-call, kinds added later) are owner-opaque.
func (dc *decoder) blocks(b []byte, list at) []messageBlock {
	var out []messageBlock
	// An element's place is the list's and its index. A list inside an element (a
	// tool result's content) spells out the outer path once; the common, single
	// level builds none.
	elemOf := at{base: list.base, list: list.name}
	if list.index >= 0 {
		elemOf = at{base: list.String()}
	}
	if !Elements(b, func(e []byte) {
		elemOf.index = len(out)
		elem := elemOf.with
		var typ string
		var text, callID, content, isError []byte
		dc.object(e, elem(""), func(k, v []byte) {
			switch string(k) {
			case "type":
				typ = dc.str(v, elem(".type"))
			case "text":
				text = v
			case "toolCallId":
				callID = v
			case "content":
				content = v
			case "isError":
				isError = v
			}
		})
		c := messageBlock{Type: typ}
		switch typ {
		case "text", "reasoning":
			if text != nil {
				c.Text = dc.str(text, elem(".text"))
			}
		case "tool-result":
			if callID != nil {
				c.ToolCallID = dc.str(callID, elem(".toolCallId"))
			}
			if content != nil {
				c.Content = dc.blocks(content, elem(".content"))
			}
			if isError != nil {
				c.IsError = dc.boolean(isError, elem(".isError"))
			}
		}
		out = append(out, c)
	}) && string(b) != "null" {
		dc.fail(list, "expected an array, got %s", jsonKind(b))
	}
	return out
}
