package e2e

import (
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

// TestImportViewUploadsBundle: a person uploads a bundle (made by `logbook
// export --format bundle` on another archive) in the Import view of `logbook
// serve`; the import reports it and its session appears in the list.
func TestImportViewUploadsBundle(t *testing.T) {
	root := t.TempDir()
	l := dshgen.Generate(dshgen.Options{Seed: 33, Turns: 4, Cwd: "/home/dev/uploaded"})
	_, err := l.WriteFile(root, false)
	require.NoError(t, err)
	elsewhere := t.TempDir()
	runCLI(t, elsewhere, "import", root)
	file := filepath.Join(t.TempDir(), "shared.logbook")
	runCLI(t, elsewhere, "export", l.ID(), "--format", "bundle", "-o", file)

	e := serveRoots(t, t.TempDir()) // an empty root: the session comes only from the bundle
	b := browser(t, e, 1280, 900)
	open(t, b, e, "#/import", `[data-testid="import-bundle"]`)
	require.NoError(t, chromedp.Do(b, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="bundle-file"]`), []string{file})))
	poll(t, b, `[...document.querySelectorAll('[data-testid="bundle-line"]')].some((p) => p.textContent.includes('1 of 1 session(s) imported as exported'))`,
		"the bundle's import report")
	shot(t, b, e, "import-bundle-uploaded")

	open(t, b, e, "#/sessions", `[data-testid="session-row"]`)
	poll(t, b, `!!document.querySelector('[data-testid="session-row"][data-id="`+l.ID()+`"]')`, "the bundle's session in the list")
}
