package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// FileEdit is one change an agent's tool call made (or tried to make) to a file:
// a whole-file write, a string replacement or a line insertion. The Files-changed
// panel groups them by path and reconstructs what it can.
type FileEdit struct {
	// Seq is the seq of the tool/call event, where the panel jumps to.
	Seq    int64  `json:"seq"`
	Turn   *int64 `json:"turn"`
	CallID string `json:"call_id"`
	// Tool is the tool's name as logged (edit, write, str_replace_editor, …).
	Tool string `json:"tool"`
	Path string `json:"path"`
	// Op is write (New is the whole content), replace (Old → New) or insert
	// (New after line InsertLine).
	Op         string `json:"op"`
	Old        string `json:"old,omitempty"`
	New        string `json:"new"`
	InsertLine *int64 `json:"insert_line,omitempty"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
	// Failed is set when the tool reported an error: the file was not changed.
	Failed bool `json:"failed"`
	// Pending is set when no result was logged for the call.
	Pending bool `json:"pending"`
}

// editToolNames are the tools whose calls may change a file: dsh's edit and write
// (and the usual aliases other agents use), OpenHands' str_replace_editor and
// file_editor (create, str_replace and insert commands).
var editToolNames = []string{"edit", "write", "multi_edit", "multiedit", "write_file", "create_file", "edit_file",
	"str_replace", "str_replace_editor", "file_editor", "create"}

// editArgs are the argument fields of the tools in editToolNames.
type editArgs struct {
	FilePath   string          `json:"file_path"`
	Path       string          `json:"path"`
	Command    string          `json:"command"`
	Content    *string         `json:"content"`
	FileText   *string         `json:"file_text"`
	OldString  *string         `json:"old_string"`
	NewString  *string         `json:"new_string"`
	OldStr     *string         `json:"old_str"`
	NewStr     *string         `json:"new_str"`
	InsertLine *int64          `json:"insert_line"`
	ReplaceAll bool            `json:"replace_all"`
	Edits      []editArgs      `json:"edits"`
	Action     json.RawMessage `json:"action"`
}

// FileEdits returns the file changes a session's tool calls made, in seq order.
// Calls whose arguments do not read as a file change (a view, a malformed
// argument string) are left out; the conversation still shows them.
func (s *Store) FileEdits(ctx context.Context, sessionID string) ([]FileEdit, error) {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	in, args := inArgs(pk, editToolNames)
	rows, err := s.read.QueryContext(ctx, `
		SELECT call_id, name, arguments, turn, call_seq, result_seq IS NULL, is_error
		FROM tool_calls
		WHERE session_pk = ? AND name IN (`+in+`)
		ORDER BY call_seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("file edits %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := []FileEdit{}
	for rows.Next() {
		var e FileEdit
		var raw string
		var turn sql.NullInt64
		if err := rows.Scan(&e.CallID, &e.Tool, &raw, &turn, &e.Seq, &e.Pending, &e.Failed); err != nil {
			return nil, fmt.Errorf("file edits %s: %w", sessionID, err)
		}
		e.Turn = intPtr(turn)
		out = append(out, ParseFileEdits(e, raw)...)
	}
	return out, rows.Err()
}

// ParseFileEdits reads one edit tool call's raw arguments into the changes it
// makes, each a copy of base with Path, Op and the texts filled in. It returns
// nothing for arguments that change no file (a view command, bad JSON).
func ParseFileEdits(base FileEdit, raw string) []FileEdit {
	var a editArgs
	if json.Unmarshal([]byte(raw), &a) != nil {
		return nil
	}
	// Some OpenHands logs nest the editor's fields under "action".
	if a.Command == "" && len(a.Action) > 0 {
		var inner editArgs
		if json.Unmarshal(a.Action, &inner) == nil && inner.Command != "" {
			a = inner
		}
	}
	path := a.FilePath
	if path == "" {
		path = a.Path
	}
	if path == "" {
		return nil
	}
	base.Path = path
	if len(a.Edits) > 0 {
		var out []FileEdit
		for _, sub := range a.Edits {
			if sub.OldString == nil && sub.OldStr == nil {
				continue
			}
			e := base
			e.Op, e.Old, e.New, e.ReplaceAll = "replace", deref(sub.OldString, sub.OldStr), deref(sub.NewString, sub.NewStr), sub.ReplaceAll
			out = append(out, e)
		}
		return out
	}
	switch cmd := strings.ToLower(a.Command); {
	case cmd == "create" || a.Content != nil || a.FileText != nil:
		if cmd != "" && cmd != "create" {
			return nil
		}
		base.Op, base.New = "write", deref(a.FileText, a.Content)
	case cmd == "insert":
		if a.InsertLine == nil {
			return nil
		}
		base.Op, base.New, base.InsertLine = "insert", deref(a.NewStr, a.NewString), a.InsertLine
	case a.OldString != nil || a.OldStr != nil:
		if cmd != "" && cmd != "str_replace" {
			return nil
		}
		base.Op, base.Old, base.New, base.ReplaceAll = "replace", deref(a.OldString, a.OldStr), deref(a.NewString, a.NewStr), a.ReplaceAll
	default:
		return nil
	}
	return []FileEdit{base}
}

// deref is the first non-nil string, or "".
func deref(ps ...*string) string {
	for _, p := range ps {
		if p != nil {
			return *p
		}
	}
	return ""
}
