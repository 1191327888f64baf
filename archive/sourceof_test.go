package archive_test

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// SourceOf maps every file of a generated conversation, in each layout, to the
// source an import's walk finds for it: the conversation folder for the folder
// layouts (never its events/ folder), the file itself for the single-file ones;
// dot files (the SDK's .eventlog.lock) belong to none.
func TestSourceOf(t *testing.T) {
	for i, l := range []openhands.Layout{openhands.LayoutSDK, openhands.LayoutV0Session, openhands.LayoutAppA,
		openhands.LayoutAppB, openhands.LayoutJSONL, openhands.LayoutZip, openhands.LayoutV0Trajectory} {
		t.Run(string(l), func(t *testing.T) {
			root := t.TempDir()
			f, err := openhandsgen.Generate(root, openhandsgen.Options{Seed: uint64(40 + i), Layout: l})
			require.NoError(t, err)
			files := f.Files
			if l.SingleFile() {
				files = []string{""}
			}
			for _, name := range files {
				if strings.HasPrefix(path.Base(name), ".") {
					continue // .eventlog.lock: a change to it adds nothing to import
				}
				p := filepath.Join(f.Unit.Path, filepath.FromSlash(name))
				got, ok := archive.SourceOf(p)
				require.True(t, ok, name)
				assert.Equal(t, f.Unit.Path, got, name)
			}
		})
	}
	t.Run("not a session", func(t *testing.T) {
		dir := t.TempDir()
		for _, name := range []string{"notes.txt", "config.json", ".hidden.json"} {
			p := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(p, []byte(`{"a":1}`), 0o644))
			_, ok := archive.SourceOf(p)
			assert.False(t, ok, name)
		}
		_, ok := archive.SourceOf(filepath.Join(dir, "gone.json"))
		assert.False(t, ok)
	})
}
