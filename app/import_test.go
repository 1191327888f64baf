package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/app/internal/demogen"
	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
)

func TestStartImport(t *testing.T) {
	ta := newTestApp(t)
	sh := &fakeShell{}
	ta.hub.attach(sh)
	l1 := ta.generate(t, 10, "/home/u/a")
	ta.generate(t, 11, "/home/u/b")

	run := ta.importNow(t)
	assert.Empty(t, run.Error)
	require.NotNil(t, run.Summary)
	assert.Equal(t, 2, run.Summary.Files)
	assert.Equal(t, 2, run.Summary.OK)
	assert.Equal(t, []string{ta.root}, run.Roots)
	require.NotNil(t, run.FinishedAt)
	assert.False(t, run.FinishedAt.Before(run.StartedAt))

	names := sh.names()
	require.NotEmpty(t, names)
	assert.Equal(t, EventImportProgress, names[0])
	assert.Equal(t, []string{EventImportDone, EventArchiveChanged}, names[len(names)-2:])

	t.Run("events reach a browser with their payloads", func(t *testing.T) {
		sub := ta.hub.subscribe()
		defer ta.hub.unsubscribe(sub)
		// One session's folder disappears upstream; the other is unchanged.
		require.NoError(t, os.RemoveAll(filepath.Dir(filepath.Join(ta.root, mustRel(t, l1)))))
		run := ta.importNow(t)
		assert.Equal(t, []string{l1.ID()}, run.Gone)
		// The run is marked finished before its events are published: wait for them.
		var evs []Event
		require.Eventually(t, func() bool {
			evs = append(evs, sub.take()...)
			return slices.ContainsFunc(evs, func(e Event) bool { return e.Name == EventArchiveChanged })
		}, 10*time.Second, 5*time.Millisecond)
		var got []string
		for _, e := range evs {
			got = append(got, e.Name)
			if e.Name == EventArchiveChanged {
				assert.JSONEq(t, `{"sessions":["`+l1.ID()+`"]}`, string(e.Data))
			}
			if e.Name == EventImportProgress {
				assert.Contains(t, string(e.Data), `"phase":`)
			}
		}
		assert.Contains(t, got, EventImportDone)
		assert.Contains(t, got, EventArchiveChanged)
	})
}

func mustRel(t *testing.T, l interface{ RelPath(bool) (string, error) }) string {
	t.Helper()
	rel, err := l.RelPath(false)
	require.NoError(t, err)
	return rel
}

func TestStartImportOneAtATime(t *testing.T) {
	ta := newTestApp(t)
	sh := &fakeShell{block: EventImportProgress, blocked: make(chan struct{}), release: make(chan struct{})}
	ta.hub.attach(sh)
	ta.generate(t, 12, "/home/u/c")

	require.NoError(t, ta.StartImport())
	<-sh.blocked // the import is running, held at its first progress event
	err := ta.StartImport()
	assert.Equal(t, "an import is already running", FormatError(err))
	assert.Equal(t, 409, errorStatus(err))
	info, err := ta.Info()
	require.NoError(t, err)
	assert.True(t, info.Importing)
	st, err := ta.ImportStatus()
	require.NoError(t, err)
	assert.True(t, st.Running)
	require.NotNil(t, st.Last)
	assert.Nil(t, st.Last.FinishedAt)

	close(sh.release)
	run := ta.waitImport(t)
	assert.Empty(t, run.Error)
	require.NoError(t, ta.StartImport(), "the slot is free again")
	ta.waitImport(t)
}

func TestImportStatus(t *testing.T) {
	ta := newTestApp(t)
	st, err := ta.ImportStatus()
	require.NoError(t, err)
	assert.Equal(t, ImportStatus{Roots: []string{ta.root}, Files: []archive.FileStatus{}}, st)

	l := ta.generate(t, 13, "/home/u/d")
	ta.importNow(t)
	st, err = ta.ImportStatus()
	require.NoError(t, err)
	assert.False(t, st.Running)
	require.NotNil(t, st.Last)
	require.Len(t, st.Files, 1)
	assert.Equal(t, l.ID(), st.Files[0].SessionID)
}

