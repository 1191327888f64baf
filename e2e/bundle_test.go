package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
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

// saved is where a tab's downloads land, as Chromium saves them: each streamed to
// a file of the folder, named by its GUID.
type saved struct {
	dir   string
	mu    sync.Mutex
	names map[string]string // GUID → the name the browser was told (Content-Disposition)
	urls  []string          // what the downloads fetched
	done  []string          // GUIDs of the completed downloads, in order
}

// keepDownloads makes the tab save its downloads into a folder of the test.
func keepDownloads(t *testing.T, b context.Context) *saved {
	t.Helper()
	s := &saved{dir: t.TempDir(), names: map[string]string{}}
	on := func(ev any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch e := ev.(type) {
		case *cdpbrowser.EventDownloadWillBegin:
			s.names[e.GUID] = e.SuggestedFilename
			s.urls = append(s.urls, e.URL)
		case *cdpbrowser.EventDownloadProgress:
			if e.State == cdpbrowser.DownloadProgressStateCompleted && !slices.Contains(s.done, e.GUID) {
				s.done = append(s.done, e.GUID)
			}
		}
	}
	require.NoError(t, chromedp.Listen(b, on))
	require.NoError(t, chromedp.ListenBrowser(b, on))
	events := true
	_, err := chromedp.Call(b, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: s.dir, EventsEnabled: &events})
	require.NoError(t, err)
	return s
}

// downloaded waits for the tab's nth download (from 0) to complete and returns
// the file it was saved to, checking the name it was saved under.
func downloaded(t *testing.T, s *saved, n int, name string) string {
	t.Helper()
	var guid string
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.done) > n {
			guid = s.done[n]
			return true
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "download %d", n)
	s.mu.Lock()
	got := s.names[guid]
	s.mu.Unlock()
	if name != "" {
		assert.Equal(t, name, got, "the name the download is saved under")
	}
	return filepath.Join(s.dir, guid)
}

// readFile is the text of file p.
func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
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
		dl := keepDownloads(t, b)
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-open"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="export-format-bundle"]`))))
		assert.Zero(t, eval[int](t, b, `document.querySelectorAll('[data-testid="export-part"]').length`), "a bundle holds whole sessions")
		shot(t, b, e, "export-dialog-bundle")
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
		assert.Contains(t, eval[string](t, b, `document.querySelector('[data-testid="export-done"]').textContent`), a.ID()+".logbook")
		file := downloaded(t, dl, 0, a.ID()+".logbook")
		fresh := t.TempDir()
		runCLI(t, fresh, "import", file)
		sameOriginal(t, e, fresh, a.ID(), "dsh")
		assert.NotContains(t, runCLI(t, fresh, "sessions"), planted.ID(), "the one session only")
	})

	t.Run("SearchResults", func(t *testing.T) {
		b := browser(t, e, 1280, 900)
		open(t, b, e, "#/search?q=kind:human", `[data-testid="search-export-open"]`) // a prompt: every session has one
		dl := keepDownloads(t, b)
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="search-export-open"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`))))
		poll(t, b, `document.querySelector('[data-testid="export-dialog"] h2').textContent === `+
			strconv.Quote("Export "+strconv.Itoa(len(agents))+" sessions"), "the number of sessions")
		assert.Equal(t, 1, eval[int](t, b, `document.querySelectorAll('[data-testid="export-dialog"] input[name="format"]').length`), "a bundle only")
		assert.True(t, eval[bool](t, b, `document.querySelector('[data-testid="export-format-bundle"]').checked`))
		shot(t, b, e, "export-dialog-search-bundle")
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
		file := downloaded(t, dl, 0, "logbook-"+strconv.Itoa(len(agents))+"-sessions.logbook")
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
		dl := keepDownloads(t, b)
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
		files := entries(t, downloaded(t, dl, 0, planted.ID()+".logbook"))
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
