package app

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export/exporttest"
	"github.com/logbook/logbook/export/redact"
)

// savingShell is a desktop window whose save dialog answers path.
type savingShell struct {
	fakeShell
	path  string
	asked string
}

func (s *savingShell) SaveFile(name string) (string, error) { s.asked = name; return s.path, nil }

// plantedApp is an app holding a session with secretgen's planted secrets.
func plantedApp(t *testing.T) (*testApp, string, []string, []string) {
	t.Helper()
	ta := newTestApp(t)
	l, c := exporttest.Planted(5, "session-planted")
	_, err := l.WriteFile(ta.root, false)
	require.NoError(t, err)
	ta.importNow(t)
	var secrets []string
	for _, o := range c.Occurrences {
		secrets = append(secrets, o.Value, o.Secret.Value)
	}
	return ta, l.ID(), secrets, c.UserNames
}

func TestExportScanAndRedact(t *testing.T) {
	ta, id, secrets, names := plantedApp(t)
	opts := ExportOptions{Format: "md", Redact: true, Names: names}
	rep, err := ta.ExportScan(id, opts)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	again, err := ta.ExportScan(id, opts)
	require.NoError(t, err)
	require.Equal(t, len(rep.Findings), len(again.Findings))
	assert.Equal(t, rep.Findings[0].ID, again.Findings[0].ID, "a re-scan gives the same finding ids")

	// Everything accepted: no planted secret is left.
	f, err := ta.Export(id, opts, redact.Decisions{})
	require.NoError(t, err)
	assert.Equal(t, "session-planted.md", f.Name)
	require.NotNil(t, f.Redaction)
	md := fetched(t, ta.App, f)
	for _, s := range secrets {
		assert.NotContains(t, md, s)
	}
	assert.Contains(t, md, "[REDACTED:")

	// Emails kept, one token finding kept by its id.
	var keep redact.Finding
	for _, x := range rep.Findings {
		if x.Category == redact.CategoryToken {
			keep = x
			break
		}
	}
	require.NotEmpty(t, keep.ID)
	f, err = ta.Export(id, opts, redact.Decisions{
		Categories: map[redact.Category]bool{redact.CategoryEmail: false},
		Findings:   map[string]bool{keep.ID: false},
	})
	require.NoError(t, err)
	assert.Zero(t, f.Redaction.Redacted[redact.CategoryEmail])
	assert.Positive(t, f.Redaction.Kept)
	assert.Contains(t, fetched(t, ta.App, f), "@", "kept e-mail addresses stay")

	_, err = ta.Export(id, ExportOptions{Format: "jsonl", Redact: true}, redact.Decisions{})
	assert.Error(t, err)
	_, err = ta.Export(id, ExportOptions{Format: "pdf"}, redact.Decisions{})
	assert.Error(t, err)
	j, err := ta.Export(id, ExportOptions{Format: "jsonl"}, redact.Decisions{})
	require.NoError(t, err)
	assert.Equal(t, "application/jsonl", j.MIME)
	assert.True(t, strings.HasPrefix(fetched(t, ta.App, j), "{"))
}

func TestExportDesktopSaves(t *testing.T) {
	ta, id, _, _ := plantedApp(t)
	p := filepath.Join(t.TempDir(), "out.html")
	sh := &savingShell{path: p}
	ta.hub.attach(sh)
	f, err := ta.Export(id, ExportOptions{Format: "html"}, redact.Decisions{})
	require.NoError(t, err)
	assert.Equal(t, "session-planted.html", sh.asked)
	assert.Equal(t, p, f.Path)
	assert.Empty(t, f.Download)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.EqualValues(t, f.Bytes, len(b))

	sh.path = "" // the person cancels
	f, err = ta.Export(id, ExportOptions{Format: "md"}, redact.Decisions{})
	require.NoError(t, err)
	assert.True(t, f.Cancelled)

	// The dialog comes first, and a cancelled export is never built: turns the
	// session does not have would fail the build, but nothing is built.
	f, err = ta.Export(id, ExportOptions{Format: "md", Turns: "90-99"}, redact.Decisions{})
	require.NoError(t, err, "nothing was built to fail")
	assert.True(t, f.Cancelled)

	// A bundle is written straight into the chosen file, redacted when asked.
	sh.path = filepath.Join(t.TempDir(), "out.logbook")
	f, err = ta.Export(id, ExportOptions{Format: "bundle", Redact: true}, redact.Decisions{})
	require.NoError(t, err)
	assert.Equal(t, "session-planted.logbook", sh.asked)
	assert.Equal(t, sh.path, f.Path)
	require.NotNil(t, f.Redaction)
	files := zipFiles(t, sh.path)
	assert.Contains(t, files, "sessions/1/session.md")
	assert.Contains(t, files["manifest.json"], `"redacted": true`)
	fi, err := os.Stat(sh.path)
	require.NoError(t, err)
	assert.EqualValues(t, f.Bytes, fi.Size())
	left, err := filepath.Glob(filepath.Join(filepath.Dir(sh.path), ".*partial*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left")
}

// fetched is what a browser downloads of a finished export (its one GET, see
// download.go), as text; the file is then gone.
func fetched(t *testing.T, a *App, f ExportFile) string {
	t.Helper()
	require.NotEmpty(t, f.Download, "a browser's export waits to be downloaded")
	u, err := url.Parse(f.Download)
	require.NoError(t, err)
	dl, status := a.downloads.take(strings.TrimPrefix(u.Path, strings.TrimPrefix(downloadPrefix, "/")), u.Query().Get("key"))
	require.Equal(t, http.StatusOK, status)
	b, err := os.ReadFile(dl.path)
	require.NoError(t, err)
	require.NoError(t, os.Remove(dl.path))
	assert.EqualValues(t, f.Bytes, len(b))
	return string(b)
}

// zipFiles reads every entry of the zip file p.
func zipFiles(t *testing.T, p string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return zipBytes(t, b)
}

func zipBytes(t *testing.T, b []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		body, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		out[f.Name] = string(body)
	}
	return out
}

