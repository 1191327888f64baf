package main

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/export/exporttest"
	"github.com/logbook/logbook/export/redact"
)

func TestExportMarkdownAndHTML(t *testing.T) {
	data, a, _ := importGenerated(t)
	out := filepath.Join(t.TempDir(), "a.md")
	r := cliData(t, data, "export", a.ID(), "--format", "md", "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	md, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(md), "# "), "a Markdown title")
	assert.Contains(t, string(md), "## Turn 1")

	r = cliData(t, data, "export", a.ID(), "--format", "html")
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "<!doctype html>"))
	assert.Contains(t, r.stdout, "Content-Security-Policy")

	r = cliData(t, data, "export", a.ID(), "--format", "md", "--yes")
	assert.Equal(t, 2, r.code, "--yes without --redact is a usage error")
	r = cliData(t, data, "export", a.ID(), "--format", "md", "--kept", "tail")
	assert.Equal(t, 2, r.code, "--kept is for jsonl")
	r = cliData(t, data, "export", a.ID(), "--format", "pdf")
	assert.Equal(t, 2, r.code)
}

// importPlanted imports a session carrying secretgen's planted secrets.
func importPlanted(t *testing.T) (data, id string, secrets []string, names string) {
	t.Helper()
	l, c := exporttest.Planted(5, "session-planted")
	root, data := t.TempDir(), t.TempDir()
	_, err := l.WriteFile(root, false)
	require.NoError(t, err)
	r := cliData(t, data, "import", root)
	require.Equal(t, 0, r.code, r.stderr)
	for _, o := range c.Occurrences {
		secrets = append(secrets, o.Value, o.Secret.Value)
	}
	return data, l.ID(), secrets, strings.Join(c.UserNames, ",")
}

func TestExportRedactYes(t *testing.T) {
	data, id, secrets, names := importPlanted(t)
	before := cliData(t, data, "export", id)
	require.Equal(t, 0, before.code, before.stderr)

	for _, format := range []string{"md", "html"} {
		t.Run(format, func(t *testing.T) {
			plain := cliData(t, data, "export", id, "--format", format)
			require.Equal(t, 0, plain.code, plain.stderr)
			out := filepath.Join(t.TempDir(), "x."+format)
			r := cliData(t, data, "export", id, "--format", format, "--redact", "--yes", "--redact-names", names, "-o", out)
			require.Equal(t, 0, r.code, r.stderr)
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			got := string(b)
			found := 0
			for _, s := range secrets {
				if strings.Contains(plain.stdout, s) {
					found++
				}
				assert.NotContains(t, got, s, "a planted secret survived redaction")
			}
			require.Positive(t, found, "the plain export carries the planted secrets")
			assert.Contains(t, got, "[REDACTED:")
			assert.Contains(t, got, "logbook redaction: redacted ")

			// A fresh scan of the redacted file finds none of what a scan of the
			// plain export found.
			sc, err := redact.NewScanner(redact.Options{})
			require.NoError(t, err)
			ctx := context.Background()
			plainRep, err := sc.Scan(ctx, []redact.Doc{{ID: "plain", Text: plain.stdout}})
			require.NoError(t, err)
			rep, err := sc.Scan(ctx, []redact.Doc{{ID: "file", Text: got}})
			require.NoError(t, err)
			had := map[string]bool{}
			for _, f := range plainRep.Findings {
				had[f.Fingerprint] = true
			}
			for _, f := range rep.Findings {
				assert.False(t, had[f.Fingerprint], "re-scan found %s %s (%s) again", f.Category, f.Rule, f.Masked)
			}
			t.Logf("%s: plain export %d findings, redacted export %d (none of them a planted one)", format, len(plainRep.Findings), len(rep.Findings))
		})
	}
	after := cliData(t, data, "export", id)
	require.Equal(t, 0, after.code, after.stderr)
	assert.True(t, before.stdout == after.stdout, "the archive's JSONL is byte-identical after redacted exports")
}

