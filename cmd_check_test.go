package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

func TestCheckMalformations(t *testing.T) {
	cases := dshgen.Malformations()
	names := []string{
		"ok/base",
		"ok/base-zstd",
		"header/not-json",
		"header/version-1",
		"event/missing-seq/committed",
		"event/missing-seq/tail",
		"seq/forward-gap/committed",
		"torn-tail/partial-line",
		"zstd/empty-file",
		"zstd/checksum-mismatch",
		"zstd/torn-last-frame",
		"zstd/bad-json-in-last-frame",
		"zstd/header-version-1",
	}
	dir := t.TempDir()
	data := t.TempDir()
	for i, name := range names {
		c := malCase(t, cases, name)
		t.Run(name, func(t *testing.T) {
			p := writeCase(t, dir, "session-"+strconv.Itoa(i), c)
			r := cliData(t, data, "check", "--json", p)
			wantCode := 0
			if c.Verdict != "ok" {
				wantCode = 1
			}
			assert.Equal(t, wantCode, r.code, "stderr: %s", r.stderr)
			files := objs(t, decode[map[string]any](t, r.stdout)["files"])
			require.Len(t, files, 1)
			f := files[0]
			assertReportShape(t, f)
			assert.Equal(t, p, f["path"])
			assert.Equal(t, c.Verdict, f["verdict"])
			assert.Equal(t, false, f["changed"], "check never changes the archive")
			if c.Kind == "" {
				assert.Nil(t, f["error"])
				return
			}
			e := obj(t, f["error"])
			assert.Equal(t, c.Kind, e["kind"])
			if c.Line >= 0 { // -1: the catalogue leaves the line of container damage open
				assert.EqualValues(t, c.Line, e["line"])
			}
		})
	}

	t.Run("several files", func(t *testing.T) {
		ok := writeCase(t, t.TempDir(), "session-a", malCase(t, cases, "ok/base"))
		bad := writeCase(t, t.TempDir(), "session-b", malCase(t, cases, "header/not-json"))
		missing := filepath.Join(t.TempDir(), "nope", "session.jsonl")
		r := cliData(t, data, "check", "--json", ok, bad, missing)
		assert.Equal(t, 1, r.code)
		files := fileByPath(t, decode[map[string]any](t, r.stdout))
		require.Len(t, files, 3)
		assert.Equal(t, "ok", files[ok]["verdict"])
		assert.Equal(t, "corrupt", files[bad]["verdict"])
		assert.Equal(t, "io-error", obj(t, files[missing]["error"])["kind"])

		r = cliData(t, data, "check", ok)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "ok")

		// After "--" every argument is a path, even one that looks like a flag.
		r = cliData(t, data, "check", "--json", "--", ok, "-no-such-file")
		assert.Equal(t, 1, r.code, r.stderr)
		files = fileByPath(t, decode[map[string]any](t, r.stdout))
		require.Len(t, files, 2)
		dash, err := filepath.Abs("-no-such-file")
		require.NoError(t, err)
		assert.Equal(t, "io-error", obj(t, files[dash]["error"])["kind"])
	})

	// check never writes to the archive.
	list := mustJSON[[]any](t, data, "sessions", "--json")
	assert.Empty(t, list)
}
