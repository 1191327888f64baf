// Package schedulertest holds what the scheduler's tests and the app's schedule
// tests share: an archive in a temporary directory that a test can close and
// reopen, sessions with scheduled prompts written into it, and small helpers.
package schedulertest

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
)

// Cwd is the working directory of every session WriteSession writes.
const Cwd = "/home/u/sched"

// Env is an archive in a temporary directory that a test can close and reopen,
// plus a session root (Root) for the logs it writes.
type Env struct {
	Dir, Root string
	Store     *archive.Store
}

// NewEnv opens a fresh archive; it is closed at cleanup.
func NewEnv(t *testing.T) *Env {
	t.Helper()
	e := &Env{Dir: t.TempDir(), Root: t.TempDir()}
	e.Reopen(t)
	t.Cleanup(func() {
		if e.Store != nil {
			_ = e.Store.Close()
		}
	})
	return e
}

// DBPath is the archive's database file.
func (e *Env) DBPath() string { return filepath.Join(e.Dir, "logbook.db") }

// Reopen closes the archive (if open) and opens it again from disk.
func (e *Env) Reopen(t *testing.T) {
	t.Helper()
	e.Close(t)
	s, err := archive.Open(context.Background(), e.DBPath())
	require.NoError(t, err)
	e.Store = s
}

// Close closes the archive.
func (e *Env) Close(t *testing.T) {
	t.Helper()
	if e.Store != nil {
		require.NoError(t, e.Store.Close())
		e.Store = nil
	}
}

// Spec is one schedule to write: kind, target and seconds (after/every).
type Spec struct {
	Kind, Prompt string
	At           time.Time
	Seconds      int64
}

// WriteSession writes (or rewrites) session id with one turn and then the given
// schedules (ids schedule-1, schedule-2, … in order), then extra to append more
// schedule events, and imports it. The generator is deterministic, so writing the
// same session again with more events is an append, as when the agent logs more.
func (e *Env) WriteSession(t *testing.T, id string, specs []Spec, extra func(s *dshgen.Session)) {
	t.Helper()
	s := dshgen.New(dshgen.Options{Seed: 1, ID: id, Cwd: Cwd, Families: dshgen.FamilyTools,
		CreatedAt: time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC).UnixMilli()})
	s.Turn(func(tb *dshgen.Turn) {
		tb.User("remind me later")
		tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Text("Scheduled.")) })
	})
	for _, sp := range specs {
		s.ScheduleCreateAt(sp.Kind, sp.Prompt, sp.At.UnixMilli(), sp.Seconds)
	}
	if extra != nil {
		extra(s)
	}
	path, err := s.Log().WriteFile(e.Root, false)
	require.NoError(t, err)
	rep, err := e.Store.Import(context.Background(), []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Files, 1)
	require.Equal(t, archive.VerdictOK, rep.Files[0].Verdict, "%+v", rep.Files[0].Error)
	require.Empty(t, rep.Files[0].Warnings)
}

// SetEverySeconds shortens an every's interval in the archive, below what dsh (and
// so the fold) allows, to watch a cadence in seconds. Test-only, with MinEvery.
func (e *Env) SetEverySeconds(t *testing.T, scheduleID string, secs int64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.DBPath()+"?_pragma=busy_timeout(10000)")
	require.NoError(t, err)
	defer db.Close()
	res, err := db.Exec(`UPDATE schedules SET every_seconds = ? WHERE schedule_id = ?`, secs, scheduleID)
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

// Item returns one schedule of the archive as it stands now.
func (e *Env) Item(t *testing.T, session, id string) archive.ScheduleItem {
	t.Helper()
	it, err := e.Store.Schedule(context.Background(), session, id, time.Now())
	require.NoError(t, err)
	return it
}

// Soon is an instant d from now, at whole milliseconds as the logs hold them.
func Soon(d time.Duration) time.Time { return time.Now().Add(d).Truncate(time.Millisecond).UTC() }

// QuietLogger discards everything.
func QuietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
