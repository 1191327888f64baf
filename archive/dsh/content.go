package dsh

import (
	"encoding/json"
	"fmt"
	"strings"
)

// messageBlock is one block of a message's content with the fields views read:
// text and reasoning, and a tool result's nested content.
type messageBlock struct {
	Type       string         `json:"type"`
	Text       string         `json:"text"`
	ToolCallID string         `json:"toolCallId"`
	Content    []messageBlock `json:"content"`
	IsError    bool           `json:"isError"`
}

// blockText joins the text of the content blocks of one type.
func blockText(blocks []messageBlock, typ string) string {
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == typ && c.Text != "" {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// errorText renders an error value (a string or an object with a message) for people.
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var e struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		if e.Code != nil {
			return fmt.Sprintf("%s (%v)", e.Message, e.Code)
		}
		return e.Message
	}
	return string(raw)
}
