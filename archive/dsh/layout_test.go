package dsh

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProjectKey(t *testing.T) {
	long := "/" + strings.Repeat("a", 300)
	longCJK := "/" + strings.Repeat("客", 60) // 60 × "~5BA2" = 300 chars
	tests := []struct {
		name, cwd, want string
	}{
		{"posix", "/home/u/proj", "--home-u-proj--"},
		{"windows cjk", `G:\dsh客户端`, "--G-dsh~5BA2~6237~7AEF--"},
		{"separator runs fold", `C:\\Users//me:\x`, "--C-Users-me-x--"},
		{"literal dash kept beside separators", "/a-/b", "--a--b--"},
		{"leading literal dashes stripped", "--x", "--x--"},
		{"tilde escaped", "/home/u/~proj", "--home-u-~007Eproj--"},
		{"space escaped", "/my dir", "--my~0020dir--"},
		{"dots and underscores literal", "/srv/a.b_c", "--srv-a.b_c--"},
		{"emoji surrogate halves", "/x😀", "--x~D83D~DE00--"},
		{"astral cjk ext-b", "/𠀀", "--~D840~DC00--"},
		{"root only", "/", "--root--"},
		{"drive root", `C:\`, "--C---"},
		{"empty", "", "--root--"},
		{"truncate ascii", long, "--" + strings.Repeat("a", 251) + "--"},
		{"truncate mid escape", longCJK, "--" + strings.Repeat("~5BA2", 60)[:251] + "--"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ProjectKey(tt.cwd))
		})
	}
}

func TestProjectKeyLengthBound(t *testing.T) {
	key := ProjectKey("/" + strings.Repeat("😀", 200))
	assert.Len(t, key, 255)
	assert.True(t, strings.HasPrefix(key, "--~D83D~DE00"))
	assert.True(t, strings.HasSuffix(key, "--"))
}

func TestEncodeSegment(t *testing.T) {
	tests := []struct {
		name, id, want string
	}{
		{"uuid session", "session-2d7d25bf-c4f9-4dcd-911b-f75be0cc8885", "session-2d7d25bf-c4f9-4dcd-911b-f75be0cc8885"},
		{"dot", ".", "~002E"},
		{"dotdot", "..", "~002E~002E"},
		{"dots inside stay literal", "a..b", "a..b"},
		{"triple dot literal", "...", "..."},
		{"slash not folded", "a//b", "a~002F~002Fb"},
		{"backslash and colon", `a\:b`, "a~005C~003Ab"},
		{"tilde", "~", "~007E"},
		{"cjk", "会话", "~4F1A~8BDD"},
		{"emoji", "🚀", "~D83D~DE80"},
		{"nul", "a\x00b", "a~0000b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeSegment(tt.id)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEncodeSegmentEmpty(t *testing.T) {
	_, err := EncodeSegment("")
	require.Error(t, err)
}

func TestEncodeSegmentInjective(t *testing.T) {
	ids := []string{"a/b", "a~002Fb", "a-b", "a_b", ".", "~002E", "..", "x😀", "x~D83D~DE00"}
	seen := map[string]string{}
	for _, id := range ids {
		enc, err := EncodeSegment(id)
		require.NoError(t, err)
		prev, dup := seen[enc]
		assert.Falsef(t, dup, "%q and %q both encode to %q", prev, id, enc)
		seen[enc] = id
	}
}

func TestNoCwdDir(t *testing.T) {
	assert.Equal(t, "_no-cwd", NoCwdDir)
}
