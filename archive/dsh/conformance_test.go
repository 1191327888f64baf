package dsh_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/formattest"
)

// TestConformance runs the archive's format suite on dsh V0, with sources from the
// generator: a plain and a zstd session, one with an unknown (ignorable) event type,
// and the malformation catalogue's damaged files.
func TestConformance(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "zstd"}[compressed], func(t *testing.T) {
			formattest.Run(t, formattest.Fixture{
				Valid: func(t testing.TB, dir string) formattest.Source {
					return writeLog(t, dir, compressed, dshgen.Options{Seed: 3, ID: "session-valid", Cwd: "/home/u/proj", Turns: 6})
				},
				Unknown: func(t testing.TB, dir string) formattest.Source {
					return writeLog(t, dir, compressed, dshgen.Options{Seed: 4, ID: "session-unknown", Cwd: "/home/u/proj", Turns: 6,
						Families: dshgen.AllFamilies | dshgen.FamilyUnknownIgnorable})
				},
				UnknownKind: dsh.KindUnknownEvent,
				Damaged:     damaged(compressed),
			})
		})
	}
}

func writeLog(t testing.TB, dir string, compressed bool, o dshgen.Options) formattest.Source {
	t.Helper()
	l := dshgen.Generate(o)
	path, err := l.WriteFile(dir, compressed)
	require.NoError(t, err)
	return formattest.Source{Path: path, SessionID: l.ID(), Events: int64(l.Events()), Export: l.JSONL()}
}

// damaged writes the catalogue's damaged files of one container form.
func damaged(compressed bool) func(t testing.TB, dir string) []formattest.Damage {
	return func(t testing.TB, dir string) []formattest.Damage {
		var out []formattest.Damage
		for i, c := range dshgen.Malformations() {
			if c.Compressed != compressed || c.Verdict == string(dsh.VerdictOK) {
				continue
			}
			name := "session.jsonl"
			if compressed {
				name += ".zstd"
			}
			path := filepath.Join(dir, fmt.Sprint(i), name)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, c.Data, 0o644))
			out = append(out, formattest.Damage{Name: c.Name, Path: path, Verdict: archive.Verdict(c.Verdict),
				Kind: archive.Kind(c.Kind), Line: c.Line})
		}
		return out
	}
}
