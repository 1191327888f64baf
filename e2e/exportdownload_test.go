package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
	"github.com/logbook/logbook/export"
)

// exportFrom opens the Export dialog at route (its opener export-open or
// search-export-open), picks format when set, exports and returns the file the
// browser saved, checked to be saved under name.
func exportFrom(t *testing.T, e *env, route, opener, format, name string) (string, *saved) {
	t.Helper()
	b := browser(t, e, 1280, 900)
	open(t, b, e, route, `[data-testid="`+opener+`"]`)
	dl := keepDownloads(t, b)
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="`+opener+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`))))
	if format != "" {
		require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-format-`+format+`"]`))))
	}
	poll(t, b, `!document.querySelector('[data-testid="export-go"]').disabled`, "the Export button")
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
	return downloaded(t, dl, 0, name), dl
}

// The browser's export is a streamed download of the very bytes `logbook
// export` writes, in every format the dialog offers; the download's URL carries
// its one-time key, never the page's token.
func TestExportDownloadIsTheCLIBytes(t *testing.T) {
	l := dshgen.Generate(dshgen.Options{Seed: 41, Turns: 5, Cwd: "/home/dev/download"})
	e := serveLog(t, l)
	for _, format := range []string{"md", "html", "jsonl", "bundle"} {
		t.Run(format, func(t *testing.T) {
			ext := format
			if format == "bundle" {
				ext = "logbook"
			}
			file, dl := exportFrom(t, e, "#/session/"+l.ID(), "export-open", format, l.ID()+"."+ext)
			require.Len(t, dl.urls, 1)
			assert.Contains(t, dl.urls[0], "/api/download/")
			assert.NotContains(t, dl.urls[0], e.server.Token(), "the page's token stays out of the download's URL")
			if format != "bundle" {
				got := readFile(t, file)
				want := runCLI(t, e.dataDir, "export", l.ID(), "--format", format)
				assert.True(t, want == got, "%s: the download (%d bytes) is not the CLI's export (%d bytes)", format, len(got), len(want))
				return
			}
			cli := filepath.Join(t.TempDir(), "cli.logbook")
			runCLI(t, e.dataDir, "export", l.ID(), "--format", "bundle", "-o", cli)
			got, want := entries(t, file), entries(t, cli)
			require.Equal(t, len(want), len(got))
			for name, body := range want {
				if name == export.ManifestName {
					continue // says how its sessions were chosen: the dialog, or the command line
				}
				assert.True(t, body == got[name], "bundle entry %s differs from the CLI's", name)
			}
			var gm, wm export.Manifest
			require.NoError(t, json.Unmarshal([]byte(got[export.ManifestName]), &gm))
			require.NoError(t, json.Unmarshal([]byte(want[export.ManifestName]), &wm))
			gm.Selection, wm.Selection = "", ""
			assert.Equal(t, wm, gm, "the manifests differ only in how the session was chosen")
		})
	}
}

// The Export dialog of search results exports every session the search finds,
// not only those of the pages loaded: it says how many before it builds the
// bundle, and the bundle holds them all, as `logbook export --query` chooses them.
func TestExportSearchResultsEveryPage(t *testing.T) {
	root := t.TempDir()
	var want []string
	for i := range 45 {
		l := dshgen.Generate(dshgen.Options{Seed: uint64(500 + i), Turns: 2, Cwd: "/home/dev/many", ASCII: true})
		_, err := l.WriteFile(root, false)
		require.NoError(t, err)
		want = append(want, l.ID())
	}
	other := dshgen.Generate(dshgen.Options{Seed: 499, Turns: 2, Cwd: "/home/dev/other", ASCII: true})
	_, err := other.WriteFile(root, false)
	require.NoError(t, err)
	e := serveRoots(t, root)
	const q = "project:/home/dev/many"

	b := browser(t, e, 1280, 900)
	open(t, b, e, "#/search?q="+q, `[data-testid="search-export-open"]`)
	summary := eval[string](t, b, `document.querySelector('.summary').textContent`)
	m := regexp.MustCompile(`showing [\d,]+ in (\d+) session`).FindStringSubmatch(summary)
	require.NotNil(t, m, "the first page shows part of the results: %q", summary)
	loaded, _ := strconv.Atoi(m[1])
	require.Less(t, loaded, len(want), "the loaded page holds fewer sessions than the search finds")

	dl := keepDownloads(t, b)
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="search-export-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-dialog"]`))))
	poll(t, b, `document.querySelector('[data-testid="export-title"]').textContent === "Export 45 sessions"`, "the number of sessions")
	shot(t, b, e, "export-dialog-search-every-page")
	// The redaction review covers every one of them.
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-redact"]`))))
	poll(t, b, `(() => { const p = document.querySelector('[data-testid="export-findings"] p'); return p && / of 45 sessions| in 45 sessions/.test(p.textContent) })()`,
		"the findings of all 45 sessions")
	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="export-redact"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="export-go"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-done"]`))))
	files := entries(t, downloaded(t, dl, 0, "logbook-45-sessions.logbook"))
	var man export.Manifest
	require.NoError(t, json.Unmarshal([]byte(files[export.ManifestName]), &man))
	var got []string
	for _, s := range man.Sessions {
		got = append(got, s.ID)
	}
	assert.ElementsMatch(t, want, got, "the bundle holds every session the search finds")

	// `logbook export --query` chooses the same sessions (on a copy of the data:
	// the server holds the index).
	data := t.TempDir()
	require.NoError(t, os.CopyFS(data, os.DirFS(e.dataDir)))
	for _, lock := range []string{"logbook.lock", filepath.Join("index", "holder.json")} {
		_ = os.Remove(filepath.Join(data, lock))
	}
	cli := filepath.Join(t.TempDir(), "cli.logbook")
	runCLI(t, data, "export", "--format", "bundle", "--query", q, "-o", cli)
	require.NoError(t, json.Unmarshal([]byte(entries(t, cli)[export.ManifestName]), &man))
	got = got[:0]
	for _, s := range man.Sessions {
		got = append(got, s.ID)
	}
	assert.ElementsMatch(t, want, got, "the CLI's bundle of the search holds the same sessions")
	assert.False(t, strings.Contains(strings.Join(got, " "), other.ID()))
}

// An OpenHands conversation's original files download as one zip of them, each
// the very bytes `logbook export --format openhands -o DIR` writes.
func TestExportDownloadOpenHandsIsTheCLIFiles(t *testing.T) {
	oh := filepath.Join(repoRoot(), "..", "shared", "corpus", "openhands", "OpenHands-CLI", "tests", "trajectories", "cli447_hi_followup_iterative_case_a")
	if _, err := os.Stat(oh); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the OpenHands corpus is missing in CI: %v", err)
		}
		t.Skip("the shared corpus is not on this machine")
	}
	e := serveRoots(t, oh)
	const id = "cli447_hi_followup_iterative_case_a"
	file, _ := exportFrom(t, e, "#/session/"+id, "export-open", "openhands", id+"-openhands.zip")
	dir := filepath.Join(t.TempDir(), "cli")
	runCLI(t, e.dataDir, "export", id, "--format", "openhands", "-o", dir)
	assert.Equal(t, openhandstest.ReadTree(t, dir), entries(t, file))
}
