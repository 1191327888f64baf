package archive_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestModerncLibcMatchesSQLite guards the pin modernc.org/sqlite depends on: it is
// generated against one exact modernc.org/libc, and another (e.g. raised by an
// unrelated `go get`) can corrupt memory at run time. go.mod must keep libc at the
// version the pinned sqlite's own go.mod requires.
func TestModerncLibcMatchesSQLite(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	modFile, err := exec.Command("go", "list", "-m", "-f", "{{.GoMod}}", "modernc.org/sqlite").Output()
	require.NoError(t, err, "go list modernc.org/sqlite")
	data, err := os.ReadFile(strings.TrimSpace(string(modFile)))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*modernc\.org/libc\s+(v\S+)`).FindSubmatch(data)
	require.NotNil(t, m, "modernc.org/sqlite's go.mod names modernc.org/libc")
	used, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "modernc.org/libc").Output()
	require.NoError(t, err, "go list modernc.org/libc")
	require.Equal(t, string(m[1]), strings.TrimSpace(string(used)),
		"go.mod must pin modernc.org/libc to the version modernc.org/sqlite requires")
}
