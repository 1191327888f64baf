package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// ImportRun describes one import run, finished or in progress.
type ImportRun struct {
	StartedAt  time.Time        `json:"started_at"`
	FinishedAt *time.Time       `json:"finished_at"` // nil while running
	Roots      []string         `json:"roots"`
	Summary    *archive.Summary `json:"summary"` // nil while running or when the run failed early
	Gone       []string         `json:"gone"`    // sessions whose files disappeared upstream
	Error      string           `json:"error,omitempty"`
	// Bundles says what each bundle imported gave (as `logbook import` does).
	Bundles []string `json:"bundles,omitempty"`
}

// ImportStatus is what the import view shows: the roots, the latest run and the
// stored verdict of every known file.
type ImportStatus struct {
	Roots   []string             `json:"roots"`
	Running bool                 `json:"running"`
	Last    *ImportRun           `json:"last"`
	Files   []archive.FileStatus `json:"files"`
}

// ImportProgress is the payload of the import:progress event.
type ImportProgress struct {
	File       string `json:"file"`
	FileIndex  int    `json:"file_index"`
	Files      int    `json:"files"`
	DoneBytes  int64  `json:"done_bytes"`
	TotalBytes int64  `json:"total_bytes"`
	Phase      string `json:"phase"` // import | index
}

// ArchiveChanged is the payload of the archive:changed event.
type ArchiveChanged struct {
	Sessions []string `json:"sessions"` // sessions added, changed or gone upstream
}

// progressEvery is the shortest gap between two progress events of one phase, so
// a fast import does not flood the window or a browser (at most 10 a second).
const progressEvery = 100 * time.Millisecond

// StartImport imports the session roots in the background, then brings the search
// index level with the archive. Progress arrives as import:progress events and the
// outcome as import:done and archive:changed. Only one import runs at a time.
func (a *App) StartImport() error {
	roots := a.roots()
	if err := a.beginImport(roots, nil); err != nil {
		return err
	}
	go func() { a.finishImport(a.importRoots(a.ctx, roots)) }()
	return nil
}

// ImportStatus returns the roots, whether an import is running, the latest run and
// every known file's stored verdict.
func (a *App) ImportStatus() (ImportStatus, error) {
	files, err := a.deps.Archive.Files(a.ctx)
	if err != nil {
		return ImportStatus{}, err
	}
	if files == nil {
		files = []archive.FileStatus{}
	}
	roots := a.roots() // reads the import settings: not under a.mu
	a.mu.Lock()
	defer a.mu.Unlock()
	st := ImportStatus{Roots: roots, Running: a.importing, Files: files}
	if a.lastRun != nil {
		run := *a.lastRun // runs are replaced, never changed in place, so a copy is stable
		st.Last = &run
	}
	return st, nil
}

// beginImport claims the one import slot and records the run as started; every
// successful call must be followed by one finishImport. The slot counts as
// background work, so Shutdown waits for the run (see track). check, when set,
// runs with the slot still free but no other import able to take it: a
// precondition that an import finishing meanwhile must not invalidate.
func (a *App) beginImport(roots []string, check func() error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx.Err() != nil {
		return busy("the app is shutting down")
	}
	if a.importing {
		return busy("an import is already running")
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	a.importing = true
	a.wg.Add(1)
	a.lastRun = &ImportRun{StartedAt: time.Now().UTC(), Roots: roots, Gone: []string{}}
	return nil
}

// finishImport records a finished run, releases the slot and tells the UI.
func (a *App) finishImport(run ImportRun, changed []string) {
	defer a.wg.Done()
	if a.ctx.Err() == nil {
		a.noteStamp() // before importing=false, so the watch never takes this import for another's
	}
	a.mu.Lock()
	a.importing = false
	a.lastRun = &run
	a.mu.Unlock()
	if a.ctx.Err() != nil {
		return // shutting down: the window may be gone
	}
	a.events.Publish(EventImportDone, run)
	if len(changed) > 0 {
		a.events.Publish(EventArchiveChanged, ArchiveChanged{Sessions: changed})
		if s, _ := a.SyncSettings(); s.Auto {
			a.kickSync() // sync after an import that changed something (when sync is set up)
		}
	}
}

// importRoots runs one import of roots and the index sync after it. It returns the
// finished run and the sessions that changed.
func (a *App) importRoots(ctx context.Context, roots []string) (ImportRun, []string) {
	a.mu.Lock()
	run := *a.lastRun
	a.mu.Unlock()
	changed, err := a.runImportContained(ctx, roots, &run)
	if err != nil {
		run.Error = FormatError(err)
		a.log.Warn("import failed", "roots", roots, "err", err)
	}
	// Imported sessions may carry new or changed scheduled prompts.
	if s := a.deps.Scheduler; s != nil && len(changed) > 0 && s.Running() {
		if err := s.Reload(ctx); err != nil {
			a.log.Warn("scheduler reload after import failed", "err", err)
		}
	}
	done := time.Now().UTC()
	run.FinishedAt = &done
	return run, changed
}

// runImportContained is runImport with a panic turned into the run's error: it
// runs on a goroutine of its own, where a panic would end the whole process
// (the window, or `logbook serve` with every browser on it).
func (a *App) runImportContained(ctx context.Context, roots []string, run *ImportRun) (changed []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			a.log.Error("import panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			changed, err = nil, fmt.Errorf("import panicked: %v", p)
		}
	}()
	return a.runImport(ctx, roots, run)
}

