package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/sync/archivesync"
)

// syncedApps are two apps (two machines) set up to sync through one folder
// remote, as `logbook sync init` does on each.
func syncedApps(t *testing.T) (*testApp, *testApp) {
	t.Helper()
	remote := filepath.Join(t.TempDir(), "remote")
	var apps []*testApp
	for range 2 {
		data := t.TempDir()
		_, _, _, err := archivesync.Setup(context.Background(), archivesync.Paths{Dir: data}, "file://"+remote, "a test passphrase", 10)
		require.NoError(t, err)
		apps = append(apps, newTestApp(t, func(d *Deps) { d.DataDir = data }))
	}
	return apps[0], apps[1]
}

// waitSync waits until app a has finished a sync after since, and returns
// its status.
func waitSync(t *testing.T, a *testApp, since time.Time) SyncStatus {
	t.Helper()
	var st SyncStatus
	require.Eventually(t, func() bool {
		var err error
		st, err = a.SyncStatus()
		require.NoError(t, err)
		return !st.Running && st.LastSync != nil && st.LastSync.After(since)
	}, 60*time.Second, 20*time.Millisecond)
	return st
}

// The app syncs after an import by itself (Auto, the default), and on
// SyncNow; the other machine's app pulls the session, indexes it, and
// reports what moved; the status shows no pending bytes once pushed.
func TestAppSyncsAfterImportAndOnDemand(t *testing.T) {
	a, b := syncedApps(t)
	st, err := a.SyncStatus()
	require.NoError(t, err)
	assert.True(t, st.Configured)
	assert.True(t, st.Settings.Auto)
	assert.Equal(t, 10, st.Settings.EveryMinutes)

	l := a.generate(t, 3, "/home/a/p")
	since := time.Now().UTC()
	a.importNow(t) // kicks a sync
	st = waitSync(t, a, since)
	require.NotNil(t, st.Last)
	assert.Empty(t, st.Last.Errors)
	assert.Equal(t, 1, st.Last.Pushed)
	assert.Positive(t, st.Last.BytesUp)
	assert.Zero(t, st.PendingBytes)

	since = time.Now().UTC()
	require.NoError(t, b.SyncNow())
	st = waitSync(t, b, since)
	assert.Equal(t, 1, st.Last.Pulled)
	assert.Positive(t, st.Last.BytesDown)
	sess, err := b.Session(l.ID())
	require.NoError(t, err)
	assert.Equal(t, l.ID(), sess.Session.ID)
	require.NotNil(t, sess.Sync, "the session names the machine it came from")
	assert.Equal(t, a.syncMachine(t), sess.Sync.Machine)
	res, err := b.Search(SearchRequest{Query: "the"})
	require.NoError(t, err)
	assert.NotEmpty(t, res.Hits, "pulled sessions are searchable")
}

func TestSyncSettings(t *testing.T) {
	a := newTestApp(t)
	st, err := a.SyncStatus()
	require.NoError(t, err)
	assert.False(t, st.Configured)
	assert.Error(t, a.SyncNow(), "not set up")
	require.NoError(t, a.SetSyncSettings(SyncSettings{Auto: false, EveryMinutes: 30}))
	s, err := a.SyncSettings()
	require.NoError(t, err)
	assert.Equal(t, SyncSettings{Auto: false, EveryMinutes: 30}, s)
	assert.Error(t, a.SetSyncSettings(SyncSettings{EveryMinutes: 0}))
}

// syncMachine is app a's sync machine id.
func (ta *testApp) syncMachine(t *testing.T) string {
	t.Helper()
	c, err := archivesync.LoadConfig(ta.syncPaths())
	require.NoError(t, err)
	return c.Machine
}

// A hand-edited or damaged sync_app.json is said in the status, and the loop
// neither spins on a zero timer nor stops on a file it cannot read.
func TestSyncSettingsBadFile(t *testing.T) {
	a := newTestApp(t)
	path := filepath.Join(a.deps.DataDir, "sync_app.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"auto": true, "every_minutes": 0}`), 0o644))
	assert.Equal(t, SyncSettings{Auto: true, EveryMinutes: 1}, a.loopSettings())

	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o644))
	assert.Equal(t, defaultSyncSettings(), a.loopSettings())
	st, err := a.SyncStatus()
	require.NoError(t, err)
	assert.Contains(t, st.Error, "sync_app.json")
}

// Pulled sessions are imported as the app's own imports are: a session with
// a pre-release header (no delegationDepth) that one machine accepted with
// lenient headers is accepted on the other when it allows them too, and is
// searchable there.
func TestAppSyncImportsWithTheImportSettings(t *testing.T) {
	a, b := syncedApps(t)
	for _, ta := range []*testApp{a, b} {
		require.NoError(t, ta.SetImportSettings(ImportSettings{LenientHeaders: true}))
	}
	l := a.generate(t, 31, "/home/a/old")
	p := filepath.Join(a.root, mustRel(t, l))
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	head, rest, _ := strings.Cut(string(data), "\n")
	require.Contains(t, head, `,"delegationDepth":0`)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(head, `,"delegationDepth":0`, ``, 1)+"\n"+rest), 0o600))
	since := time.Now().UTC()
	run := a.importNow(t)
	require.Equal(t, 1, run.Summary.OK)
	st := waitSync(t, a, since)
	require.Equal(t, 1, st.Last.Pushed)

	since = time.Now().UTC()
	require.NoError(t, b.SyncNow())
	st = waitSync(t, b, since)
	assert.Empty(t, st.Last.Errors)
	sess, err := b.Session(l.ID())
	require.NoError(t, err, "the pulled session is accepted with lenient headers")
	assert.Equal(t, l.ID(), sess.Session.ID)
	res, err := b.Search(SearchRequest{Query: "session:" + l.ID()})
	require.NoError(t, err)
	assert.Positive(t, res.Total, "and indexed")
}

// Sync is set up from the settings as with `logbook sync init`: the first
// app creates the key on the remote, the second joins with the same
// passphrase; a wrong passphrase and a second set-up are refused in words.
func TestSetUpSync(t *testing.T) {
	remote := "file://" + filepath.Join(t.TempDir(), "remote")
	a := newTestApp(t)
	b := newTestApp(t)
	a.sync.logN, b.sync.logN = 10, 10
	_, err := a.SetUpSync(" ", "pass")
	assert.ErrorContains(t, err, "name the remote")
	_, err = a.SetUpSync(remote, "")
	assert.ErrorContains(t, err, "passphrase is empty")
	_, err = a.SetUpSync("ftp://host/x", "pass")
	assert.ErrorContains(t, err, `scheme "ftp" is not supported`)

	st, err := a.SetUpSync(remote, "a test passphrase")
	require.NoError(t, err)
	assert.True(t, st.Configured)
	assert.NotEmpty(t, st.Machine)
	_, err = a.SetUpSync(remote, "a test passphrase")
	assert.ErrorContains(t, err, "already set up")

	_, err = b.SetUpSync(remote, "not it")
	assert.ErrorContains(t, err, "wrong passphrase")
	st, err = b.SyncStatus()
	require.NoError(t, err)
	assert.False(t, st.Configured, "nothing saved")
	st, err = b.SetUpSync(remote, "a test passphrase")
	require.NoError(t, err)
	assert.True(t, st.Configured)
	assert.NotEqual(t, a.syncMachine(t), st.Machine)
}
