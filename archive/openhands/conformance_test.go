package openhands_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/formattest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// TestConformance runs the archive's format suite on OpenHands SDK conversation
// folders from the generator: a valid one, one holding an event of a kind no
// release has, damaged ones, and one whose agent is still writing event files.
func TestConformance(t *testing.T) {
	formattest.Run(t, formattest.Fixture{
		Valid: func(t testing.TB, dir string) formattest.Source {
			return sdkSource(t, dir, openhandsgen.Options{Seed: 21, Turns: 8, Confirmation: true})
		},
		Unknown: func(t testing.TB, dir string) formattest.Source {
			return sdkSource(t, dir, openhandsgen.Options{Seed: 22, Turns: 8, Malformations: []openhandsgen.Malformation{openhandsgen.UnknownKind}})
		},
		UnknownKind: archive.Kind(openhands.ProblemUnknownKind),
		Damaged: func(t testing.TB, dir string) []formattest.Damage {
			var out []formattest.Damage
			for i, m := range []openhandsgen.Malformation{openhandsgen.Unparseable, openhandsgen.Gap} {
				src := sdkSource(t, filepath.Join(dir, string(m)), openhandsgen.Options{Seed: uint64(30 + i), Turns: 4,
					Malformations: []openhandsgen.Malformation{m}})
				out = append(out, formattest.Damage{Name: string(m), Path: src.Path, Verdict: archive.VerdictRecovered,
					Kind: archive.Kind(m), Line: -1})
			}
			return out
		},
		Growing: func(t testing.TB, dir string) (formattest.Source, func() formattest.Source) {
			full := sdkSource(t, dir, openhandsgen.Options{Seed: 23, Turns: 10})
			names, err := filepath.Glob(filepath.Join(full.Path, "events", "event-*.json"))
			require.NoError(t, err)
			require.Greater(t, len(names), 50)
			// The agent has not written the last twelve event files yet.
			hold := filepath.Join(dir, "later")
			require.NoError(t, os.MkdirAll(hold, 0o755))
			for _, n := range names[len(names)-12:] {
				require.NoError(t, os.Rename(n, filepath.Join(hold, filepath.Base(n))))
			}
			grow := func() formattest.Source {
				for _, n := range names[len(names)-12:] {
					require.NoError(t, os.Rename(filepath.Join(hold, filepath.Base(n)), n))
				}
				return folderSource(t, full.Path, full.SessionID)
			}
			return folderSource(t, full.Path, full.SessionID), grow
		},
	})
}

// sdkSource generates an SDK conversation folder under dir.
func sdkSource(t testing.TB, dir string, o openhandsgen.Options) formattest.Source {
	t.Helper()
	o.Layout = openhands.LayoutSDK
	facts, err := openhandsgen.Generate(dir, o)
	require.NoError(t, err)
	return folderSource(t, facts.Unit.Path, facts.Unit.SessionID)
}

var eventFile = regexp.MustCompile(`^event-\d+-[0-9a-fA-F-]+\.json$`)

// folderSource describes a conversation folder as it is on disk: its files, and
// its events counted from their file names, not by the reader.
func folderSource(t testing.TB, path, id string) formattest.Source {
	t.Helper()
	src := formattest.Source{Path: path, SessionID: id, Files: map[string][]byte{}}
	require.NoError(t, filepath.WalkDir(path, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(path, p)
		if err != nil {
			return err
		}
		if eventFile.MatchString(e.Name()) {
			src.Events++
		}
		src.Files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	}))
	return src
}
