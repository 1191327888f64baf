package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
	"github.com/logbook/logbook/export"
)

// exportCall POSTs /api/Export and returns the finished export.
func (ts *testServer) exportCall(t *testing.T, id string, opts ExportOptions) ExportFile {
	t.Helper()
	body, err := json.Marshal([]any{id, opts, map[string]any{}})
	require.NoError(t, err)
	code, out := ts.call(t, "Export", string(body))
	require.Equal(t, http.StatusOK, code, out)
	var f ExportFile
	require.NoError(t, json.Unmarshal([]byte(out), &f))
	require.True(t, strings.HasPrefix(f.Download, "api/download/"), "a browser's export waits at a download URL: %+v", f)
	return f
}

// get GETs a page-relative URL without the token header, as a browser's
// download (a navigation) does.
func (ts *testServer) get(t *testing.T, rel string) (*http.Response, string) {
	t.Helper()
	return do(t, ts.req(t, "GET", "/"+rel, "", false))
}

// exportsLeft lists the files waiting under DATA/exports.
func exportsLeft(t *testing.T, ts *testServer) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(ts.deps.DataDir, downloadsDir))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestExportDownload: a browser's export is built into a file and fetched once
// by a GET with its key, as an attachment, the very bytes the exporters write
// (as `logbook export` writes them); without the key the GET gets 401, a second
// GET 410, and the file is gone once fetched.
func TestExportDownload(t *testing.T) {
	ts := newTestServer(t)
	l := ts.generate(t, 7, "/home/dev/dl")
	ts.importNow(t)
	ctx := context.Background()
	tr, err := export.Load(ctx, ts.deps.Archive, l.ID())
	require.NoError(t, err)
	want := map[string]func() []byte{
		"md":   func() []byte { var b bytes.Buffer; require.NoError(t, export.WriteMarkdown(&b, tr)); return b.Bytes() },
		"html": func() []byte { var b bytes.Buffer; require.NoError(t, export.WriteHTML(&b, tr)); return b.Bytes() },
		"jsonl": func() []byte {
			var b bytes.Buffer
			require.NoError(t, ts.deps.Archive.ExportJSONL(ctx, l.ID(), &b))
			return b.Bytes()
		},
		"bundle": func() []byte {
			var b bytes.Buffer
			bw := export.NewBundleWriter(&b, "the Export dialog: session "+l.ID(), nil)
			require.NoError(t, bw.AddSessions(ctx, ts.deps.Archive, []string{l.ID()}))
			require.NoError(t, bw.Close())
			return b.Bytes()
		},
	}
	for _, format := range []string{"md", "html", "jsonl", "bundle"} {
		t.Run(format, func(t *testing.T) {
			f := ts.exportCall(t, l.ID(), ExportOptions{Format: format})
			require.Len(t, exportsLeft(t, ts), 1, "built into one file under the data directory")
			id, key, _ := strings.Cut(strings.TrimPrefix(f.Download, "api/download/"), "?key=")

			resp, body := ts.get(t, "api/download/"+id)
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no key: %s", body)
			resp, _ = ts.get(t, "api/download/"+id+"?key="+strings.Repeat("0", len(key)))
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "another key")
			// The page's token is not the download's key.
			r := ts.req(t, "GET", "/api/download/"+id+"?key="+testToken, "", true)
			resp, _ = do(t, r)
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the run's token is no key")

			resp, _ = do(t, ts.req(t, "HEAD", "/"+f.Download, "", true))
			assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "a HEAD does not spend the download")

			resp, body = ts.get(t, f.Download)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			assert.Equal(t, exportMIME[format], resp.Header.Get("Content-Type"))
			assert.Equal(t, fmt.Sprintf("attachment; filename=%s", f.Name), resp.Header.Get("Content-Disposition"))
			assert.Equal(t, fmt.Sprint(f.Bytes), resp.Header.Get("Content-Length"))
			assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
			assert.True(t, bytes.Equal(want[format](), []byte(body)), "the download is the exporter's bytes (%d bytes)", len(body))
			assert.Eventually(t, func() bool { return len(exportsLeft(t, ts)) == 0 }, 5*time.Second, 5*time.Millisecond,
				"removed once fetched")

			resp, body = ts.get(t, f.Download)
			assert.Equal(t, http.StatusGone, resp.StatusCode, "fetched once only: %s", body)
			assert.Contains(t, body, "export again")
		})
	}

	t.Run("unknown", func(t *testing.T) {
		resp, _ := ts.get(t, "api/download/0123?key=abc")
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	})

	t.Run("never fetched", func(t *testing.T) {
		ts.downloads.ttl = 100 * time.Millisecond
		defer func() { ts.downloads.ttl = 0 }()
		f := ts.exportCall(t, l.ID(), ExportOptions{Format: "md"})
		require.Len(t, exportsLeft(t, ts), 1)
		require.Eventually(t, func() bool { return len(exportsLeft(t, ts)) == 0 }, 5*time.Second, 10*time.Millisecond,
			"removed after its wait")
		resp, _ := ts.get(t, f.Download)
		assert.Equal(t, http.StatusGone, resp.StatusCode)
	})

	t.Run("server stops", func(t *testing.T) {
		ts.exportCall(t, l.ID(), ExportOptions{Format: "md"})
		require.Len(t, exportsLeft(t, ts), 1)
		ts.s.Close()
		assert.Empty(t, exportsLeft(t, ts), "removed when the server stops")
	})
}

