package app

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/redact"
	"github.com/logbook/logbook/sync/follow"
)

// exportedBundle imports a generated session into a fresh app, exports it as a
// bundle with the Export dialog's exporter and returns the bundle's bytes and
// the session's id.
func exportedBundle(t *testing.T) ([]byte, string) {
	t.Helper()
	src := newTestApp(t)
	l := src.generate(t, 21, "/home/u/bundled")
	src.importNow(t)
	f, err := src.Export(l.ID(), ExportOptions{Format: "bundle"}, redact.Decisions{})
	require.NoError(t, err)
	return []byte(fetched(t, src.App, f)), l.ID()
}

// TestImportBundleUnderRoot: a bundle under an import root is unpacked into the
// data directory and its session imported by the next import, as `logbook
// import` does; a second import finds it unchanged.
func TestImportBundleUnderRoot(t *testing.T) {
	raw, id := exportedBundle(t)
	ta := newTestApp(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ta.root, "shared"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ta.root, "shared", "from-a-colleague.logbook"), raw, 0o644))

	run := ta.importNow(t)
	require.Empty(t, run.Error)
	require.NotNil(t, run.Summary)
	assert.Equal(t, 1, run.Summary.Files)
	assert.Equal(t, 1, run.Summary.OK)
	assert.Equal(t, 1, run.Summary.Changed)
	require.Len(t, run.Bundles, 1)
	assert.Contains(t, run.Bundles[0], "1 of 1 session(s) imported as exported")
	s, err := ta.deps.Archive.Session(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, id, s.ID)
	files, err := ta.deps.Archive.SessionFiles(context.Background(), id)
	require.NoError(t, err)
	require.NotEmpty(t, files)
	assert.True(t, strings.HasPrefix(files[0].Path, filepath.Join(ta.deps.DataDir, export.BundlesDir)), files[0].Path)

	again := ta.importNow(t)
	require.Empty(t, again.Error)
	assert.Equal(t, 1, again.Summary.Files)
	assert.Equal(t, 1, again.Summary.Unchanged)
	assert.Equal(t, 0, again.Summary.Changed)

	t.Run("a damaged bundle costs its session only", func(t *testing.T) {
		bad := append([]byte(nil), raw...)
		bad = bad[:len(bad)/2] // cut short: the directory and manifest are lost
		require.NoError(t, os.WriteFile(filepath.Join(ta.root, "cut.logbook"), bad, 0o644))
		run := ta.importNow(t)
		require.Empty(t, run.Error)
		assert.GreaterOrEqual(t, run.Summary.Corrupt, 1, "the cut bundle is reported")
		assert.Equal(t, 1, run.Summary.Unchanged, "the whole bundle still imports")
	})
}

// TestBundleUpload: a browser uploads a bundle, which is kept in the data
// directory and imported once; one too large gets 413, a file that is no bundle
// 400, both with a message that says why.
func TestBundleUpload(t *testing.T) {
	raw, id := exportedBundle(t)
	ts := newTestServerWith(t, func(d *Deps) { d.MaxBundleUpload = int64(len(raw)) + 10 })
	upload := func(body []byte, name string, auth bool) (int, string) {
		r := ts.req(t, "POST", "/api/upload/bundle", "", auth)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Type", "application/octet-stream")
		r.Header.Set("X-Logbook-Filename", name)
		resp, b := do(t, r)
		return resp.StatusCode, b
	}

	code, body := upload(raw, "s.logbook", false)
	assert.Equal(t, http.StatusUnauthorized, code, body)

	code, body = upload(append(raw, make([]byte, 64)...), "big.logbook", true)
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
	assert.Contains(t, body, "larger than")
	code, body = upload([]byte("just some text, not a zip"), "notes.txt", true)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, `\"notes.txt\" is not a Logbook bundle`)

	code, body = upload(raw, "s.logbook", true)
	require.Equal(t, http.StatusOK, code, body)
	run := ts.waitImport(t)
	require.Empty(t, run.Error)
	assert.Equal(t, 1, run.Summary.OK)
	assert.Equal(t, 1, run.Summary.Changed)
	assert.Contains(t, body, filepath.Join(ts.deps.DataDir, export.BundlesDir, uploadsDir))
	_, err := ts.deps.Archive.Session(context.Background(), id)
	require.NoError(t, err)

	code, body = upload(raw, "s.logbook", true)
	require.Equal(t, http.StatusOK, code, body)
	run = ts.waitImport(t)
	assert.Equal(t, 1, run.Summary.Unchanged, "the same bundle again changes nothing")
	ups, err := os.ReadDir(filepath.Join(ts.deps.DataDir, export.BundlesDir, uploadsDir))
	require.NoError(t, err)
	assert.Len(t, ups, 1, "one file per bundle, no leftovers")
}

// TestFollowImportsBundle: with live follow on, a bundle copied into a root is
// imported within moments, as a session log written there is.
func TestFollowImportsBundle(t *testing.T) {
	raw, id := exportedBundle(t)
	ta := newTestApp(t, func(d *Deps) { d.Follow = true; d.Logger = quietLogger() })
	require.Eventually(t, func() bool {
		st, _ := ta.FollowStatus()
		return st.On && len(st.Roots) == 1 && st.Roots[0].Mode == follow.Watching
	}, 5*time.Second, 10*time.Millisecond)
	p := filepath.Join(ta.root, "dropped.logbook")
	require.NoError(t, os.WriteFile(p+".part", raw, 0o644))
	require.NoError(t, os.Rename(p+".part", p)) // as a browser's download lands
	require.Eventually(t, func() bool {
		_, err := ta.deps.Archive.Session(context.Background(), id)
		return err == nil
	}, 10*time.Second, 20*time.Millisecond)
}