// runImport imports roots (none: nothing to read) while feeding the index along
// (syncAlong), checkpoints the archive and brings the index level, filling run's
// summary and gone list as it goes.
func (a *App) runImport(ctx context.Context, roots []string, run *ImportRun) ([]string, error) {
	tick := throttle{every: progressEvery}
	rep := &archive.ImportReport{Gone: []string{}}
	settings, err := a.ImportSettings()
	if err != nil {
		a.log.Warn("import settings unreadable; using the defaults", "err", err)
	}
	paths := slices.Clone(roots)
	if settings.LenientHeaders {
		// Files refused for a pre-release header may have come from `logbook import
		// PATH` outside the roots: read them again from where they were found.
		paths = append(paths, a.refusedOutside(ctx, roots)...)
	}
	// Bundles among the paths, or under its folders, are unpacked into the data
	// directory and their sessions imported from there (bundleimport.go).
	paths, found, bundles, err := a.unpackBundles(ctx, paths)
	if err != nil {
		return nil, fmt.Errorf("unpack bundles: %w", err)
	}
	if len(paths) > 0 {
		a.events.Publish(EventImportProgress, ImportProgress{Phase: "import"})
		tick.ready() // the start event counts against the rate
		committed, stopAlong := a.syncAlong(ctx)
		// Store.Import reads the default roots when given none, hence the guard.
		rep, err = a.deps.Archive.Import(ctx, paths, archive.ImportOptions{LenientHeaders: settings.LenientHeaders, Discovered: found,
			CommittedSessions: committed, Progress: func(p archive.Progress) {
				if tick.ready() {
					a.events.Publish(EventImportProgress, ImportProgress{File: p.File, FileIndex: p.FileIndex, Files: p.Files,
						DoneBytes: p.DoneBytes + p.FileBytes, TotalBytes: p.TotalBytes, Phase: "import"})
				}
			}})
		stopAlong()
		if err != nil {
			return nil, fmt.Errorf("import %v: %w", paths, err)
		}
		if err := a.deps.Archive.Maintain(ctx); err != nil {
			a.log.Warn("maintenance after import failed", "err", err)
		}
	}
	run.Bundles = bundleReportsInto(rep, bundles)
	sum := rep.Summary
	run.Summary = &sum
	if rep.Gone != nil {
		run.Gone = rep.Gone
	}
	changed := changedSessions(rep)
	if a.deps.Index != nil {
		tick = throttle{every: progressEvery}
		a.events.Publish(EventImportProgress, ImportProgress{Phase: "index"})
		tick.ready()
		_, err := a.deps.Index.Sync(ctx, a.deps.Archive, func(done, total int) {
			if tick.ready() {
				a.events.Publish(EventImportProgress, ImportProgress{File: "search index", FileIndex: done, Files: total,
					DoneBytes: int64(done), TotalBytes: int64(total), Phase: "index"})
			}
		})
		if err != nil {
			// The archive holds the import; the next sync (any later import) catches up.
			return changed, fmt.Errorf("update search index: %w", err)
		}
	}
	return changed, nil
}

// syncAlong feeds the search index while an import runs (index.SyncAlong): on two
// cores a session is indexed while the archive reads the next, and during a long
// first import what is already imported can be searched. The import names the
// sessions it commits to committed (its CommittedSessions; nil without an index);
// stop stops the indexing and waits for it. A failure is only logged, as the sync
// after the import brings the index level anyway.
func (a *App) syncAlong(ctx context.Context) (committed func([]string), stop func()) {
	if a.deps.Index == nil {
		return nil, func() {}
	}
	feed := index.NewAlongFeed()
	ch, done := make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := a.deps.Index.SyncAlong(ctx, a.deps.Archive, ch, feed)
		done <- err
	}()
	return feed.Committed, func() {
		close(ch)
		if err := <-done; err != nil && ctx.Err() == nil && !errors.Is(err, index.ErrClosed) {
			a.log.Warn("indexing along the import failed; the sync after it catches up", "err", err)
		}
	}
}

// changedSessions lists, once each, the sessions an import added, changed or found
// gone upstream.
func changedSessions(rep *archive.ImportReport) []string {
	var ids []string
	for _, f := range rep.Files {
		if f.Changed && f.SessionID != "" {
			ids = append(ids, f.SessionID)
		}
	}
	ids = append(ids, rep.Gone...)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// throttle lets an event through at most once per interval; the first always passes.
type throttle struct {
	every time.Duration
	last  time.Time
}

func (t *throttle) ready() bool {
	now := time.Now()
	if !t.last.IsZero() && now.Sub(t.last) < t.every {
		return false
	}
	t.last = now
	return true
}

// refusedOutside lists the archived files outside roots whose header was refused as
// pre-release (no session was made) and that are still on disk.
func (a *App) refusedOutside(ctx context.Context, roots []string) []string {
	files, err := a.deps.Archive.Files(ctx)
	if err != nil {
		a.log.Warn("list archived files", "err", err)
		return nil
	}
	var out []string
	for _, f := range files {
		if f.ErrorKind != "bad-header" || f.SessionID != "" || f.Gone || underAny(f.Path, roots) {
			continue
		}
		if _, err := os.Stat(f.Path); err == nil {
			out = append(out, f.Path)
		}
	}
	return out
}

// underAny reports whether path is one of roots or inside one.
func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
