package archive

import (
	"encoding/json"

	"github.com/logbook/logbook/archive/dsh"
)

// decodeEventData fills d from an event's data. The bulky, frequent types (messages,
// tool calls and results) are read with dsh's scanner, which walks the already
// validated line without reflection; that is several times faster than
// encoding/json here and import spends most of its parsing time on them. Rare types
// use encoding/json. It reports false when data does not have the expected shape.
func decodeEventData(typ string, data []byte, d *eventData) bool {
	switch typ {
	case "user/message":
		d.Message = new(message)
		return scanMessage(data, d.Message)
	case "assistant/message", "tool/result":
		ok := dsh.Members(data, func(k, v []byte) {
			switch string(k) {
			case "message":
				d.Message = new(message)
				if !scanMessage(v, d.Message) {
					d.Message = nil
				}
			case "usage":
				d.Usage = new(usage)
				_ = json.Unmarshal(v, d.Usage)
			case "interrupted":
				d.Interrupted = string(v) == "true"
			case "error":
				d.Error = json.RawMessage(v)
			}
		})
		return ok
	case "tool/call":
		return dsh.Members(data, func(k, v []byte) {
			switch string(k) {
			case "callId":
				d.CallID, _ = dsh.String(v)
			case "name":
				d.Name, _ = dsh.String(v)
			case "arguments":
				d.Arguments, _ = dsh.String(v)
			}
		})
	}
	return json.Unmarshal(data, d) == nil
}

// scanMessage reads a message object {id, role, content, source}.
func scanMessage(b []byte, m *message) bool {
	return dsh.Members(b, func(k, v []byte) {
		switch string(k) {
		case "id":
			m.ID, _ = dsh.String(v)
		case "role":
			m.Role, _ = dsh.String(v)
		case "content":
			m.Content = scanBlocks(v)
		case "source":
			dsh.Members(v, func(k, v []byte) {
				switch string(k) {
				case "kind":
					m.Source.Kind, _ = dsh.String(v)
				case "plugin":
					m.Source.Plugin, _ = dsh.String(v)
				case "provider":
					m.Source.Provider, _ = dsh.String(v)
				case "model":
					m.Source.Model, _ = dsh.String(v)
				case "callId":
					m.Source.CallID, _ = dsh.String(v)
				case "compactionId":
					m.Source.CompactionID, _ = dsh.String(v)
				}
			})
		}
	})
}

// scanBlocks reads an array of content blocks, keeping the fields views use.
func scanBlocks(b []byte) []contentBlock {
	var out []contentBlock
	dsh.Elements(b, func(e []byte) {
		var c contentBlock
		dsh.Members(e, func(k, v []byte) {
			switch string(k) {
			case "type":
				c.Type, _ = dsh.String(v)
			case "text":
				c.Text, _ = dsh.String(v)
			case "toolCallId":
				c.ToolCallID, _ = dsh.String(v)
			case "content":
				c.Content = scanBlocks(v)
			case "isError":
				c.IsError = string(v) == "true"
			}
		})
		out = append(out, c)
	})
	return out
}