func TestImportNoRoots(t *testing.T) {
	// No dsh on this machine: the run finishes at once with an empty summary, and
	// never falls back to reading anything else.
	ta := newTestApp(t, func(d *Deps) { d.Roots = []string{} })
	run := ta.importNow(t)
	assert.Empty(t, run.Error)
	require.NotNil(t, run.Summary)
	assert.Zero(t, run.Summary.Files)
	assert.Equal(t, []string{}, run.Gone)
}

func TestShutdownCancelsImport(t *testing.T) {
	ta := newTestApp(t)
	sh := &fakeShell{block: EventImportProgress, blocked: make(chan struct{}), release: make(chan struct{})}
	ta.hub.attach(sh)
	ta.generate(t, 14, "/home/u/e")
	require.NoError(t, ta.StartImport())
	<-sh.blocked
	done := make(chan struct{})
	go func() { ta.Shutdown(context.Background()); close(done) }()
	time.Sleep(20 * time.Millisecond)
	close(sh.release)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("Shutdown did not wait for the import to stop")
	}
	assert.Equal(t, "the app is shutting down", FormatError(ta.StartImport()))
	// Nothing was emitted to the (closing) window after Shutdown.
	assert.False(t, slices.Contains(sh.names(), EventImportDone))
}

func TestCreateDemo(t *testing.T) {
	ta := newTestApp(t)
	require.NoError(t, ta.CreateDemo())

	info, err := ta.Info()
	require.NoError(t, err)
	assert.True(t, info.Demo)
	assert.GreaterOrEqual(t, info.Sessions, len(demogen.Projects)+3)
	assert.FileExists(t, filepath.Join(ta.deps.DataDir, demoMarker))

	ss, err := ta.Sessions()
	require.NoError(t, err)
	health := map[string]int{}
	children := 0
	for _, s := range ss {
		health[s.Health]++
		if s.ParentSession != "" {
			children++
		}
		assert.Contains(t, s.Cwd, "/home/demo/", "demo sessions are labelled by their project path")
	}
	assert.Equal(t, 1, health["recovered"], "the torn log")
	assert.Equal(t, 2, children, "a fork and a subagent")

	word := someWord(t, ta.deps.Archive, ss[0].ID)
	res, err := ta.Search(SearchRequest{Query: word})
	require.NoError(t, err)
	assert.NotZero(t, res.Total, "the demo is indexed")

	t.Run("not over a non-empty archive", func(t *testing.T) {
		err := ta.CreateDemo()
		assert.Contains(t, FormatError(err), "already holds sessions")
	})
	t.Run("the badge survives a restart", func(t *testing.T) {
		b := New(Deps{Archive: ta.deps.Archive, Index: ta.deps.Index, DataDir: ta.deps.DataDir, Roots: []string{}})
		b.Startup(context.Background())
		defer b.Shutdown(context.Background())
		info, err := b.Info()
		require.NoError(t, err)
		assert.True(t, info.Demo)
	})
}

func TestStartupImportAndDemoIfEmpty(t *testing.T) {
	t.Run("empty roots: demo", func(t *testing.T) {
		ta := newTestApp(t, func(d *Deps) { d.ImportOnStart, d.DemoIfEmpty = true, true })
		require.Eventually(t, func() bool {
			info, err := ta.Info()
			return err == nil && info.Demo && info.Sessions > 0 && !info.Importing
		}, 60*time.Second, 20*time.Millisecond)
	})
	t.Run("sessions found: no demo", func(t *testing.T) {
		root := t.TempDir()
		l := dshgen.Generate(dshgen.Options{Seed: 15, Turns: 4, Cwd: "/home/u/f", ASCII: true})
		_, err := l.WriteFile(root, false)
		require.NoError(t, err)
		ta := newTestApp(t, func(d *Deps) { d.Roots, d.ImportOnStart, d.DemoIfEmpty = []string{root}, true, true })
		run := ta.waitImport(t)
		assert.Equal(t, 1, run.Summary.Files)
		ta.wg.Wait() // the start-up work has ended
		info, err := ta.Info()
		require.NoError(t, err)
		assert.Equal(t, 1, info.Sessions)
		assert.False(t, info.Demo)
	})
}

