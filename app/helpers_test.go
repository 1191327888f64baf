package app

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/index"
	"github.com/logbook/logbook/scheduler/schedulertest"
)

// fakeShell records what the app asked of the desktop window. When block is set,
// Emit of that event waits until release is closed (to hold an import mid-run).
type fakeShell struct {
	mu     sync.Mutex
	events []Event
	quits  int
	raises int

	block   string
	blocked chan struct{} // closed when Emit first blocks
	release chan struct{}
	once    sync.Once
}

func (f *fakeShell) Emit(name string, data any) {
	f.mu.Lock()
	f.events = append(f.events, Event{Name: name})
	f.mu.Unlock()
	if f.block != "" && name == f.block {
		f.once.Do(func() { close(f.blocked) })
		<-f.release
	}
}

func (f *fakeShell) Quit()  { f.mu.Lock(); f.quits++; f.mu.Unlock() }
func (f *fakeShell) Raise() { f.mu.Lock(); f.raises++; f.mu.Unlock() }

// names returns the names of the events emitted so far.
func (f *fakeShell) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.events {
		out = append(out, e.Name)
	}
	return out
}

// testApp is an App over a real archive and a real index in temporary directories.
type testApp struct {
	*App
	root string // the session root StartImport reads
	hub  *Hub
}

// newTestApp opens a fresh archive and index and starts an App whose only root is
// an empty temporary directory; change d before it is used with the option funcs.
func newTestApp(t *testing.T, opts ...func(*Deps)) *testApp {
	t.Helper()
	s := archivetest.MustOpen(t)
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ix.Close() })
	root := t.TempDir()
	hub := NewHub()
	d := Deps{Archive: s, Index: ix, Version: "test", DataDir: t.TempDir(), Roots: []string{root}, Events: hub}
	for _, o := range opts {
		o(&d)
	}
	a := New(d)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	return &testApp{App: a, root: root, hub: hub}
}

// generate writes a generated session under the app's root and returns it.
func (ta *testApp) generate(t *testing.T, seed uint64, cwd string) *dshgen.Log {
	t.Helper()
	l := dshgen.Generate(dshgen.Options{Seed: seed, Turns: 4, Cwd: cwd, ASCII: true})
	_, err := l.WriteFile(ta.root, false)
	require.NoError(t, err)
	return l
}

// importNow runs StartImport and waits for it to finish.
func (ta *testApp) importNow(t *testing.T) ImportRun {
	t.Helper()
	require.NoError(t, ta.StartImport())
	return ta.waitImport(t)
}

// waitImport waits until no import runs and returns the last run.
func (ta *testApp) waitImport(t *testing.T) ImportRun {
	t.Helper()
	var st ImportRun
	require.Eventually(t, func() bool {
		ta.mu.Lock()
		defer ta.mu.Unlock()
		if ta.importing || ta.lastRun == nil {
			return false
		}
		st = *ta.lastRun
		return true
	}, 30*time.Second, 10*time.Millisecond)
	return st
}

var quietLogger = schedulertest.QuietLogger

// armedIDs lists the session/schedule ids the app's scheduler has armed.
func armedIDs(a *App) []string {
	var ids []string
	for _, s := range a.deps.Scheduler.Armed() {
		ids = append(ids, s.SessionID+"/"+s.ScheduleID)
	}
	return ids
}
