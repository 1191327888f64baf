package e2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/sync/archivesync"
)

// TestSyncFromSettings sets sync up in the Sync settings (a file:// remote
// and the passphrase another machine created it with), syncs now, and sees
// the status: the last sync with what it pushed and pulled, and the conflict
// of a session both machines hold in diverged versions. The sessions list
// then names the machine each session came from and marks the conflict.
func TestSyncFromSettings(t *testing.T) {
	base := need(t)
	ctx := context.Background()
	remote := filepath.Join(t.TempDir(), "remote")
	const pass = "an e2e passphrase"

	// The other machine: it created the archive's key on the remote and
	// pushed one session of its own and its version of session-e2e-both.
	other := archivesync.Paths{Dir: t.TempDir()}
	oc, _, created, err := archivesync.Setup(ctx, other, "file://"+remote, pass, 10)
	require.NoError(t, err)
	require.True(t, created)
	otherRoot := t.TempDir()
	for _, l := range []*dshgen.Log{
		dshgen.Generate(dshgen.Options{Seed: 81, ID: "session-e2e-theirs", Turns: 3, Cwd: "/home/o/p", ASCII: true}),
		dshgen.Generate(dshgen.Options{Seed: 82, ID: "session-e2e-both", Turns: 3, Cwd: "/home/o/p", ASCII: true}),
	} {
		_, err := l.WriteFile(otherRoot, false)
		require.NoError(t, err)
	}
	otherStore := archive.New(filepath.Join(other.Dir, "logbook.db"))
	require.NoError(t, otherStore.Open(ctx))
	t.Cleanup(func() { _ = otherStore.Close() })
	_, err = otherStore.Import(ctx, []string{otherRoot}, archive.ImportOptions{})
	require.NoError(t, err)
	sum, err := archivesync.SyncAll(ctx, otherStore, other, archivesync.Options{})
	require.NoError(t, err)
	require.Equal(t, 2, sum.Pushed)

	// This machine, served: its own session and its own version of
	// session-e2e-both.
	e := &env{dataDir: t.TempDir(), artifacts: base.artifacts}
	root := filepath.Join(e.dataDir, "sessions")
	for _, l := range []*dshgen.Log{
		dshgen.Generate(dshgen.Options{Seed: 83, ID: "session-e2e-mine", Turns: 3, Cwd: "/home/m/p", ASCII: true}),
		dshgen.Generate(dshgen.Options{Seed: 84, ID: "session-e2e-both", Turns: 4, Cwd: "/home/m/p", ASCII: true}),
	} {
		_, err := l.WriteFile(root, false)
		require.NoError(t, err)
	}
	sctx, cancel := context.WithCancel(ctx)
	e.cancel = cancel
	t.Cleanup(e.close)
	require.NoError(t, e.serve(sctx, []string{root}))

	b := browser(t, e, 1280, 900)
	card := `[data-testid="sync-settings"] `
	open(t, b, e, "#/settings", card+`[data-testid="sync-setup"]`)
	require.NoError(t, chromedp.Do(b,
		chromedp.SendKeys(chromedp.CSS(card+`[data-testid="sync-remote"]`), "file://"+remote),
		chromedp.SendKeys(chromedp.CSS(card+`[data-testid="sync-passphrase"]`), "not the passphrase"),
		chromedp.SendKeys(chromedp.CSS(card+`[data-testid="sync-passphrase2"]`), "not the passphrase"),
		chromedp.Click(chromedp.CSS(card+`[data-testid="sync-setup-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(card+`[data-testid="sync-setup-error"]`))))
	assert.Contains(t, eval[string](t, b, `document.querySelector('[data-testid="sync-setup-error"]').textContent`), "wrong passphrase")
	eval[bool](t, b, `['sync-passphrase', 'sync-passphrase2'].every((id) => {
		const el = document.querySelector('[data-testid="' + id + '"]');
		el.value = '';
		el.dispatchEvent(new Event('input', { bubbles: true }));
		return true;
	})`)
	require.NoError(t, chromedp.Do(b,
		chromedp.SendKeys(chromedp.CSS(card+`[data-testid="sync-passphrase"]`), pass),
		chromedp.SendKeys(chromedp.CSS(card+`[data-testid="sync-passphrase2"]`), pass),
		chromedp.Click(chromedp.CSS(card+`[data-testid="sync-setup-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(card+`[data-testid="sync-machine"]`))))
	machine := eval[string](t, b, `document.querySelector('[data-testid="sync-machine"]').textContent.trim()`)
	assert.NotEmpty(t, machine)
	assert.NotEqual(t, oc.Machine, machine)
	assert.Contains(t, eval[string](t, b, `document.querySelector('[data-testid="sync-last"]').textContent`), "never")
	shot(t, b, e, "settings-sync-set-up")

	require.NoError(t, chromedp.Do(b, chromedp.Click(chromedp.CSS(card+`[data-testid="sync-now"]`))))
	poll(t, b, `document.querySelector('[data-testid="sync-last"]').textContent.includes('pulled')`, "the last sync in the status")
	last := eval[string](t, b, `document.querySelector('[data-testid="sync-last"]').textContent`)
	assert.Contains(t, last, "pushed 2", "this machine's two sessions")
	assert.Contains(t, last, "pulled 1", "the other machine's own session; its diverged version is kept aside")
	poll(t, b, `document.querySelector('[data-testid="sync-conflicts"]').textContent.includes('session-e2e-both')`, "the conflict listed")
	conflicts := eval[string](t, b, `document.querySelector('[data-testid="sync-conflicts"]').textContent`)
	assert.Contains(t, conflicts, oc.Machine)
	assert.Contains(t, conflicts, "(this archive)")
	assert.Contains(t, conflicts, "logbook sync resolve")
	assert.Zero(t, eval[int](t, b, `document.querySelectorAll('[data-testid="sync-errors"]').length`))
	shot(t, b, e, "settings-sync-after-sync")

	// The sessions list: every session names its machine; the conflict is marked.
	open(t, b, e, "#/sessions", `[data-testid="session-row"][data-id="session-e2e-theirs"]`)
	rowMachine := func(id string) string {
		return eval[string](t, b, `(document.querySelector('[data-testid="session-row"][data-id="`+id+`"] [data-testid="session-machine"]') || {}).textContent || ''`)
	}
	poll(t, b, `!!document.querySelector('[data-testid="session-row"][data-id="session-e2e-theirs"] [data-testid="session-machine"]')`, "provenance in the list")
	assert.Equal(t, oc.Machine, rowMachine("session-e2e-theirs"))
	assert.Equal(t, machine, rowMachine("session-e2e-mine"))
	assert.Equal(t, 1, eval[int](t, b, `document.querySelectorAll('[data-testid="sync-conflict"]').length`))
	assert.Equal(t, 1, eval[int](t, b, `document.querySelectorAll('[data-testid="session-row"][data-id="session-e2e-both"] [data-testid="sync-conflict"]').length`))
	shot(t, b, e, "sessions-sync-provenance")
}