func TestImportSettingsLenientHeaders(t *testing.T) {
	ta := newTestApp(t)
	l := ta.generate(t, 12, "/home/u/old")
	// A pre-release harness wrote no delegationDepth in the header.
	p := filepath.Join(ta.root, mustRel(t, l))
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	head, rest, _ := strings.Cut(string(data), "\n")
	head = strings.Replace(head, `,"delegationDepth":0`, ``, 1)
	require.NotContains(t, head, "delegationDepth")
	require.NoError(t, os.WriteFile(p, []byte(head+"\n"+rest), 0o600))

	s, err := ta.ImportSettings()
	require.NoError(t, err)
	assert.False(t, s.LenientHeaders, "strict by default")
	run := ta.importNow(t)
	assert.Equal(t, 1, run.Summary.Corrupt)

	require.NoError(t, ta.SetImportSettings(ImportSettings{LenientHeaders: true}))
	s, err = ta.ImportSettings()
	require.NoError(t, err)
	assert.True(t, s.LenientHeaders, "saved")
	run = ta.importNow(t)
	assert.Equal(t, 1, run.Summary.OK, "the refused file is read again and accepted")
	ss, err := ta.Sessions()
	require.NoError(t, err)
	require.Len(t, ss, 1)
	assert.Equal(t, l.ID(), ss[0].ID)
}

func TestWatchCatchesUpWithOtherImports(t *testing.T) {
	ta := newTestApp(t, func(d *Deps) { d.WatchEvery = 50 * time.Millisecond })
	sub := ta.hub.subscribe()
	defer ta.hub.unsubscribe(sub)
	// Another process imports (here: the archive directly, not through the app).
	l := ta.generate(t, 21, "/home/u/elsewhere")
	_, err := ta.deps.Archive.Import(context.Background(), []string{ta.root}, archive.ImportOptions{})
	require.NoError(t, err)

	var got []string
	require.Eventually(t, func() bool {
		for _, e := range sub.take() {
			got = append(got, e.Name)
		}
		return slices.Contains(got, EventArchiveChanged)
	}, 5*time.Second, 20*time.Millisecond, "the open views are told")
	// The search index caught up without an import of the app's own.
	res, err := ta.Search(SearchRequest{Query: "session:" + l.ID()})
	require.NoError(t, err)
	assert.Positive(t, res.Total, "the other process's session is searchable")

	// Nothing changed since: no more events.
	time.Sleep(200 * time.Millisecond)
	sub.take()
	time.Sleep(200 * time.Millisecond)
	assert.Empty(t, sub.take())
}

func TestLenientImportRereadsRefusedFilesOutsideTheRoots(t *testing.T) {
	ta := newTestApp(t)
	elsewhere := t.TempDir() // imported once by `logbook import PATH`, not a root
	l := dshgen.Generate(dshgen.Options{Seed: 22, Turns: 3, Cwd: "/home/u/old", ASCII: true})
	p, err := l.WriteFile(elsewhere, false) // the full path of the written file
	require.NoError(t, err)
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	head, rest, _ := strings.Cut(string(data), "\n")
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(head, `,"delegationDepth":0`, ``, 1)+"\n"+rest), 0o600))
	rep, err := ta.deps.Archive.Import(context.Background(), []string{p}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Summary.Corrupt)

	require.NoError(t, ta.SetImportSettings(ImportSettings{LenientHeaders: true}))
	run := ta.importNow(t)
	require.NotNil(t, run.Summary)
	assert.Equal(t, 1, run.Summary.OK, "the refused file is read again from where it was found")
	ss, err := ta.Sessions()
	require.NoError(t, err)
	require.Len(t, ss, 1)
	assert.Equal(t, l.ID(), ss[0].ID)
}
