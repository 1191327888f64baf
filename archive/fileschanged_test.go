package archive_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

func argsJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestFileEditsDsh: a dsh session's write, edits (one failed) and a read come back
// as the writes and replacements they are, in order, with the failed one marked.
func TestFileEditsDsh(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	g := dshgen.New(dshgen.Options{Seed: 1, ID: "session-edits", Cwd: "/home/u/p", Families: dshgen.FamilyTools})
	g.Turn(func(tb *dshgen.Turn) {
		tb.User("fix the greeting")
		tb.Step(func(st *dshgen.Step) {
			calls := st.Reply(dshgen.Text("Writing it."),
				dshgen.ToolCall("write", argsJSON(t, map[string]any{"file_path": "/p/a.go", "content": "package a\n\nvar x = 1\n"})),
				dshgen.ToolCall("read", argsJSON(t, map[string]any{"file_path": "/p/a.go"})),
				dshgen.ToolCall("edit", argsJSON(t, map[string]any{"file_path": "/p/a.go", "old_string": "x = 1", "new_string": "x = 2"})),
				dshgen.ToolCall("edit", argsJSON(t, map[string]any{"file_path": "/p/b.go", "old_string": "nope", "new_string": "yes", "replace_all": true})))
			require.Len(t, calls, 4)
			st.RunTool(calls[0], dshgen.Result{Text: "wrote"})
			st.RunTool(calls[1], dshgen.Result{Text: "package a"})
			st.RunTool(calls[2], dshgen.Result{Text: "ok"})
			st.RunTool(calls[3], dshgen.Result{Text: "old_string not found", IsError: true})
		})
	})
	path, err := g.Log().WriteFile(t.TempDir(), false)
	require.NoError(t, err)
	_, err = s.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)

	got, err := s.FileEdits(ctx, "session-edits")
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, "write", got[0].Op)
	assert.Equal(t, "/p/a.go", got[0].Path)
	assert.Equal(t, "package a\n\nvar x = 1\n", got[0].New)
	assert.Equal(t, "replace", got[1].Op)
	assert.Equal(t, "x = 1", got[1].Old)
	assert.Equal(t, "x = 2", got[1].New)
	assert.False(t, got[1].Failed)
	assert.Equal(t, "/p/b.go", got[2].Path)
	assert.True(t, got[2].Failed)
	assert.True(t, got[2].ReplaceAll)
	assert.Less(t, got[0].Seq, got[1].Seq)
	require.NotNil(t, got[0].Turn)
	assert.Equal(t, int64(1), *got[0].Turn)

	// The sessions list's gist counts one file (the edit of b.go failed) and one error.
	gists, err := s.SessionGists(ctx)
	require.NoError(t, err)
	assert.Equal(t, archive.SessionGist{ID: "session-edits", LastPrompt: "fix the greeting", FilesChanged: 1, ToolErrors: 1},
		gists["session-edits"])

	_, err = s.FileEdits(ctx, "no-such-session")
	assert.ErrorIs(t, err, archive.ErrNotFound)
}

// TestFileEditsOpenHandsCorpus: the real OpenHands benchmark conversation's
// str_replace_editor creates and replacements are all found, counted
// independently from its event files.
func TestFileEditsOpenHandsCorpus(t *testing.T) {
	ctx := context.Background()
	dir := archivetest.Corpus(t, "openhands/benchmarks/workspace/conversations/3749ed60c63e4def840a46f15f4ee18c")
	names, err := filepath.Glob(filepath.Join(dir, "event_service", "events", "*.json"))
	require.NoError(t, err)
	want := map[string]int{}
	for _, n := range names {
		data, err := os.ReadFile(n)
		require.NoError(t, err)
		var ev struct {
			Kind   string `json:"kind"`
			Action struct {
				Command string `json:"command"`
			} `json:"action"`
		}
		require.NoError(t, json.Unmarshal(data, &ev))
		if ev.Kind == "ActionEvent" && (ev.Action.Command == "create" || ev.Action.Command == "str_replace" || ev.Action.Command == "insert") {
			want[ev.Action.Command]++
		}
	}
	require.NotZero(t, want["str_replace"]+want["create"], "the conversation has edits")

	s := archivetest.MustOpen(t)
	rep, err := s.Import(ctx, []string{dir}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Files, 1)
	got, err := s.FileEdits(ctx, rep.Files[0].SessionID)
	require.NoError(t, err)
	ops := map[string]int{}
	for _, e := range got {
		ops[e.Op]++
		assert.True(t, strings.HasPrefix(e.Path, "/"), e.Path)
		assert.Contains(t, []string{"str_replace_editor", "file_editor"}, e.Tool)
	}
	assert.Equal(t, want["create"], ops["write"])
	assert.Equal(t, want["str_replace"], ops["replace"])
	assert.Equal(t, want["insert"], ops["insert"])
}

