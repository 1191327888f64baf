package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/index"
)

func TestStartImportRacingShutdown(t *testing.T) {
	s := archivetest.MustOpen(t)
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ix.Close() })
	for i := range 100 {
		a := New(Deps{Archive: s, Index: ix, DataDir: t.TempDir(), Roots: []string{t.TempDir()}, Logger: quietLogger()})
		a.Startup(context.Background())
		started := make(chan struct{})
		go func() {
			close(started)
			for a.StartImport() == nil || a.ctx.Err() == nil {
			}
		}()
		<-started
		a.Shutdown(context.Background())
		// Shutdown has waited for every import it let start: none is still running.
		a.mu.Lock()
		importing := a.importing
		a.mu.Unlock()
		require.False(t, importing, "iteration %d: an import outlived Shutdown", i)
		assert.Equal(t, "the app is shutting down", FormatError(a.StartImport()))
	}
}

// panicShell is a window whose Emit panics for one event.
type panicShell struct{ on string }

func (p panicShell) Emit(name string, _ any) {
	if name == p.on {
		panic("emit " + name)
	}
}
func (panicShell) Quit()  {}
func (panicShell) Raise() {}

func TestImportPanicIsContained(t *testing.T) {
	ta := newTestApp(t, func(d *Deps) { d.Logger = quietLogger() })
	ta.generate(t, 30, "/home/u/p")
	ta.hub.attach(panicShell{on: EventImportProgress})
	require.NoError(t, ta.StartImport())
	run := ta.waitImport(t)
	assert.Equal(t, "Something went wrong; see the log", run.Error)
	assert.NotNil(t, run.FinishedAt)

	// The process is alive and the slot free: the next import works.
	ta.hub.attach(nil)
	run = ta.importNow(t)
	assert.Empty(t, run.Error)
	require.Eventually(t, func() bool { st, err := ta.ImportStatus(); return err == nil && !st.Running }, 10*time.Second, 10*time.Millisecond)
}