func TestExportRedactGate(t *testing.T) {
	data, id, secrets, names := importPlanted(t)
	out := filepath.Join(t.TempDir(), "x.md")

	// Not a terminal and no --yes: refused, nothing written.
	_ = names
	r := cliData(t, data, "export", id, "--format", "md", "--redact", "-o", out)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "standard input is not a terminal")
	assert.NoFileExists(t, out)

	// --json: the report on stdout, no secret in it, and no file without --yes.
	r = cliData(t, data, "export", id, "--format", "md", "--redact", "--json", "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Findings []map[string]any `json:"findings"`
		Counts   map[string]int   `json:"counts"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.NotEmpty(t, rep.Findings)
	for _, k := range []string{"category", "rule", "masked", "preview", "doc", "line"} {
		assert.Contains(t, rep.Findings[0], k)
	}
	for _, s := range secrets {
		if len(s) >= 8 {
			assert.NotContains(t, r.stdout, s, "the report carries no secret")
		}
	}
	assert.NoFileExists(t, out)

	r = cliData(t, data, "export", id, "--format", "md", "--redact", "--json", "--yes")
	assert.Equal(t, 2, r.code, "--json --yes needs -o")
	r = cliData(t, data, "export", id, "--format", "md", "--redact", "--json", "--yes", "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, out)
}

func TestAskCategories(t *testing.T) {
	rep := &redact.Report{Findings: []redact.Finding{
		{ID: "a", Doc: "3/text", Category: redact.CategoryEmail, Rule: "email", Masked: "an…io", Preview: "mail an…io"},
		{ID: "b", Doc: "4/tool-output", Category: redact.CategoryHost, Rule: "ipv4", Masked: "1…", Preview: "from 1…"},
	}}
	var out strings.Builder
	dec := askCategories(&out, strings.NewReader("y\nn\n"), rep)
	assert.Equal(t, map[redact.Category]bool{redact.CategoryEmail: true, redact.CategoryHost: false}, dec.Categories)
	assert.Contains(t, out.String(), "email: 1 finding(s)")
	assert.Contains(t, out.String(), "redact host? [Y/n]")
}

// readZip returns a zip file's entries by name.
func readZip(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	require.NoError(t, err)
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		out[f.Name] = b
	}
	return out
}

func TestExportBundle(t *testing.T) {
	data, id, secrets, names := importPlanted(t)
	jsonl := cliData(t, data, "export", id)
	require.Equal(t, 0, jsonl.code, jsonl.stderr)
	r := cliData(t, data, "export", id, "--format", "bundle")
	assert.Equal(t, 2, r.code, "a bundle needs -o")

	out := filepath.Join(t.TempDir(), "b.logbook")
	r = cliData(t, data, "export", id, "--format", "bundle", "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	files := readZip(t, out)
	var m struct {
		Version  int `json:"logbook_export"`
		Sessions []struct {
			ID     string `json:"id"`
			Source string `json:"source"`
		} `json:"sessions"`
		Files []struct {
			Name   string `json:"name"`
			Bytes  int    `json:"bytes"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
		Redaction any `json:"redaction"`
	}
	require.NoError(t, json.Unmarshal(files["manifest.json"], &m))
	assert.Equal(t, 2, m.Version)
	require.Len(t, m.Sessions, 1)
	assert.Equal(t, id, m.Sessions[0].ID)
	assert.Equal(t, jsonl.stdout, string(files[m.Sessions[0].Source]), "the bundle's source is the archive's JSONL")
	assert.True(t, strings.HasSuffix(m.Sessions[0].Source, "/session.jsonl"), m.Sessions[0].Source)
	assert.True(t, strings.HasPrefix(string(files["sessions/1/session.html"]), "<!doctype html>"))
	assert.True(t, strings.HasPrefix(string(files["sessions/1/session.md"]), "# "))
	require.Len(t, m.Files, 3)
	for _, f := range m.Files {
		sum := sha256.Sum256(files[f.Name])
		assert.Equal(t, hex.EncodeToString(sum[:]), f.SHA256, f.Name)
		assert.Equal(t, len(files[f.Name]), f.Bytes, f.Name)
	}
	assert.Nil(t, m.Redaction)

	// Redacted: no source, no planted secret anywhere, the summary in the manifest.
	red := filepath.Join(t.TempDir(), "r.logbook")
	r = cliData(t, data, "export", id, "--format", "bundle", "--redact", "--yes", "--redact-names", names, "-o", red)
	require.Equal(t, 0, r.code, r.stderr)
	files = readZip(t, red)
	assert.Len(t, files, 3, "html, md and the manifest")
	assert.Contains(t, string(files["manifest.json"]), "an exact log cannot be redacted")
	assert.Contains(t, string(files["manifest.json"]), `"redacted": true`)
	for name, b := range files {
		for _, s := range secrets {
			assert.NotContains(t, string(b), s, "a planted secret in %s", name)
		}
	}
}

// TestExportOpenHandsTurns: --turns and --around work on a real OpenHands
// conversation (whose events name no turn): the hit a search gives opens its
// turn, numbered one per prompt, in md and html.
func TestExportOpenHandsTurns(t *testing.T) {
	conv, err := filepath.Abs(filepath.Join("..", "shared", "corpus", "openhands", "OpenHands-CLI", "tests", "trajectories", "cli447_hi_followup_iterative_case_a"))
	require.NoError(t, err)
	if _, err := os.Stat(conv); err != nil {
		t.Skipf("corpus %s absent", conv)
	}
	data := t.TempDir()
	r := cliData(t, data, "import", conv)
	require.Equal(t, 0, r.code, r.stderr)
	const id = "cli447_hi_followup_iterative_case_a"

	r = cliData(t, data, "export", id, "--format", "md", "--turns", "2-3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "## Turn 2\n")
	assert.Contains(t, r.stdout, "## Turn 3\n")
	assert.NotContains(t, r.stdout, "## Turn 1\n")
	assert.NotContains(t, r.stdout, "## Turn 4\n")
	assert.Contains(t, r.stdout, "| Excerpt | turns 2-3; the session has turns 1-4 |")

	res := mustJSON[map[string]any](t, data, "search", "--json", `"iteration 2/3" kind:human`)
	hits := objs(t, res["hits"])
	require.NotEmpty(t, hits)
	hit := hits[0]["id"].(string)
	for _, format := range []string{"md", "html"} {
		r = cliData(t, data, "export", "--around", hit, "--context", "0", "--format", format)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "iteration 2/3")
		assert.NotContains(t, r.stdout, "iteration 1/3", "%s: only the hit's turn", format)
		assert.NotContains(t, r.stdout, "iteration 3/3", "%s: only the hit's turn", format)
	}
	r = cliData(t, data, "export", id, "--format", "md", "--turns", "7-9")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "has turns 1-4")
}
