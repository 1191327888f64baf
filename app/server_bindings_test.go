package app

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerServesTheGeneratedBindings: the HTTP API serves exactly the methods the
// committed bindings declare (frontend/wailsjs/go/app/App.d.ts). The browser UI calls
// the generated functions, which send their own names to POST /api/<Method>, so a
// bound method renamed, added or removed without `make bindings` fails here, in a
// plain `go test`, before `make bindings-check` (which reruns the generator) or the
// UI's typecheck would.
func TestServerServesTheGeneratedBindings(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "frontend", "wailsjs", "go", "app", "App.d.ts"))
	require.NoError(t, err)
	var declared []string
	for _, m := range regexp.MustCompile(`(?m)^export function (\w+)\(`).FindAllStringSubmatch(string(b), -1) {
		declared = append(declared, m[1])
	}
	require.NotEmpty(t, declared, "no functions found in App.d.ts")
	slices.Sort(declared)

	s := NewServer(&App{}, nil, ServerOptions{Addr: "127.0.0.1:1", Assets: fstest.MapFS{}})
	assert.Equal(t, declared, slices.Sorted(maps.Keys(s.methods)),
		"the methods of app.App differ from frontend/wailsjs: run make bindings and commit it")
}