// TestExportBundle: the dialog's bundle, from a conversation (one session) or
// from search results (their sessions): a browser downloads the zip;
// a redacted one is scanned as one and holds no planted secret anywhere.
func TestExportBundle(t *testing.T) {
	ta := newTestApp(t)
	var ids, secrets, names []string
	for i, name := range []string{"session-planted-a", "session-planted-b"} {
		l, c := exporttest.Planted(uint64(11+i), name)
		_, err := l.WriteFile(ta.root, false)
		require.NoError(t, err)
		ids = append(ids, l.ID())
		for _, o := range c.Occurrences {
			secrets = append(secrets, o.Value, o.Secret.Value)
		}
		names = append(names, c.UserNames...)
	}
	ta.importNow(t)

	one, err := ta.Export(ids[0], ExportOptions{Format: "bundle"}, redact.Decisions{})
	require.NoError(t, err)
	assert.Equal(t, "session-planted-a.logbook", one.Name)
	files := zipBytes(t, []byte(fetched(t, ta.App, one)))
	assert.Contains(t, files["manifest.json"], ids[0])
	assert.NotContains(t, files["manifest.json"], ids[1])
	var source string
	for name := range files {
		if strings.HasPrefix(name, "sessions/1/source/") {
			source = name
		}
	}
	require.NotEmpty(t, source, "an unredacted bundle holds the original log")

	opts := ExportOptions{Format: "bundle", Redact: true, Names: names, Sessions: ids[1:]}
	rep, err := ta.ExportScan(ids[0], opts)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	many, err := ta.Export("", ExportOptions{Format: "bundle", Redact: true, Names: names, Sessions: ids}, redact.Decisions{})
	require.NoError(t, err)
	assert.Equal(t, "logbook-2-sessions.logbook", many.Name)
	require.NotNil(t, many.Redaction)
	files = zipBytes(t, []byte(fetched(t, ta.App, many)))
	assert.Len(t, files, 5, "two sessions' html and md, and the manifest")
	for name, body := range files {
		for _, s := range secrets {
			assert.NotContains(t, body, s, "a planted secret in %s", name)
		}
	}

	for _, o := range []ExportOptions{
		{Format: "bundle", Turns: "1"},
		{Format: "md", Sessions: ids[1:]},
		{Format: "bundle", Sessions: []string{" "}},
	} {
		_, err := ta.Export("", o, redact.Decisions{})
		assert.Error(t, err, "%+v", o)
		assert.NotContains(t, FormatError(err), "Something went wrong", "%+v: a clear message", o)
	}
	_, err = ta.Export(ids[0], ExportOptions{Format: "bundle", Sessions: []string{"no-such-session"}}, redact.Decisions{})
	assert.Error(t, err)
}

// TestExportPart: the dialog's turn range and "around this item" export those
// turns only, scanned as they are written; jsonl stays whole.
func TestExportPart(t *testing.T) {
	ta, id, _, names := plantedApp(t)
	whole, err := ta.Export(id, ExportOptions{Format: "md"}, redact.Decisions{})
	require.NoError(t, err)
	require.Contains(t, fetched(t, ta.App, whole), "## Turn 2\n")

	f, err := ta.Export(id, ExportOptions{Format: "md", Turns: "1-1"}, redact.Decisions{})
	require.NoError(t, err)
	md := fetched(t, ta.App, f)
	assert.Contains(t, md, "## Turn 1\n")
	assert.NotContains(t, md, "## Turn 2\n")
	assert.Contains(t, md, "Excerpt | turns 1;")

	all, err := ta.ExportScan(id, ExportOptions{Format: "md", Names: names})
	require.NoError(t, err)
	some, err := ta.ExportScan(id, ExportOptions{Format: "md", Names: names, Turns: "1"})
	require.NoError(t, err)
	assert.Less(t, len(some.Findings), len(all.Findings), "only the chosen turns are scanned")

	page, err := ta.Timeline(id, archive.TimelineQuery{Limit: 50})
	require.NoError(t, err)
	var seq int64 = -1
	for _, it := range page.Items {
		if it.Turn != nil && *it.Turn == 2 && it.Message != nil {
			seq = it.Seq
			break
		}
	}
	require.NotEqual(t, int64(-1), seq)
	f, err = ta.Export(id, ExportOptions{Format: "html", Around: &seq}, redact.Decisions{})
	require.NoError(t, err)
	assert.Contains(t, fetched(t, ta.App, f), "around seq ")

	for _, o := range []ExportOptions{
		{Format: "jsonl", Turns: "1"},
		{Format: "md", Turns: "x"},
		{Format: "md", Turns: "1", Around: &seq},
		{Format: "md", Turns: "90-99"},
	} {
		_, err := ta.Export(id, o, redact.Decisions{})
		assert.Error(t, err, "%+v", o)
		assert.NotContains(t, FormatError(err), "Something went wrong", "%+v: a clear message", o)
	}
}
