package dsh_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
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
				Growing: func(t testing.TB, dir string) (formattest.Source, func() formattest.Source) {
					return growing(t, dir, compressed)
				},
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

// growing writes a session as it stood after the first half of its append batches
// (whole zstd frames, or the lines they hold), and grows it to the whole log.
func growing(t testing.TB, dir string, compressed bool) (formattest.Source, func() formattest.Source) {
	t.Helper()
	l := dshgen.Generate(dshgen.Options{Seed: 5, ID: "session-growing", Cwd: "/home/u/proj", Turns: 8})
	frames := l.Frames()
	half := bytes.Join(frames[:len(frames)/2], nil)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	plain, err := dec.DecodeAll(half, nil)
	require.NoError(t, err)
	path, err := l.WriteFile(dir, compressed)
	require.NoError(t, err)
	data := plain
	if compressed {
		data = half
	}
	require.NoError(t, os.WriteFile(path, data, 0o644))
	lines := int64(bytes.Count(plain, []byte{'\n'})) // the header is line 1
	var events int64
	for events < int64(l.Events()) && l.LineOfSeq(events) <= lines {
		events++
	}
	before := formattest.Source{Path: path, SessionID: l.ID(), Events: events, Export: plain}
	grow := func() formattest.Source {
		rest := l.JSONL()[len(plain):]
		if compressed {
			rest = bytes.Join(frames[len(frames)/2:], nil)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.Write(rest)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		return formattest.Source{Path: path, SessionID: l.ID(), Events: int64(l.Events()), Export: l.JSONL()}
	}
	return before, grow
}
