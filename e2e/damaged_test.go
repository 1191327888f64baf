package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
)

// TestDamagedUpstreamSession archives a session, damages its source, and serves the
// archive: the sessions list marks it damaged, and the conversation says the file
// was damaged after it was archived and shows the last good version whole.
func TestDamagedUpstreamSession(t *testing.T) {
	base := need(t)
	e := &env{dataDir: t.TempDir(), artifacts: base.artifacts}
	root := filepath.Join(e.dataDir, "sessions")
	l := dshgen.Generate(dshgen.Options{Seed: 31, Turns: 6, Cwd: "/home/u/damaged", ASCII: true})
	path, err := l.WriteFile(root, false)
	require.NoError(t, err)
	ctx := context.Background()
	s := archive.New(filepath.Join(e.dataDir, "logbook.db"))
	require.NoError(t, s.Open(ctx))
	_, err = s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.SplitAfter(good, []byte("\n"))
	bad := append(bytes.Join(lines[:6], nil), []byte("{damaged\n")...)
	bad = append(bad, bytes.Join(lines[7:], nil)...)
	require.NoError(t, os.WriteFile(path, bad, 0o644))

	sctx, cancel := context.WithCancel(ctx)
	e.cancel = cancel
	t.Cleanup(e.close)
	require.NoError(t, e.serve(sctx, []string{root}))

	b := browser(t, e, 1280, 800)
	open(t, b, e, "#/sessions", `[data-testid="session-row"]`)
	poll(t, b, `document.body.innerText.includes('damaged')`, "the damaged badge")
	shot(t, b, e, "sessions-damaged")
	open(t, b, e, "#/session/"+l.ID(), `[data-testid="item"]`)
	poll(t, b, `document.body.innerText.includes('damaged upstream after it was archived')`, "the damaged-upstream notice")
	poll(t, b, `document.body.innerText.includes('last good version')`, "the last good version is named")
	shot(t, b, e, "conversation-damaged")
}