// openingShell is a desktop window whose open-file dialog answers path.
type openingShell struct {
	fakeShell
	path string
}

func (s *openingShell) OpenFile(string, string) (string, error) { return s.path, nil }

// TestImportBundleFile: in the desktop window the person picks a bundle in the
// file dialog and it is imported once; cancelling imports nothing; outside the
// window the method says to upload instead.
func TestImportBundleFile(t *testing.T) {
	raw, id := exportedBundle(t)
	ta := newTestApp(t)
	_, err := ta.ImportBundleFile()
	require.Error(t, err)
	assert.Contains(t, FormatError(err), "upload the bundle")

	sh := &openingShell{}
	ta.hub.attach(sh)
	got, err := ta.ImportBundleFile()
	require.NoError(t, err)
	assert.Empty(t, got, "cancelled")

	sh.path = filepath.Join(t.TempDir(), "not-a-bundle.txt")
	require.NoError(t, os.WriteFile(sh.path, []byte("hello"), 0o644))
	_, err = ta.ImportBundleFile()
	require.Error(t, err)
	assert.Contains(t, FormatError(err), "is not a Logbook bundle")

	sh.path = filepath.Join(t.TempDir(), "picked.logbook")
	require.NoError(t, os.WriteFile(sh.path, raw, 0o644))
	got, err = ta.ImportBundleFile()
	require.NoError(t, err)
	assert.Equal(t, sh.path, got)
	run := ta.waitImport(t)
	require.Empty(t, run.Error)
	assert.Equal(t, []string{sh.path}, run.Roots)
	assert.Equal(t, 1, run.Summary.OK)
	_, err = ta.deps.Archive.Session(context.Background(), id)
	require.NoError(t, err)
}

// TestBundleUploadWhileImporting: an upload while an import runs gets 409 and
// leaves nothing in DATA/imported-bundles/uploads: refused before its body is
// read, or, when the import began while it arrived, its file removed again (but
// not the file an earlier upload of the same bundle kept).
func TestBundleUploadWhileImporting(t *testing.T) {
	raw, _ := exportedBundle(t)
	ts := newTestServer(t)
	uploads := filepath.Join(ts.deps.DataDir, export.BundlesDir, uploadsDir)
	kept := func() []string {
		ents, err := os.ReadDir(uploads)
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
	sh := &fakeShell{block: EventImportProgress, blocked: make(chan struct{}), release: make(chan struct{})}
	ts.hub.attach(sh)
	ts.generate(t, 12, "/home/u/c")
	require.NoError(t, ts.StartImport())
	<-sh.blocked // an import runs, held at its first progress event

	r := ts.req(t, "POST", "/api/upload/bundle", "", true)
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
	r.Header.Set("Content-Type", "application/octet-stream")
	resp, body := do(t, r)
	assert.Equal(t, http.StatusConflict, resp.StatusCode, body)
	assert.Contains(t, body, "an import is already running")
	assert.Empty(t, kept(), "nothing kept of a refused upload")

	// The import began while the bundle arrived: refused once kept, and removed.
	_, err := ts.importUpload(bytes.NewReader(raw), "late.logbook")
	assert.Equal(t, http.StatusConflict, errorStatus(err))
	assert.Empty(t, kept(), "the refused upload's file is removed")

	close(sh.release)
	ts.waitImport(t)
	p, err := ts.importUpload(bytes.NewReader(raw), "s.logbook")
	require.NoError(t, err)
	ts.waitImport(t)
	require.Equal(t, []string{filepath.Base(p)}, kept())

	// The same bundle again while an import runs: refused, the earlier file stays.
	sh2 := &fakeShell{block: EventImportProgress, blocked: make(chan struct{}), release: make(chan struct{})}
	ts.hub.attach(sh2)
	ts.generate(t, 13, "/home/u/d")
	require.NoError(t, ts.StartImport())
	<-sh2.blocked
	_, err = ts.importUpload(bytes.NewReader(raw), "again.logbook")
	assert.Equal(t, http.StatusConflict, errorStatus(err))
	assert.Equal(t, []string{filepath.Base(p)}, kept(), "the bundle an earlier upload kept stays")
	close(sh2.release)
	ts.waitImport(t)
}

// TestFollowLeavesBundleBeingCopied: live follow of a bundle still being copied
// in unpacks nothing of it (no cut-<hash> folder per partial state); once whole,
// it is unpacked.
func TestFollowLeavesBundleBeingCopied(t *testing.T) {
	raw, _ := exportedBundle(t)
	ta := newTestApp(t, func(d *Deps) { d.Logger = quietLogger() })
	p := filepath.Join(ta.root, "copying.logbook")
	for _, n := range []int{len(raw) / 3, 2 * len(raw) / 3} {
		require.NoError(t, os.WriteFile(p, raw[:n], 0o644))
		paths, bundles, err := ta.followBundles(context.Background(), []string{p})
		require.NoError(t, err)
		assert.Empty(t, paths)
		assert.Empty(t, bundles)
	}
	_, err := os.Stat(filepath.Join(ta.deps.DataDir, export.BundlesDir))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing unpacked from a bundle not whole yet")

	require.NoError(t, os.WriteFile(p, raw, 0o644))
	paths, bundles, err := ta.followBundles(context.Background(), []string{p})
	require.NoError(t, err)
	assert.NotEmpty(t, paths)
	assert.Len(t, bundles, 1)
}
