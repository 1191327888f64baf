package archivesync_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
	"github.com/logbook/logbook/archive/openhandsgen"
	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/archivesync"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/fsremote"
	"github.com/logbook/logbook/sync/repo"
)

// machine is one data directory syncing through remote.
func machine(t *testing.T, remote arcsync.Remote, key *crypt.Key, name string, logs ...*dshgen.Log) *archivesync.Syncer {
	t.Helper()
	ctx := context.Background()
	store := archivetest.MustOpen(t)
	root := t.TempDir()
	for _, l := range logs {
		_, err := l.WriteFile(root, false)
		require.NoError(t, err)
	}
	if len(logs) > 0 {
		rep, err := store.Import(ctx, []string{root}, archive.ImportOptions{})
		require.NoError(t, err)
		require.Equal(t, len(logs), rep.Summary.OK)
	}
	return archivesync.New(store, repo.New(remote, key), archivesync.Paths{Dir: t.TempDir()}, name)
}

// cancelAfter cancels its context once n data pieces were stored.
type cancelAfter struct {
	arcsync.Remote
	n      int64
	puts   atomic.Int64
	cancel context.CancelFunc
}

func (c *cancelAfter) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	if !strings.HasPrefix(name, "data/") {
		return c.Remote.Put(ctx, name, r, size)
	}
	if c.puts.Load() >= c.n {
		c.cancel()
		return ctx.Err()
	}
	err := c.Remote.Put(ctx, name, r, size)
	if err == nil {
		c.puts.Add(1)
	}
	return err
}

func TestPushResumesAfterInterruption(t *testing.T) {
	ctx := context.Background()
	key, err := crypt.Generate()
	require.NoError(t, err)
	remote := fsremote.New(t.TempDir())
	big := dshgen.Generate(dshgen.Options{Seed: 7, Cwd: "/p", TargetBytes: 8 << 20})
	a := machine(t, remote, key, "a", big)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cut := &cancelAfter{Remote: remote, n: 3, cancel: cancel}
	a.Repo.Remote = cut
	a.Repo.Parallel = 1
	_, err = a.Push(cctx)
	require.ErrorIs(t, err, context.Canceled)
	_, err = a.Repo.Head(ctx, "a")
	assert.True(t, arcsync.IsNotExist(err), "an interrupted push commits no manifest: %v", err)

	a.Repo.Remote = remote
	rep, err := a.Push(ctx)
	require.NoError(t, err)
	t.Logf("%d-byte session: the interrupted push stored %d pieces; the resumed one found %d there and uploaded %d (%d bytes)",
		big.Size(), cut.puts.Load(), rep.Existing, rep.Pieces, rep.Bytes)
	assert.EqualValues(t, cut.puts.Load(), rep.Existing)
	assert.Equal(t, 9, rep.Pieces+rep.Existing) // 8 MiB and a bit, on a 1 MiB grid
	assert.EqualValues(t, 1, rep.Manifest)

	b := machine(t, remote, key, "b")
	pr, err := b.Pull(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, pr.Pulled)
	assert.Equal(t, archive.VerdictOK, pr.Import.Files[0].Verdict)
}

// Two machines syncing at the same time through one remote each end with
// the other's sessions: they never write the same mutable object.
func TestConcurrentSyncs(t *testing.T) {
	ctx := context.Background()
	key, err := crypt.Generate()
	require.NoError(t, err)
	remote := fsremote.New(t.TempDir())
	var logs [2][]*dshgen.Log
	for m := range 2 {
		for i := range 3 {
			logs[m] = append(logs[m], dshgen.Generate(dshgen.Options{Seed: uint64(10*m + i + 1), Cwd: "/p", Turns: 4}))
		}
	}
	ms := []*archivesync.Syncer{machine(t, remote, key, "a", logs[0]...), machine(t, remote, key, "b", logs[1]...)}
	sync2 := func() {
		var wg sync.WaitGroup
		for _, m := range ms {
			wg.Go(func() {
				_, err := m.Push(ctx)
				assert.NoError(t, err)
				_, err = m.Pull(ctx)
				assert.NoError(t, err)
			})
		}
		wg.Wait()
	}
	sync2()
	sync2() // whoever pushed second in round one is pulled now
	for m, s := range ms {
		for _, l := range append(logs[0], logs[1]...) {
			var b strings.Builder
			require.NoError(t, s.Archive.ExportJSONL(ctx, l.ID(), &b), "machine %d, %s", m, l.ID())
			assert.Equal(t, string(l.JSONL()), b.String())
		}
	}
}

func exportOf(t *testing.T, s *archivesync.Syncer, id string) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, s.Archive.ExportJSONL(context.Background(), id, &b))
	return b.String()
}

