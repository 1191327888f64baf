package archive

import (
	"cmp"
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
	// Op is write (New is the whole content), replace (Old → New), insert
	// (New after line InsertLine), undo (the file's last edit reverted: OpenHands'
	// undo_edit) or delete (an apply_patch Delete File).
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
// file_editor (create, str_replace, insert and undo_edit commands), and Codex-style
// apply_patch (a patch of Add, Update and Delete File sections).
var editToolNames = []string{"edit", "write", "multi_edit", "multiedit", "write_file", "create_file", "edit_file",
	"str_replace", "str_replace_editor", "file_editor", "create", "apply_patch"}

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
	Input      string          `json:"input"` // apply_patch's patch
	Patch      string          `json:"patch"`
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
	if p := cmp.Or(a.Input, a.Patch); strings.Contains(p, "*** Begin Patch") {
		return parsePatch(base, p)
	}
	path := cmp.Or(a.FilePath, a.Path)
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
	case cmd == "undo_edit":
		base.Op = "undo"
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

// parsePatch reads an apply_patch patch (*** Begin Patch … *** End Patch) into its
// changes: an Add File section is a write of its + lines, a Delete File a delete, and
// each @@ hunk of an Update File a replace of its context and - lines by its context
// and + lines. A Move to line is not followed: the hunks apply to the file named.
func parsePatch(base FileEdit, patch string) []FileEdit {
	var out []FileEdit
	var cur *FileEdit // the write or hunk being read
	var old, new []string
	flush := func() {
		if cur == nil {
			return
		}
		switch cur.Op {
		case "write":
			cur.New = strings.Join(new, "\n")
			if len(new) > 0 {
				cur.New += "\n"
			}
			out = append(out, *cur)
		case "replace":
			if len(old) > 0 || len(new) > 0 {
				cur.Old, cur.New = strings.Join(old, "\n"), strings.Join(new, "\n")
				out = append(out, *cur)
			}
		}
		old, new = nil, nil
	}
	var path string
	for line := range strings.SplitSeq(strings.ReplaceAll(patch, "\r\n", "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			flush()
			e := base
			e.Path, e.Op = strings.TrimSpace(strings.TrimPrefix(line, "*** Add File: ")), "write"
			cur = &e
		case strings.HasPrefix(line, "*** Delete File: "):
			flush()
			cur = nil
			e := base
			e.Path, e.Op = strings.TrimSpace(strings.TrimPrefix(line, "*** Delete File: ")), "delete"
			out = append(out, e)
		case strings.HasPrefix(line, "*** Update File: "):
			flush()
			path = strings.TrimSpace(strings.TrimPrefix(line, "*** Update File: "))
			e := base
			e.Path, e.Op = path, "replace"
			cur = &e
		case strings.HasPrefix(line, "@@"):
			// A new hunk of the same file.
			if cur != nil && cur.Op == "replace" {
				flush()
				e := base
				e.Path, e.Op = path, "replace"
				cur = &e
			}
		case strings.HasPrefix(line, "*** End Patch"):
			flush()
			cur = nil
		case strings.HasPrefix(line, "***"):
			// *** Begin Patch, *** End of File, *** Move to.
		case cur == nil:
		case cur.Op == "write":
			if strings.HasPrefix(line, "+") {
				new = append(new, line[1:])
			}
		case strings.HasPrefix(line, "-"):
			old = append(old, line[1:])
		case strings.HasPrefix(line, "+"):
			new = append(new, line[1:])
		case strings.HasPrefix(line, " "):
			old, new = append(old, line[1:]), append(new, line[1:])
		case line == "":
			// A blank context line whose leading space was trimmed.
			old, new = append(old, ""), append(new, "")
		}
	}
	flush()
	return out
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
