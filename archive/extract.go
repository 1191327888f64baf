package archive

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/logbook/logbook/archive/dsh"
)

// KindUndecodableEvent is the warning for an event whose data the projection could
// not read in full: the event is archived byte for byte and exported as written, but a
// view may miss what the unreadable part held. The import report names the event
// type, line and seq, and the field that had an unexpected shape.
const KindUndecodableEvent dsh.Kind = "undecodable-event"

// decoder collects the first shape problem met while reading an event's data, so the
// projection can read what it can and say what it could not.
type decoder struct{ problem string }

// fail records a problem at path (the first one wins).
func (dc *decoder) fail(path, format string, args ...any) {
	if dc.problem == "" {
		dc.problem = path + ": " + fmt.Sprintf(format, args...)
	}
}

// str reads a JSON string member; anything else but null is a problem at path.
func (dc *decoder) str(v []byte, path string) string {
	s, ok := dsh.String(v)
	if !ok && string(v) != "null" {
		dc.fail(path, "expected a string, got %s", jsonKind(v))
	}
	return s
}

// boolean reads a JSON boolean member; anything else but null is a problem at path.
func (dc *decoder) boolean(v []byte, path string) bool {
	switch string(v) {
	case "true":
		return true
	case "false", "null":
		return false
	}
	dc.fail(path, "expected true or false, got %s", jsonKind(v))
	return false
}

// object walks a JSON object's members; anything else is a problem at path.
func (dc *decoder) object(v []byte, path string, fn func(k, v []byte)) bool {
	if !dsh.Members(v, fn) {
		dc.fail(path, "expected an object, got %s", jsonKind(v))
		return false
	}
	return true
}

// jsonKind names the kind of a JSON value for a problem message.
func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
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
		ok = dc.object(data, "data", func(k, v []byte) {
			switch string(k) {
			case "message":
				d.Message = new(message)
				if !dc.message(v, "data.message", d.Message) {
					d.Message = nil
				}
			case "usage":
				d.Usage = new(usage)
				if err := json.Unmarshal(v, d.Usage); err != nil {
					dc.fail("data.usage", "%s", unmarshalProblem(err))
				}
			case "interrupted":
				d.Interrupted = dc.boolean(v, "data.interrupted")
			case "error":
				d.Error = json.RawMessage(v)
			}
		})
		if ok && d.Message == nil && dc.problem == "" {
			dc.fail("data.message", "missing")
		}
	case "tool/call":
		ok = dc.object(data, "data", func(k, v []byte) {
			switch string(k) {
			case "callId":
				d.CallID = dc.str(v, "data.callId")
			case "name":
				d.Name = dc.str(v, "data.name")
			case "arguments":
				d.Arguments = dc.str(v, "data.arguments")
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

// message reads a message object {id, role, content, source}.
func (dc *decoder) message(b []byte, path string, m *message) bool {
	return dc.object(b, path, func(k, v []byte) {
		switch string(k) {
		case "id":
			m.ID = dc.str(v, path+".id")
		case "role":
			m.Role = dc.str(v, path+".role")
		case "content":
			m.Content = dc.blocks(v, path+".content")
		case "source":
			src := path + ".source"
			dc.object(v, src, func(k, v []byte) {
				switch string(k) {
				case "kind":
					m.Source.Kind = dc.str(v, src+".kind")
				case "plugin":
					m.Source.Plugin = dc.str(v, src+".plugin")
				case "provider":
					m.Source.Provider = dc.str(v, src+".provider")
				case "model":
					m.Source.Model = dc.str(v, src+".model")
				case "callId":
					m.Source.CallID = dc.str(v, src+".callId")
				case "compactionId":
					m.Source.CompactionID = dc.str(v, src+".compactionId")
				}
			})
		}
	})
}

// blocks reads an array of content blocks, keeping the fields views use. Only the
// block types the projection reads (text, reasoning, tool-result) are held to their
// shapes: other kinds (an image, a tool-call, kinds added later) are owner-opaque.
func (dc *decoder) blocks(b []byte, path string) []contentBlock {
	var out []contentBlock
	if !dsh.Elements(b, func(e []byte) {
		at := fmt.Sprintf("%s[%d]", path, len(out))
		var typ string
		var text, callID, content, isError []byte
		dc.object(e, at, func(k, v []byte) {
			switch string(k) {
			case "type":
				typ = dc.str(v, at+".type")
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
		c := contentBlock{Type: typ}
		switch typ {
		case "text", "reasoning":
			if text != nil {
				c.Text = dc.str(text, at+".text")
			}
		case "tool-result":
			if callID != nil {
				c.ToolCallID = dc.str(callID, at+".toolCallId")
			}
			if content != nil {
				c.Content = dc.blocks(content, at+".content")
			}
			if isError != nil {
				c.IsError = dc.boolean(isError, at+".isError")
			}
		}
		out = append(out, c)
	}) && string(b) != "null" {
		dc.fail(path, "expected an array, got %s", jsonKind(b))
	}
	return out
}
