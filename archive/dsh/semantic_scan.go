package dsh

// This file reads the data of the bulkiest events (assistant/message, tool/result)
// without reflection: encoding/json spent most of the Checker's time on them, scanning
// kilobytes of text the Checker never looks at.

import (
	"bytes"
	"unicode/utf8"
)

// scanFields fills Go values from the members of a JSON object (valid JSON, as every
// decoded line is) the way encoding/json.Unmarshal fills a struct, for the shape dsh
// writes: each key exactly one of names, at most once, with a value set accepts. It
// reports false on anything else (a key matching a name only case-insensitively, a
// repeated key, a value of another type, a string that is not valid UTF-8, data that
// is not an object), where encoding/json has rules of its own: the caller then starts
// again with encoding/json. set is called with the index of the name and the raw value.
func scanFields(data []byte, names []string, set func(i int, v []byte) bool) bool {
	ok := true
	var seen uint64
	err := eachMember(data, func(k, v []byte) error {
		for i, name := range names {
			if string(k) == name {
				if seen&(1<<i) != 0 || !set(i, v) {
					ok = false
					return errStop
				}
				seen |= 1 << i
				return nil
			}
		}
		for _, name := range names {
			// encoding/json matches keys case-insensitively (as bytes.EqualFold does,
			// K and ſ included): leave any such key to it.
			if bytes.EqualFold(k, []byte(name)) {
				ok = false
				return errStop
			}
		}
		return nil
	})
	return ok && err == nil
}

// scanInt reads an int64 field: null leaves it, a plain integer sets it.
func scanInt(v []byte, dst *int64) bool {
	if string(v) == "null" {
		return true
	}
	neg := len(v) > 0 && v[0] == '-'
	digits := v
	if neg {
		digits = v[1:]
	}
	n, rest, ok := leadingUint(digits)
	if !ok || len(rest) != 0 {
		return false
	}
	if neg {
		n = -n
	}
	*dst = n
	return true
}

// scanString reads a string field: null leaves it, a string literal sets it.
func scanString(v []byte, dst *string) bool {
	if string(v) == "null" {
		return true
	}
	s, ok := jsonString(v)
	if !ok || !utf8.ValidString(s) {
		return false
	}
	*dst = s
	return true
}

// scanObjectField reads a pointer-to-struct field: null leaves it nil, an object is
// read by fill into a new value.
func scanObjectField[T any](v []byte, dst **T, fill func([]byte, *T) bool) bool {
	if string(v) == "null" {
		return true
	}
	if jsonKind(v) != "an object" {
		return false
	}
	*dst = new(T)
	return fill(v, *dst)
}

// contentBlockNames are the keys of contentBlock, as dsh writes them.
var contentBlockNames = []string{"type", "id", "name", "arguments", "toolCallId"}

// scanContent reads a []contentBlock field.
func scanContent(v []byte, dst *[]contentBlock) bool {
	if string(v) == "null" {
		return true
	}
	if jsonKind(v) != "an array" {
		return false
	}
	*dst = []contentBlock{} // as encoding/json leaves an empty array: empty, not nil
	ok := true
	_ = eachElement(v, func(e []byte) error {
		var b contentBlock
		if string(e) != "null" {
			ok = jsonKind(e) == "an object" && scanFields(e, contentBlockNames, func(i int, v []byte) bool {
				return scanString(v, [...]*string{&b.Type, &b.ID, &b.Name, &b.Arguments, &b.ToolCallID}[i])
			})
		}
		*dst = append(*dst, b)
		if !ok {
			return errStop
		}
		return nil
	})
	return ok
}

// messageContent is the message of an assistant/message as the Checker reads it.
type messageContent struct{ Content []contentBlock }

func scanMessageContent(v []byte, m *messageContent) bool {
	return scanFields(v, []string{"content"}, func(_ int, v []byte) bool { return scanContent(v, &m.Content) })
}

// assistantMessageData is the part of assistant/message data the Checker reads.
type assistantMessageData struct {
	Turn, Step int64
	Message    *messageContent
	Content    []contentBlock // legacy: content directly in data
}

var assistantMessageNames = []string{"turn", "step", "message", "content"}

// readAssistantMessage decodes assistant/message data; false means unusable data.
func readAssistantMessage(data []byte) (assistantMessageData, bool) {
	return readData(data, scanAssistantMessage)
}

// readData reads data with scan, the fast reading of a common shape, and with
// encoding/json when scan gives up (a shape it does not know, or bad data,
// which decode then reports).
func readData[T any](data []byte, scan func([]byte, *T) bool) (T, bool) {
	var d T
	if scan(data, &d) {
		return d, true
	}
	var fresh T // nothing a scan that gave up half way filled in
	return fresh, decode(data, &fresh)
}

// scanAssistantMessage is the scanFields reading of assistant/message data.
func scanAssistantMessage(data []byte, d *assistantMessageData) bool {
	return jsonKind(data) == "an object" && scanFields(data, assistantMessageNames, func(i int, v []byte) bool {
		switch i {
		case 0:
			return scanInt(v, &d.Turn)
		case 1:
			return scanInt(v, &d.Step)
		case 2:
			return scanObjectField(v, &d.Message, scanMessageContent)
		default:
			return scanContent(v, &d.Content)
		}
	})
}

// toolResultMessage is the message of a tool/result as the Checker reads it.
type toolResultMessage struct {
	Content []contentBlock
	Source  struct {
		CallID string `json:"callId"`
	}
}

func scanToolResultMessage(v []byte, m *toolResultMessage) bool {
	return scanFields(v, []string{"content", "source"}, func(i int, v []byte) bool {
		if i == 0 {
			return scanContent(v, &m.Content)
		}
		if string(v) == "null" {
			return true
		}
		return jsonKind(v) == "an object" && scanFields(v, []string{"callId"}, func(_ int, v []byte) bool {
			return scanString(v, &m.Source.CallID)
		})
	})
}

// toolError is the error of a tool/result as the Checker reads it.
type toolError struct{ Name, Code string }

func scanToolError(v []byte, e *toolError) bool {
	return scanFields(v, []string{"name", "code"}, func(i int, v []byte) bool {
		return scanString(v, [...]*string{&e.Name, &e.Code}[i])
	})
}

// toolResultData is the part of tool/result data the Checker reads.
type toolResultData struct {
	Turn, Step int64
	Message    *toolResultMessage
	CallID     string `json:"callId"` // legacy: callId directly in data
	Error      *toolError
}

var toolResultNames = []string{"turn", "step", "message", "callId", "error"}

// readToolResult decodes tool/result data; false means unusable data.
func readToolResult(data []byte) (toolResultData, bool) {
	return readData(data, scanToolResult)
}

// scanToolResult is the scanFields reading of tool/result data.
func scanToolResult(data []byte, d *toolResultData) bool {
	return jsonKind(data) == "an object" && scanFields(data, toolResultNames, func(i int, v []byte) bool {
		switch i {
		case 0:
			return scanInt(v, &d.Turn)
		case 1:
			return scanInt(v, &d.Step)
		case 2:
			return scanObjectField(v, &d.Message, scanToolResultMessage)
		case 3:
			return scanString(v, &d.CallID)
		default:
			return scanObjectField(v, &d.Error, scanToolError)
		}
	})
}
