package archivesync_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/sync/archivesync"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/fsremote"
)

// configure writes s's sync.json, as `logbook sync init` does, which
// Resolve reads.
func configure(t *testing.T, s *archivesync.Syncer, remote string) {
	t.Helper()
	require.NoError(t, archivesync.SaveConfig(s.Paths, archivesync.Config{Remote: remote, Machine: s.Machine}))
}

// Keeping another machine's version of a session this machine reads from an
// agent's log: the archive serves the other version, the agent's log is
// never written, and importing the log again does not take the session
// back, unchanged or grown. Sync settles: no conflict, nothing pushed for
// it, the session named after the other machine.
func TestResolveKeepsAnotherVersionOfALocalLog(t *testing.T) {
	ctx := context.Background()
	key, err := crypt.Generate()
	require.NoError(t, err)
	dir := t.TempDir()
	remote := fsremote.New(dir)
	theirs := dshgen.Generate(dshgen.Options{Seed: 71, ID: "session-c", Cwd: "/p", Turns: 5, NoPack: true})
	ours := dshgen.Generate(dshgen.Options{Seed: 72, ID: "session-c", Cwd: "/p", Turns: 3, NoPack: true})
	a := machine(t, remote, key, "a", theirs)
	_, err = a.Push(ctx)
	require.NoError(t, err)

	b := machine(t, remote, key, "b")
	configure(t, b, dir)
	root := t.TempDir()
	local, err := ours.WriteFile(root, false)
	require.NoError(t, err)
	_, err = b.Archive.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	_, err = b.Push(ctx)
	require.NoError(t, err)
	pr, err := b.Pull(ctx)
	require.NoError(t, err)
	require.Len(t, pr.Conflicts, 1)

	rep, err := archivesync.Resolve(ctx, b.Archive, b.Paths, "session-c", "a", archive.ImportOptions{})
	require.NoError(t, err)
	require.NotNil(t, rep)
	assert.Equal(t, string(theirs.JSONL()), exportOf(t, b, "session-c"), "the other machine's version is served")
	onDisk, err := os.ReadFile(local)
	require.NoError(t, err)
	assert.Equal(t, ours.JSONL(), onDisk, "the agent's log is never written")
	info, err := b.Archive.SyncInfo(ctx)
	require.NoError(t, err)
	assert.Equal(t, "a", info["session-c"].Machine)
	assert.Empty(t, info["session-c"].Conflict)

	// The unchanged log imported again (the next `logbook import`, the
	// watcher) does not take the session back.
	ir, err := b.Archive.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, ir.Files, 1)
	assert.Equal(t, "unchanged", ir.Files[0].Action)
	assert.Equal(t, string(theirs.JSONL()), exportOf(t, b, "session-c"))

	// Sync is settled: nothing to pull, b publishes nothing for it.
	pr, err = b.Pull(ctx)
	require.NoError(t, err)
	assert.Empty(t, pr.Conflicts)
	assert.Zero(t, pr.Pulled)
	push, err := b.Push(ctx)
	require.NoError(t, err)
	assert.Zero(t, push.Sessions, "b's manifest no longer lists its own version")
	assert.Equal(t, 1, push.FromOthers)

	// The agent writes on: the log is a duplicate of the kept version, the
	// choice holds, and its bytes stay in the log.
	f, err := os.OpenFile(local, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"turn/start","seq":100000,"time":1,"data":{"turn":99}}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	ir, err = b.Archive.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, ir.Files, 1)
	assert.Equal(t, "duplicate", ir.Files[0].Action)
	assert.Equal(t, string(theirs.JSONL()), exportOf(t, b, "session-c"))
	sess, err := b.Archive.Session(ctx, "session-c")
	require.NoError(t, err)
	assert.True(t, filepath.IsAbs(sess.Path))
	assert.NotEqual(t, local, sess.Path, "the archive reads the kept version, not the log")
}