// TestParseFileEdits covers each argument shape.
func TestParseFileEdits(t *testing.T) {
	line := int64(3)
	for _, tc := range []struct {
		name, raw string
		want      []archive.FileEdit
	}{
		{"DshWrite", `{"file_path":"/a","content":"x\n"}`, []archive.FileEdit{{Path: "/a", Op: "write", New: "x\n"}}},
		{"DshEdit", `{"file_path":"/a","old_string":"x","new_string":"y"}`, []archive.FileEdit{{Path: "/a", Op: "replace", Old: "x", New: "y"}}},
		{"OHCreate", `{"command":"create","path":"/a","file_text":"hi"}`, []archive.FileEdit{{Path: "/a", Op: "write", New: "hi"}}},
		{"OHReplace", `{"command":"str_replace","path":"/a","old_str":"x","new_str":"y"}`, []archive.FileEdit{{Path: "/a", Op: "replace", Old: "x", New: "y"}}},
		{"OHInsert", `{"command":"insert","path":"/a","insert_line":3,"new_str":"z"}`, []archive.FileEdit{{Path: "/a", Op: "insert", New: "z", InsertLine: &line}}},
		{"OHNested", `{"action":{"command":"str_replace","path":"/a","old_str":"x","new_str":""}}`, []archive.FileEdit{{Path: "/a", Op: "replace", Old: "x"}}},
		{"MultiEdit", `{"file_path":"/a","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`,
			[]archive.FileEdit{{Path: "/a", Op: "replace", Old: "a", New: "b"}, {Path: "/a", Op: "replace", Old: "c", New: "d"}}},
		{"OHUndo", `{"command":"undo_edit","path":"/a"}`, []archive.FileEdit{{Path: "/a", Op: "undo"}}},
		{"ApplyPatch", `{"input":"*** Begin Patch\n*** Add File: new.txt\n+one\n+two\n*** Update File: src/a.go\n@@ func F() {\n \treturn 1\n-}\n+}\n+\n+func G() {}\n@@\n-x := 1\n+x := 2\n*** Delete File: old.txt\n*** End Patch\n"}`,
			[]archive.FileEdit{
				{Path: "new.txt", Op: "write", New: "one\ntwo\n"},
				{Path: "src/a.go", Op: "replace", Old: "\treturn 1\n}", New: "\treturn 1\n}\n\nfunc G() {}"},
				{Path: "src/a.go", Op: "replace", Old: "x := 1", New: "x := 2"},
				{Path: "old.txt", Op: "delete"},
			}},
		{"ApplyPatchNamedPatch", `{"patch":"*** Begin Patch\n*** Update File: b\n-a\n+b\n*** End Patch"}`, []archive.FileEdit{{Path: "b", Op: "replace", Old: "a", New: "b"}}},
		{"OHView", `{"command":"view","path":"/a"}`, nil},
		{"InsertWithoutLine", `{"command":"insert","path":"/a","new_str":"z"}`, nil},
		{"NoPath", `{"content":"x"}`, nil},
		{"NotJSON", `{"file_path":`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, archive.ParseFileEdits(archive.FileEdit{}, tc.raw))
		})
	}
}
