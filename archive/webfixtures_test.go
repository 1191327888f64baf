package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// instantiateWebFixture turns one of dsh's templated web fixtures into a physical V0
// log the way dsh's snapshot loader does: it fills the {{…}} placeholders, adds the
// header's delegationDepth, and gives every record dense seq/time coordinates (seq0 and
// time0 for packed rows, which advance by their member count). It returns the log and
// the number of logical events.
func instantiateWebFixture(t *testing.T, src []byte, id string) ([]byte, int) {
	t.Helper()
	repl := strings.NewReplacer("{{sessionId}}", id, "{{cwd}}", "/home/u/fixture", "{{rpcId}}", "rpc-1",
		"{{system}}", "You are a test agent.", "{{tools}}", "tools", "{{messagePrefix}}", "prefix")
	lines := strings.Split(strings.TrimSuffix(repl.Replace(string(src)), "\n"), "\n")
	var out bytes.Buffer
	seq, now := 0, int64(1785403668101)
	for i, line := range lines {
		if i == 0 {
			require.True(t, strings.HasSuffix(line, "}"))
			out.WriteString(strings.TrimSuffix(line, "}") + `,"delegationDepth":0}` + "\n")
			continue
		}
		var env struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &env), "line %d", i+1)
		prefix := fmt.Sprintf(`{"type":%q,`, env.Type)
		require.True(t, strings.HasPrefix(line, prefix), "line %d starts with its type", i+1)
		now += 7
		n := 1
		coords := fmt.Sprintf(`"seq":%d,"time":%d,`, seq, now)
		if strings.HasSuffix(env.Type, "-chunks") {
			var row struct {
				Data struct {
					Texts []json.RawMessage `json:"texts"`
					Args  []json.RawMessage `json:"args"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &row), "line %d", i+1)
			n = len(row.Data.Texts) + len(row.Data.Args)
			coords = fmt.Sprintf(`"seq0":%d,"time0":%d,`, seq, now)
		}
		out.WriteString(prefix + coords + line[len(prefix):] + "\n")
		seq += n
	}
	return out.Bytes(), seq
}

// TestImportWebFixtures imports all 20 of dsh's own web fixtures after instantiation.
// They exercise real writer output (packed rows of every kind, approvals, permission
// changes, plans, steering, seeded history) that the real corpus file lacks.
func TestImportWebFixtures(t *testing.T) {
	ctx := context.Background()
	root := filepath.Dir(archivetest.Corpus(t, "dsh/web-snapshots/steering/session.jsonl"))
	root = filepath.Dir(root)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	s := archivetest.MustOpen(t)
	dir := t.TempDir()
	seen := 0
	for _, e := range entries {
		for _, name := range []string{"session.jsonl", "seed.jsonl"} {
			src, err := os.ReadFile(filepath.Join(root, e.Name(), name))
			if err != nil {
				continue
			}
			seen++
			t.Run(e.Name(), func(t *testing.T) {
				id := "session-fixture-" + e.Name()
				log, events := instantiateWebFixture(t, src, id)
				path := filepath.Join(dir, e.Name()+".jsonl")
				require.NoError(t, os.WriteFile(path, log, 0o600))

				fr := s.ImportFile(ctx, path, archive.ImportOptions{})
				if e.Name() == "cordis-tool-round" {
					// This fixture was trimmed upstream (its chunk deltas removed) but
					// kept the original sourceEventSeqs, which now cite seqs past the
					// citing event: real damage the importer must name precisely.
					require.Equal(t, dsh.VerdictCorrupt, fr.Verdict)
					assert.Equal(t, dsh.KindBadSourceSeqs, fr.Error.Kind)
					assert.EqualValues(t, 13, fr.Error.Line)
					assert.EqualValues(t, 11, fr.LogicalEvents, "the valid prefix is kept")
					return
				}
				require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
				assert.EqualValues(t, events, fr.LogicalEvents)
				assert.EqualValues(t, events-1, fr.LastSeq)
				for _, w := range fr.Warnings {
					// Fixtures carry legacy turn/start.trigger; anything else is reported for a look.
					if w.Kind != dsh.KindLegacyEvent {
						t.Logf("warning %s: %s", w.Kind, w.Message)
					}
				}
				var got bytes.Buffer
				require.NoError(t, s.ExportJSONL(ctx, id, &got))
				assert.Equal(t, string(log), got.String(), "export is byte-identical")

				// The templated header (no delegationDepth) is refused by default and
				// accepted in lenient mode.
				raw := bytes.Replace(log, []byte(`,"delegationDepth":0}`), []byte(`}`), 1)
				require.NoError(t, os.WriteFile(path+".old", raw, 0o600))
				strict := archive.CheckFile(path+".old", archive.ImportOptions{})
				assert.Equal(t, dsh.VerdictCorrupt, strict.Verdict)
				assert.Equal(t, dsh.KindBadHeader, strict.Error.Kind)
				lenient := archive.CheckFile(path+".old", archive.ImportOptions{LenientHeaders: true})
				assert.Equal(t, dsh.VerdictOK, lenient.Verdict)
			})
		}
	}
	assert.Equal(t, 20, seen, "all 20 upstream fixtures")

	approvals, err := s.Approvals(ctx, archive.ItemFilter{SessionID: "session-fixture-approval-composer"})
	require.NoError(t, err)
	require.NotEmpty(t, approvals)
	for _, a := range approvals {
		assert.NotEmpty(t, a.ToolName)
		assert.Equal(t, "ask", a.Policy, "the policy in force when asked")
	}
}
