package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
	"github.com/logbook/logbook/export/exporttest"
)

var (
	cliOnce sync.Once
	cliBin  string
	cliErr  error
)

// logbookCLI builds the logbook binary once for the package's tests that run it.
func logbookCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "logbook-e2e-cli-")
		if err != nil {
			cliErr = err
			return
		}
		cliBin = filepath.Join(dir, "logbook")
		build := exec.Command("go", "build", "-o", cliBin, ".")
		build.Dir = repoRoot()
		if out, err := build.CombinedOutput(); err != nil {
			cliErr = err
			cliBin = string(out)
		}
	})
	require.NoError(t, cliErr, "build logbook: %s", cliBin)
	return cliBin
}

// runCLI runs `logbook --data data ARGS` and returns its stdout, failing on a
// non-zero exit.
func runCLI(t *testing.T, data string, args ...string) string {
	t.Helper()
	cmd := exec.Command(logbookCLI(t), append([]string{"--data", data}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DSH_HOME=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "logbook %v: %s", args, errb.String())
	return out.String()
}

// serveRoots serves a data dir that has imported roots.
func serveRoots(t *testing.T, roots ...string) *env {
	t.Helper()
	base := need(t)
	e := &env{dataDir: t.TempDir(), artifacts: base.artifacts}
	sctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	t.Cleanup(e.close)
	require.NoError(t, e.serve(sctx, roots))
	return e
}

// keepDownloads makes the page keep what it hands to a download.
func keepDownloads(t *testing.T, b context.Context) {
	t.Helper()
	eval[bool](t, b, `(() => { window.__blobs = []; const o = URL.createObjectURL.bind(URL);
		URL.createObjectURL = (x) => { window.__blobs.push(x); return o(x); }; return true })()`)
}

// downloaded is the bytes of the page's nth download, written to a file name.
func downloaded(t *testing.T, b context.Context, n int, name string) string {
	t.Helper()
	poll(t, b, `window.__blobs.length > `+strconv.Itoa(n), "the download")
	b64 := eval[string](t, b, `(async () => { const a = new Uint8Array(await window.__blobs[`+strconv.Itoa(n)+`].arrayBuffer());
		let s = ''; for (let i = 0; i < a.length; i += 0x8000) s += String.fromCharCode(...a.subarray(i, i + 0x8000)); return btoa(s) })()`)
	raw, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, raw, 0o644))
	return p
}

// entries reads every entry of the zip file p.
func entries(t *testing.T, p string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(p)
	require.NoError(t, err, "the download is a zip file")
	defer zr.Close()
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		out[f.Name] = string(b)
	}
	return out
}

// sameOriginal checks that session id comes back from data as e archived it,
// byte for byte: a dsh session's JSONL, an OpenHands conversation's files.
func sameOriginal(t *testing.T, e *env, data, id, agent string) {
	t.Helper()
	ctx := context.Background()
	if agent == "dsh" {
		var want bytes.Buffer
		require.NoError(t, e.store.ExportJSONL(ctx, id, &want))
		got := runCLI(t, data, "export", id)
		assert.True(t, want.String() == got, "session %s: the JSONL differs (%d and %d bytes)", id, want.Len(), len(got))
		return
	}
	want, got := filepath.Join(t.TempDir(), "want"), filepath.Join(t.TempDir(), "got")
	require.NoError(t, e.store.ExportOriginal(ctx, id, want))
	runCLI(t, data, "export", id, "--format", "openhands", "-o", got)
	assert.Equal(t, openhandstest.ReadTree(t, want), openhandstest.ReadTree(t, got), "session %s: the original files differ", id)
}