// TestExportQueryEveryPage: the Export dialog of search results resolves the
// search's sessions on the server, from every page of its hits: a search whose
// first page of results shows some of its sessions gives a bundle of all of
// them, and none it does not find.
func TestExportQueryEveryPage(t *testing.T) {
	ts := newTestServer(t)
	var want []string
	for i := range 45 {
		want = append(want, ts.generate(t, uint64(300+i), "/home/dev/many").ID())
	}
	other := ts.generate(t, 299, "/home/dev/other")
	ts.importNow(t)
	const q = "project:/home/dev/many"

	// The results view's first page (40 hits) holds some of the sessions only.
	code, out := ts.call(t, "Search", `[{"query": "`+q+`", "limit": 40}]`)
	require.Equal(t, http.StatusOK, code, out)
	var page struct {
		Hits []struct {
			SessionID string `json:"session_id"`
		} `json:"hits"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &page))
	shown := map[string]bool{}
	for _, h := range page.Hits {
		shown[h.SessionID] = true
	}
	require.Less(t, len(shown), len(want), "the first page shows only some sessions")

	code, out = ts.call(t, "ExportQuery", `["`+q+`"]`)
	require.Equal(t, http.StatusOK, code, out)
	var sel ExportSelection
	require.NoError(t, json.Unmarshal([]byte(out), &sel))
	assert.ElementsMatch(t, want, sel.Sessions)

	f := ts.exportCall(t, "", ExportOptions{Format: "bundle", Sessions: sel.Sessions})
	assert.Equal(t, "logbook-45-sessions.logbook", f.Name)
	resp, body := ts.get(t, f.Download)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var m export.Manifest
	require.NoError(t, json.Unmarshal([]byte(zipBytes(t, []byte(body))[export.ManifestName]), &m))
	var got []string
	for _, s := range m.Sessions {
		got = append(got, s.ID)
	}
	assert.ElementsMatch(t, want, got, "the bundle holds every session the search finds")
	assert.NotContains(t, got, other.ID())

	for _, bad := range []string{`[""]`, `["("]`} {
		code, out = ts.call(t, "ExportQuery", bad)
		assert.Equal(t, http.StatusUnprocessableEntity, code, out)
		assert.NotContains(t, out, "Something went wrong")
	}
}

// TestExportDownloadOpenHands: an OpenHands conversation's original files reach
// a browser as one zip of them, each byte-identical to what `logbook export
// --format openhands -o DIR` writes (archive.ExportOriginal); a dsh session has
// none, and says so.
func TestExportDownloadOpenHands(t *testing.T) {
	conv := filepath.Join("..", "..", "shared", "corpus", "openhands", "OpenHands-CLI", "tests", "trajectories", "cli447_hi_followup_iterative_case_a")
	if _, err := os.Stat(conv); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the OpenHands corpus is missing in CI: %v", err)
		}
		t.Skip("the shared corpus is not on this machine")
	}
	ts := newTestServer(t)
	require.NoError(t, os.CopyFS(filepath.Join(ts.root, filepath.Base(conv)), os.DirFS(conv)))
	dsh := ts.generate(t, 8, "/home/dev/oh")
	ts.importNow(t)
	list, err := ts.deps.Archive.ListSessions(context.Background(), archive.SessionFilter{})
	require.NoError(t, err)
	var id string
	for _, s := range list {
		if s.Agent != "dsh" {
			id = s.ID
		}
	}
	require.NotEmpty(t, id, "the conversation is imported")

	f := ts.exportCall(t, id, ExportOptions{Format: "openhands"})
	assert.Equal(t, id+"-openhands.zip", f.Name)
	resp, body := ts.get(t, f.Download)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "application/zip", resp.Header.Get("Content-Type"))
	dir := t.TempDir()
	require.NoError(t, ts.deps.Archive.ExportOriginal(context.Background(), id, dir))
	assert.Equal(t, openhandstest.ReadTree(t, dir), zipBytes(t, []byte(body)), "the zip holds the conversation's files as the CLI writes them")

	for _, o := range []struct {
		id   string
		opts ExportOptions
	}{
		{dsh.ID(), ExportOptions{Format: "openhands"}},
		{id, ExportOptions{Format: "openhands", Redact: true}},
		{id, ExportOptions{Format: "openhands", Turns: "1"}},
	} {
		b, err := json.Marshal([]any{o.id, o.opts, map[string]any{}})
		require.NoError(t, err)
		code, out := ts.call(t, "Export", string(b))
		assert.Equal(t, http.StatusUnprocessableEntity, code, "%+v: %s", o.opts, out)
		assert.NotContains(t, out, "Something went wrong")
	}
}

// A data directory this process cannot write still serves exports: they wait in
// the system's temporary directory.
func TestDownloadInUnwritableDataDir(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.WriteFile(notDir, nil, 0o600)) // nothing can be made under it
	var d downloads
	defer d.close()
	url, n, err := d.add(notDir, "s.md", "text/markdown", func(w io.Writer) error {
		_, err := io.WriteString(w, "# hello\n")
		return err
	})
	require.NoError(t, err)
	assert.EqualValues(t, 8, n)
	id, key, ok := strings.Cut(strings.TrimPrefix(url, strings.TrimPrefix(downloadPrefix, "/")), "?key=")
	require.True(t, ok, url)
	dl, code := d.take(id, key)
	require.Equal(t, http.StatusOK, code)
	assert.True(t, strings.HasPrefix(dl.path, os.TempDir()), dl.path)
	b, err := os.ReadFile(dl.path)
	require.NoError(t, err)
	assert.Equal(t, "# hello\n", string(b))
	require.NoError(t, os.Remove(dl.path))
}