// A session its origin rewrote (not an append) replaces the version other
// machines pulled from it, as a rewritten file does on import: an update,
// not a conflict. A pull with nothing new fetches nothing.
func TestPullTakesTheOriginsRewrite(t *testing.T) {
	ctx := context.Background()
	key, err := crypt.Generate()
	require.NoError(t, err)
	remote := fsremote.New(t.TempDir())
	v1 := dshgen.Generate(dshgen.Options{Seed: 1, ID: "session-r", Cwd: "/p", Turns: 3})
	v2 := dshgen.Generate(dshgen.Options{Seed: 2, ID: "session-r", Cwd: "/p", Turns: 6})
	require.Greater(t, v2.Size(), v1.Size())
	a := machine(t, remote, key, "a")
	root := t.TempDir()
	path, err := v1.WriteFile(root, false)
	require.NoError(t, err)
	_, err = a.Archive.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	_, err = a.Push(ctx)
	require.NoError(t, err)
	b := machine(t, remote, key, "b")
	_, err = b.Pull(ctx)
	require.NoError(t, err)
	assert.Equal(t, string(v1.JSONL()), exportOf(t, b, "session-r"))

	_, err = v2.WriteFile(root, false)
	require.NoError(t, err)
	rep, err := a.Archive.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, "rewritten", rep.Files[0].Action)
	_, err = a.Push(ctx)
	require.NoError(t, err)
	pr, err := b.Pull(ctx)
	require.NoError(t, err)
	assert.Empty(t, pr.Conflicts)
	assert.Equal(t, 1, pr.Pulled)
	assert.Equal(t, exportOf(t, a, "session-r"), exportOf(t, b, "session-r"))

	pr, err = b.Pull(ctx)
	require.NoError(t, err)
	assert.Zero(t, pr.Bytes)
	assert.Equal(t, 1, pr.Unchanged)
}

func TestLockOneSyncAtATime(t *testing.T) {
	p := archivesync.Paths{Dir: t.TempDir()}
	release, err := archivesync.Lock(p)
	require.NoError(t, err)
	_, err = archivesync.Lock(p)
	assert.ErrorIs(t, err, archivesync.ErrBusy)
	release()
	release, err = archivesync.Lock(p)
	require.NoError(t, err)
	release()
}

// cancelOnOpen cancels its context at the n-th piece read.
type cancelOnOpen struct {
	arcsync.Remote
	n, opens int
	cancel   context.CancelFunc
}

func (c *cancelOnOpen) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if strings.HasPrefix(name, "data/") {
		if c.opens++; c.opens == c.n {
			c.cancel()
			return nil, ctx.Err()
		}
	}
	return c.Remote.Open(ctx, name)
}

// A pull cut short imports nothing half-way; the next one takes everything.
func TestPullResumesAfterInterruption(t *testing.T) {
	ctx := context.Background()
	key, err := crypt.Generate()
	require.NoError(t, err)
	remote := fsremote.New(t.TempDir())
	var logs []*dshgen.Log
	for i := range 4 {
		logs = append(logs, dshgen.Generate(dshgen.Options{Seed: uint64(30 + i), Cwd: "/p", Turns: 4}))
	}
	a := machine(t, remote, key, "a", logs...)
	_, err = a.Push(ctx)
	require.NoError(t, err)
	b := machine(t, remote, key, "b")
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.Repo.Remote = &cancelOnOpen{Remote: remote, n: 3, cancel: cancel}
	_, err = b.Pull(cctx)
	require.ErrorIs(t, err, context.Canceled)
	held, err := b.Archive.ListSessions(ctx, archive.SessionFilter{})
	require.NoError(t, err)
	assert.Empty(t, held)
	b.Repo.Remote = remote
	pr, err := b.Pull(ctx)
	require.NoError(t, err)
	assert.Equal(t, 4, pr.Pulled)
	for _, l := range logs {
		assert.Equal(t, string(l.JSONL()), exportOf(t, b, l.ID()))
	}
}

// originalFiles exports session id's kept files from store and reads them
// back, by name.
func originalFiles(t *testing.T, store *archive.Store, id string) map[string]string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "x")
	require.NoError(t, store.ExportOriginal(context.Background(), id, dir))
	return openhandstest.ReadTree(t, dir)
}

