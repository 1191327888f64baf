package app

import (
	"context"
	"slices"
	"sync"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/sync/follow"
)

// EventFollowStatus is published with a FollowStatus whenever a root changes
// mode or the set of files being written changes.
const EventFollowStatus = "follow:status"

// FollowStatus is what the UI shows of live follow: each import root's mode
// (watching, polling with the reason, missing) and the files being written.
type FollowStatus struct {
	On      bool            `json:"on"`            // the import roots are followed live
	Off     string          `json:"off,omitempty"` // why not, when On is false
	Roots   []follow.Status `json:"roots"`
	Writing []string        `json:"writing"` // files whose last line is still being written
}

// liveFollow is the app's follower of the import roots: one run at a time,
// replaced when the roots change.
type liveFollow struct {
	mu      sync.Mutex
	f       *follow.Follower[archive.FileReport]
	cancel  context.CancelFunc
	done    chan struct{}
	writing []string // as last published

	kick    chan struct{} // a batch changed sessions: catch the views up
	pending map[string]bool

	tune func(*follow.Options[archive.FileReport]) // tests: the follower's seams (BeforeWatch, Rescan)
}

// FollowStatus returns the mode of every import root and the files being written.
func (a *App) FollowStatus() (FollowStatus, error) {
	return a.followStatus(), nil
}

func (a *App) followStatus() FollowStatus {
	st := FollowStatus{Roots: []follow.Status{}, Writing: []string{}}
	if !a.deps.Follow {
		st.Off = "live follow is off (logbook serve --no-follow or --no-import): press Import now to read new sessions"
		return st
	}
	lf := &a.follow
	lf.mu.Lock()
	f := lf.f
	lf.mu.Unlock()
	if f == nil {
		st.Off = "live follow starts once the start-up import is done"
		return st
	}
	st.On = true
	st.Roots = append(st.Roots, f.Statuses()...)
	st.Writing = append(st.Writing, f.Writing()...)
	return st
}

// startFollow starts following the import roots, replacing a running follower.
// It does nothing unless Deps.Follow is set, or once Shutdown has begun.
func (a *App) startFollow() {
	if !a.deps.Follow {
		return
	}
	a.stopFollow()
	roots := a.roots() // reads the import settings: not under a.mu
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx.Err() != nil {
		return
	}
	lf := &a.follow
	ctx, cancel := context.WithCancel(a.ctx)
	o := follow.Options[archive.FileReport]{
		Roots:    roots,
		Import:   a.followImport,
		Path:     func(r archive.FileReport) string { return r.Path },
		Torn:     archive.FileReport.TornTail,
		Source:   followSource,
		OnImport: a.followBatch,
		OnStatus: func(follow.Status) { a.events.Publish(EventFollowStatus, a.followStatus()) },
		Logger:   a.deps.Logger,
	}
	if lf.tune != nil {
		lf.tune(&o)
	}
	f := follow.New(o)
	done := make(chan struct{})
	lf.mu.Lock()
	lf.f, lf.cancel, lf.done = f, cancel, done
	a.startCatchUp()
	lf.mu.Unlock()
	a.watchWG.Add(1)
	go func() {
		defer a.watchWG.Done()
		defer close(done)
		if err := f.Run(ctx); err != nil {
			a.log.Error("live follow did not start", "err", err)
		}
	}()
}

// stopFollow stops the running follower, if any, and waits for it.
func (a *App) stopFollow() {
	lf := &a.follow
	lf.mu.Lock()
	cancel, done := lf.cancel, lf.done
	lf.f, lf.cancel, lf.done = nil, nil, nil
	lf.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// followImport is the follower's import: the archive's, with the import
// settings `Import now` uses.
func (a *App) followImport(ctx context.Context, paths []string) ([]archive.FileReport, error) {
	settings, err := a.ImportSettings()
	if err != nil {
		a.log.Warn("import settings unreadable; using the defaults", "err", err)
	}
	paths, bundles, err := a.followBundles(ctx, paths)
	if err != nil {
		return nil, err
	}
	rep := &archive.ImportReport{}
	if len(paths) > 0 { // none would mean the default roots
		rep, err = a.deps.Archive.Import(ctx, paths, archive.ImportOptions{LenientHeaders: settings.LenientHeaders})
		if rep == nil {
			return nil, err
		}
	}
	for _, line := range bundleReportsInto(rep, bundles) {
		a.log.Info("bundle followed", "report", line)
	}
	return rep.Files, err
}

// followBatch takes one import run of the follower: the sessions it changed are
// handed to followCatchUp (off the follower's goroutine), and a change in the
// files being written is published.
func (a *App) followBatch(b follow.Batch[archive.FileReport]) {
	lf := &a.follow
	lf.mu.Lock()
	n := 0
	for _, f := range b.Files {
		if f.Report.Changed && f.Report.SessionID != "" {
			lf.pending[f.Report.SessionID] = true
			n++
		}
	}
	var writing []string
	if lf.f != nil {
		writing = lf.f.Writing()
	}
	changedWriting := !slices.Equal(writing, lf.writing)
	lf.writing = writing
	lf.mu.Unlock()
	if n > 0 {
		lf.kickCatchUp()
	}
	if changedWriting {
		a.events.Publish(EventFollowStatus, a.followStatus())
	}
}

// startCatchUp starts followCatchUp unless it runs; a.follow.mu is held, and
// a.mu too, so it never starts once Shutdown has begun.
func (a *App) startCatchUp() {
	lf := &a.follow
	if lf.kick == nil {
		lf.kick, lf.pending = make(chan struct{}, 1), map[string]bool{}
		a.watchWG.Add(1)
		go func() { defer a.watchWG.Done(); a.followCatchUp() }()
	}
}

// sessionsChanged hands sessions this process changed outside an import run of
// the UI (a push to the webhook) to followCatchUp: the index and the open views
// follow within moments.
func (a *App) sessionsChanged(ids []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx.Err() != nil {
		return // Shutdown has begun: the next start catches up
	}
	lf := &a.follow
	lf.mu.Lock()
	a.startCatchUp()
	for _, id := range ids {
		lf.pending[id] = true
	}
	lf.mu.Unlock()
	lf.kickCatchUp()
}

// kickCatchUp wakes followCatchUp for the pending sessions, unless a wake-up is
// already waiting.
func (lf *liveFollow) kickCatchUp() {
	select {
	case lf.kick <- struct{}{}:
	default:
	}
}

// followCatchUp brings the index level and tells the views after each batch
// that changed sessions, as the archive watch does for other processes'
// imports, until the app shuts down.
func (a *App) followCatchUp() {
	lf := &a.follow
	for {
		select {
		case <-a.ctx.Done():
			return
		case <-lf.kick:
		}
		lf.mu.Lock()
		ids := make([]string, 0, len(lf.pending))
		for id := range lf.pending {
			ids = append(ids, id)
		}
		clear(lf.pending)
		lf.mu.Unlock()
		slices.Sort(ids)
		a.catchUpWith(ids)
	}
}