// The Export dialog writes a bundle: from a conversation (that session), and from
// search results (their sessions, a real OpenHands conversation among them); the
// downloads are re-imported by `logbook import` into a fresh data dir with every
// original byte-identical. A redacted bundle goes through the same review of
// findings and holds no planted secret.
func TestExportDialogBundle(t *testing.T) {
	root := t.TempDir()
	a := dshgen.Generate(dshgen.Options{Seed: 21, Turns: 4, Cwd: "/home/dev/bundle"})
	_, err := a.WriteFile(root, true) // a compressed log
	require.NoError(t, err)
	planted, c := exporttest.Planted(9, "session-planted-bundle")
	_, err = planted.WriteFile(root, false)
	require.NoError(t, err)
	oh := filepath.Join(repoRoot(), "..", "shared", "corpus", "openhands", "OpenHands-CLI", "tests", "trajectories", "cli447_hi_followup_iterative_case_a")
	roots := []string{root}
	if _, err := os.Stat(oh); err == nil {
		roots = append(roots, oh)
	} else if os.Getenv("CI") != "" {
		t.Fatalf("the OpenHands corpus is missing in CI: %v", err)
	}
	e := serveRoots(t, roots...)
	agents := map[string]string{a.ID(): "dsh", planted.ID(): "dsh"}
	if len(roots) == 2 {
		agents["cli447_hi_followup_iterative_case_a"] = "openhands"
	}

	t.Run("Conversation", func(t *testing.T) {
		b := browser(t, e, 1280, 900)
		open(t, b, e, "#/session/"+a.ID(), `[data-testid="export-open"]`)
		keepDownloads(t, b)
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-open"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="export-format-bundle"]`))))
		assert.Zero(t, eval[int](t, b, `document.querySelectorAll('[data-testid="export-part"]').length`), "a bundle holds whole sessions")
		shot(t, b, e, "export-dialog-bundle")
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
		assert.Contains(t, eval[string](t, b, `document.querySelector('[data-testid="export-done"]').textContent`), a.ID()+".logbook")
		file := downloaded(t, b, 0, "a.logbook")
		fresh := t.TempDir()
		runCLI(t, fresh, "import", file)
		sameOriginal(t, e, fresh, a.ID(), "dsh")
		assert.NotContains(t, runCLI(t, fresh, "sessions"), planted.ID(), "the one session only")
	})

	t.Run("SearchResults", func(t *testing.T) {
		b := browser(t, e, 1280, 900)
		open(t, b, e, "#/search?q=kind:human", `[data-testid="search-export-open"]`) // a prompt: every session has one
		keepDownloads(t, b)
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="search-export-open"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`))))
		assert.Contains(t, eval[string](t, b, `document.querySelector('[data-testid="export-dialog"] h2').textContent`),
			"Export "+strconv.Itoa(len(agents))+" sessions")
		assert.Equal(t, 1, eval[int](t, b, `document.querySelectorAll('[data-testid="export-dialog"] input[name="format"]').length`), "a bundle only")
		assert.True(t, eval[bool](t, b, `document.querySelector('[data-testid="export-format-bundle"]').checked`))
		shot(t, b, e, "export-dialog-search-bundle")
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
		file := downloaded(t, b, 0, "results.logbook")
		fresh := t.TempDir()
		out := runCLI(t, fresh, "import", file)
		assert.Contains(t, out, "0 corrupt")
		for id, agent := range agents {
			sameOriginal(t, e, fresh, id, agent)
		}
		// Imported again: nothing changes.
		again := runCLI(t, fresh, "import", "--json", file)
		assert.NotContains(t, again, `"changed": true`)
	})

	t.Run("Redacted", func(t *testing.T) {
		b := browser(t, e, 1280, 900)
		open(t, b, e, "#/session/"+planted.ID(), `[data-testid="export-open"]`)
		keepDownloads(t, b)
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-open"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="export-format-bundle"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="export-redact"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-category"][data-category="token"]`))))
		require.NoError(t, chromedp.Do(b, chromedp.SendKeys(chromedp.CSS(`[data-testid="export-names"]`), strings.Join(c.UserNames, ", ")+"\t")))
		poll(t, b, `(() => { const p = document.querySelector('[data-testid="export-findings"] p'); return p && !p.textContent.startsWith('Scanning') })()`, "the findings")
		shot(t, b, e, "export-dialog-bundle-redact")
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
		files := entries(t, downloaded(t, b, 0, "redacted.logbook"))
		assert.Contains(t, files["manifest.json"], `"redacted": true`)
		assert.Contains(t, files["sessions/1/session.md"], "[REDACTED:")
		for name, body := range files {
			assert.False(t, strings.HasPrefix(name, "sessions/1/source/"), "a redacted bundle holds no original log: %s", name)
			for _, o := range c.Occurrences {
				assert.NotContains(t, body, o.Secret.Value, "a planted %s secret in %s", o.Kind, name)
			}
		}
	})
}
