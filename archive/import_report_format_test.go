package archive_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
)

// dshLayouts are dsh's two container forms and the layout a report names each.
var dshLayouts = []struct {
	compressed bool
	layout     string
}{{false, "v0"}, {true, "v0-zstd"}}

// writeTwoTurns writes the two-turn session id as a plain or zstd file.
func writeTwoTurns(t *testing.T, id string, compressed bool) (*logB, string) {
	t.Helper()
	b := twoTurns(id)
	path := sessionFile(t, t.TempDir(), id, compressed)
	data := b.plain()
	if compressed {
		data = b.zstd(t, 4)
	}
	writeFile(t, path, data)
	return b, path
}

// TestDshReportsNameTheirFormat: a dsh file's report names its agent and layout, as
// an OpenHands source's does, whatever the run did with it: read it new, found it
// unchanged, read on after its cursor, checked it, or refused its header; and in
// the JSON of `import --json`.
func TestDshReportsNameTheirFormat(t *testing.T) {
	for _, tc := range dshLayouts {
		t.Run(tc.layout, func(t *testing.T) {
			ctx := context.Background()
			s := archivetest.MustOpen(t)
			b, path := writeTwoTurns(t, "session-f", tc.compressed)
			named := func(fr archive.FileReport, action string) {
				t.Helper()
				assert.Equal(t, action, fr.Action, "%+v", fr.Error)
				assert.Equal(t, "dsh", fr.Agent, "%s report", action)
				assert.Equal(t, tc.layout, fr.Format, "%s report", action)
			}

			named(importOne(t, s, path), "new")
			named(importOne(t, s, path), "unchanged")
			named(s.ImportFile(ctx, path, archive.ImportOptions{}), "unchanged")
			named(archive.CheckFile(path, archive.ImportOptions{}), "checked")
			if !tc.compressed {
				b.fullTurn("and one more")
				writeFile(t, path, b.plain())
				named(importOne(t, s, path), "appended")
			}

			out, err := json.Marshal(importOne(t, s, path))
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(out, &got))
			assert.Equal(t, "dsh", got["agent"])
			assert.Equal(t, tc.layout, got["format"])
		})
	}
}

// TestRefusedDshFileNamesItsFormat: a file whose header was refused has no session,
// but its report still says which format read it.
func TestRefusedDshFileNamesItsFormat(t *testing.T) {
	s := archivetest.MustOpen(t)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	writeFile(t, path, []byte(`{"type":"session","version":99,"id":"x","createdAt":1,"delegationDepth":0}`+"\n"))
	for _, fr := range []archive.FileReport{importOne(t, s, path), importOne(t, s, path), archive.CheckFile(path, archive.ImportOptions{})} {
		assert.Equal(t, archive.VerdictUnsupported, fr.Verdict, "%+v", fr.Error)
		assert.Equal(t, "dsh", fr.Agent)
		assert.Equal(t, "v0", fr.Format)
	}
}

// TestLegacyDshFileRowsNameTheirFormat: files rows stored before each format named
// its layout (format "dsh-v0") report dsh's layout when found unchanged, and a
// later read on stores the new name.
func TestLegacyDshFileRowsNameTheirFormat(t *testing.T) {
	for _, tc := range dshLayouts {
		t.Run(tc.layout, func(t *testing.T) {
			s := archivetest.MustOpen(t)
			b, path := writeTwoTurns(t, "session-l", tc.compressed)
			require.Equal(t, "new", importOne(t, s, path).Action)
			d := db(t, s)
			_, err := d.Exec(`UPDATE files SET format = 'dsh-v0' WHERE path = ?`, path)
			require.NoError(t, err)

			fr := importOne(t, s, path)
			assert.Equal(t, "unchanged", fr.Action)
			assert.Equal(t, "dsh", fr.Agent)
			assert.Equal(t, tc.layout, fr.Format)

			if !tc.compressed {
				b.fullTurn("more")
				writeFile(t, path, b.plain())
				require.Equal(t, "appended", importOne(t, s, path).Action)
				var stored string
				require.NoError(t, d.QueryRow(`SELECT format FROM files WHERE path = ?`, path).Scan(&stored))
				assert.Equal(t, "dsh/"+tc.layout, stored)
			}
		})
	}
}