// OpenHands conversations travel too, in every layout: their kept files as
// a pack, unpacked under their original name on the other machine and
// imported through the same importer, with the same verdict, the same
// projection and a byte-identical export of the original files.
func TestOpenHandsTravels(t *testing.T) {
	ctx := context.Background()
	key, err := crypt.Generate()
	require.NoError(t, err)
	remote := fsremote.New(t.TempDir())
	a := machine(t, remote, key, "a", dshgen.Generate(dshgen.Options{Seed: 5, Cwd: "/p", Turns: 3}))
	layouts := []openhands.Layout{openhands.LayoutSDK, openhands.LayoutCLITrajectory, openhands.LayoutV0Session,
		openhands.LayoutJSONL, openhands.LayoutZip, openhands.LayoutV0Trajectory, openhands.LayoutAppA, openhands.LayoutAppB}
	var units []openhandsgen.Facts
	for i, l := range layouts {
		facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: l, Seed: uint64(9 + i), Turns: 3})
		require.NoError(t, err, l)
		units = append(units, facts)
		ir, err := a.Archive.Import(ctx, []string{facts.Unit.Path}, archive.ImportOptions{})
		require.NoError(t, err)
		require.Equal(t, 1, ir.Summary.OK, "%s: %+v", l, ir.Files)
	}
	rep, err := a.Push(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1+len(layouts), rep.Pushed)
	assert.Zero(t, rep.NotSynced)

	b := machine(t, remote, key, "b")
	pr, err := b.Pull(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1+len(layouts), pr.Pulled)
	for _, f := range pr.Import.Files {
		assert.Equal(t, archive.VerdictOK, f.Verdict, "%s: %+v", f.Path, f)
	}
	for i, u := range units {
		id := u.Unit.SessionID
		sa, err := a.Archive.Session(ctx, id)
		require.NoError(t, err, layouts[i])
		sb, err := b.Archive.Session(ctx, sa.ID)
		require.NoError(t, err, "%s: %s pulled", layouts[i], sa.ID)
		assert.Equal(t, sa.Agent, sb.Agent)
		assert.Equal(t, sa.Events, sb.Events, layouts[i])
		assert.Equal(t, sa.Turns, sb.Turns, layouts[i])
		assert.Equal(t, sa.Health, sb.Health, layouts[i])
		assert.Equal(t, originalFiles(t, a.Archive, sa.ID), originalFiles(t, b.Archive, sa.ID), "%s: byte-identical original files", layouts[i])
	}
	// Nothing changed: the next push and pull move nothing.
	rep, err = a.Push(ctx)
	require.NoError(t, err)
	assert.Zero(t, rep.Pushed)
	pr, err = b.Pull(ctx)
	require.NoError(t, err)
	assert.Zero(t, pr.Pulled)
	// B does not publish A's conversations as its own.
	brep, err := b.Push(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1+len(layouts), brep.FromOthers)
	assert.Zero(t, brep.Sessions)
}

// A session this machine reads from an agent's log, of which another machine
// holds a longer version (the log was copied mid-session and continued
// there): the importer takes one source per session, so the longer version
// is kept aside and listed with the conflicts, never lost and never
// imported over the local one.
func TestLongerVersionOfALocalLogIsKeptAside(t *testing.T) {
	ctx := context.Background()
	key, err := crypt.Generate()
	require.NoError(t, err)
	remote := fsremote.New(t.TempDir())
	l := dshgen.Generate(dshgen.Options{Seed: 61, Cwd: "/p", Turns: 6, NoPack: true})
	a := machine(t, remote, key, "a", l)
	_, err = a.Push(ctx)
	require.NoError(t, err)

	b := machine(t, remote, key, "b")
	root := t.TempDir()
	p, err := l.WriteFile(root, false)
	require.NoError(t, err)
	var half []byte
	for _, line := range l.Lines()[:len(l.Lines())/2] {
		half = append(append(half, line...), '\n')
	}
	require.NoError(t, os.WriteFile(p, half, 0o644))
	_, err = b.Archive.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)

	for range 2 { // the second pull reports it again without fetching
		pr, err := b.Pull(ctx)
		require.NoError(t, err)
		assert.Zero(t, pr.Pulled)
		require.Len(t, pr.Conflicts, 1)
		vs := pr.Conflicts[0].Versions
		require.Len(t, vs, 2)
		assert.True(t, vs[0].Local)
		assert.Equal(t, int64(len(half)), vs[0].Length)
		kept, err := os.ReadFile(vs[1].Path)
		require.NoError(t, err)
		assert.Equal(t, l.JSONL(), kept, "the longer version is kept whole")
		assert.Equal(t, string(half), exportOf(t, b, l.ID()), "the local version is untouched")
	}
	info, err := b.Archive.SyncInfo(ctx)
	require.NoError(t, err)
	assert.Len(t, info[l.ID()].Conflict, 2, "marked in the archive")

	// Keeping the longer version: the archive takes it over from the log,
	// which stays as it was.
	configure(t, b, "unused")
	_, err = archivesync.Resolve(ctx, b.Archive, b.Paths, l.ID(), "a", archive.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, string(l.JSONL()), exportOf(t, b, l.ID()))
	onDisk, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, half, onDisk)
	pr, err := b.Pull(ctx)
	require.NoError(t, err)
	assert.Empty(t, pr.Conflicts)
}
