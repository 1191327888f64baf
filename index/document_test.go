package index

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/logbook/logbook/archive"
)

func TestToolCallText(t *testing.T) {
	for _, tc := range []struct{ name, tool, in, want string }{
		{"strings unquoted, in order", "bash", `bash {"command":"git status\nls","cwd":"C:\\src"}`, "bash\ncommand: git status\nls\ncwd: C:\\src"},
		{"other values compact", "read", `read {"file_path": "a.go", "limit": 20, "opts": {"a": [1, 2]}}`, "read\nfile_path: a.go\nlimit: 20\nopts: {\"a\":[1,2]}"},
		{"not JSON kept", "bash", "bash ls -la", "bash ls -la"},
		{"broken JSON kept", "bash", `bash {"command": "ls`, `bash {"command": "ls`},
		{"another tool's text kept", "bash", `grep {"pattern":"x"}`, `grep {"pattern":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, toolCallText(tc.tool, tc.in))
		})
	}
}

func TestCapText(t *testing.T) {
	short := strings.Repeat("写", 100)
	assert.Equal(t, short, capText(short))

	long := "HEAD" + strings.Repeat("写入", maxTextBytes/3) + "TAIL"
	got := capText(long)
	assert.LessOrEqual(t, len(got), maxTextBytes)
	assert.True(t, utf8.ValidString(got))
	assert.True(t, strings.HasPrefix(got, "HEAD"))
	assert.True(t, strings.HasSuffix(got, "TAIL"), "the tail is kept, where errors are")
	assert.Contains(t, got, elision)
}

func TestNewBlockDoc(t *testing.T) {
	d := newBlockDoc(archive.Block{Kind: archive.BlockToolResult, Tool: "Bash", Agent: "dsh", Surface: "current", Text: "x"})
	assert.Equal(t, "bash", d.Tool, "keyword values are lowercase")
	assert.Nil(t, d.Time, "no time rather than year 1")
	assert.Nil(t, d.Month)

	d = newBlockDoc(archive.Block{Time: time.UnixMilli(1786901809409)})
	assert.Equal(t, "1786901809409", *d.Time)
	assert.Equal(t, "2026-08", *d.Month)
}
