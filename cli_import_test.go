package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

func TestImportDirectoryMixed(t *testing.T) {
	root := t.TempDir()
	data := t.TempDir()
	good, goodPath := genLog(t, root, 1, "/home/u/proj", true)
	cases := dshgen.Malformations()
	corrupt := malCase(t, cases, "seq/forward-gap/committed")
	unsupported := malCase(t, cases, "zstd/header-version-1")
	corruptPath := writeCase(t, root, "session-corrupt", corrupt)
	unsupportedPath := writeCase(t, root, "session-unsupported", unsupported)

	r := cliData(t, data, "import", "--json", root)
	assert.Equal(t, 1, r.code, "a corrupt or unsupported file makes import exit 1: %s", r.stderr)
	rep := decode[map[string]any](t, r.stdout)
	files := fileByPath(t, rep)
	require.Len(t, files, 3, "%v", files)
	onlyGood := cliData(t, t.TempDir(), "import", "--json", goodPath)
	assert.Equal(t, 0, onlyGood.code, "every file ok: exit 0: %s", onlyGood.stderr)

	tests := []struct {
		name    string
		path    string
		verdict string
		kind    string
		line    int64
	}{
		{"good", goodPath, "ok", "", 0},
		{"corrupt", corruptPath, corrupt.Verdict, corrupt.Kind, corrupt.Line},
		{"unsupported", unsupportedPath, unsupported.Verdict, unsupported.Kind, unsupported.Line},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := files[tt.path]
			require.True(t, ok, "no report for %s", tt.path)
			assertReportShape(t, f)
			assert.Equal(t, tt.verdict, f["verdict"])
			if tt.kind == "" {
				assert.Nil(t, f["error"])
				return
			}
			e := obj(t, f["error"])
			assert.Equal(t, tt.kind, e["kind"])
			assert.EqualValues(t, tt.line, e["line"])
			assert.NotEmpty(t, e["message"])
		})
	}

	g := files[goodPath]
	assert.Equal(t, good.ID(), g["session_id"])
	assert.EqualValues(t, good.Events(), g["logical_events"])
	assert.EqualValues(t, good.LastSeq(), g["last_seq"])
	assert.Equal(t, true, g["changed"])
	assert.Equal(t, "corrupt", corrupt.Verdict) // the catalogue still means what this test assumes
	assert.Equal(t, "unsupported", unsupported.Verdict)

	sum := obj(t, rep["summary"])
	assert.EqualValues(t, 3, sum["files"])
	assert.EqualValues(t, 1, sum["ok"])
	assert.EqualValues(t, 1, sum["corrupt"])
	assert.EqualValues(t, 1, sum["unsupported"])

	// The good log is archived despite its bad neighbours.
	ids := map[string]map[string]any{}
	for _, s := range objs(t, mustJSON[any](t, data, "sessions", "--json")) {
		ids[s["id"].(string)] = s
	}
	require.Contains(t, ids, good.ID())
	assert.Equal(t, "ok", ids[good.ID()]["health"])
	assert.EqualValues(t, good.Events(), ids[good.ID()]["events"])

	// The text report names each verdict too.
	r = cliData(t, data, "import", root)
	require.Equal(t, 1, r.code, r.stderr)
	for _, v := range []string{"ok", "corrupt", "unsupported"} {
		assert.Contains(t, r.stdout, v)
	}
	assert.Contains(t, r.stdout, "3 files: 1 ok, 0 recovered, 1 corrupt, 1 unsupported, 0 failed")
}
