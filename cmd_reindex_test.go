package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReindexFromAnyState(t *testing.T) {
	states := []struct {
		name   string
		damage func(t *testing.T, dir string)
	}{
		{"index_meta.json missing, store kept", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "index_meta.json")))
		}},
		{"index_meta.json empty", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "index_meta.json"), nil, 0o644))
		}},
		{"store missing", func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "store")))
		}},
		{"root.bolt garbage", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "store", "root.bolt"), bytes.Repeat([]byte("x"), 8192), 0o600))
		}},
		{"a segment truncated", func(t *testing.T, dir string) {
			zaps, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
			require.NoError(t, err)
			require.NotEmpty(t, zaps)
			require.NoError(t, os.Truncate(zaps[len(zaps)-1], 100))
		}},
		{"a file where the index belongs", func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(dir))
			require.NoError(t, os.WriteFile(dir, []byte("x"), 0o644))
		}},
		{"a half-built index beside it", func(t *testing.T, dir string) {
			half := dir + ".new-1-x"
			require.NoError(t, os.MkdirAll(filepath.Join(half, "store"), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(half, "index_meta.json"), nil, 0o644))
		}},
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			for _, first := range []string{"reindex", "search"} {
				t.Run(first+" first", func(t *testing.T) {
					data := importCorpus(t)
					st.damage(t, filepath.Join(data, "index"))
					if first == "reindex" {
						r := cliData(t, data, "reindex")
						require.Equal(t, 0, r.code, r.stderr)
						assert.Contains(t, r.stdout, "Reindexed")
					}
					r := cliData(t, data, "search", "--json", "写入权限")
					require.Equal(t, 0, r.code, r.stderr)
					assert.Positive(t, total(t, decode[map[string]any](t, r.stdout)))
					r = cliData(t, data, "reindex")
					require.Equal(t, 0, r.code, r.stderr)
					leftovers, err := filepath.Glob(filepath.Join(data, "index.new-*"))
					require.NoError(t, err)
					assert.Empty(t, leftovers)
				})
			}
		})
	}
}
