package app

import (
	"errors"
	"time"

	"github.com/logbook/logbook/index"
)

// defaultWatchEvery is how often a running app looks for imports made by other
// processes (`logbook import` from a terminal or a cron job).
const defaultWatchEvery = 5 * time.Second

// watchArchive notices changes other processes make to the archive — one cheap
// query a tick — and catches up with them: the search index (which only this
// process may write while it runs), the scheduler's armed set, and the open views.
func (a *App) watchArchive() {
	every := a.deps.WatchEvery
	if every == 0 {
		every = defaultWatchEvery
	}
	if every < 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx.Err() != nil {
		return // Shutdown has begun
	}
	a.watchWG.Add(1)
	go func() {
		defer a.watchWG.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-a.ctx.Done():
				return
			case <-tick.C:
				a.catchUp()
			}
		}
	}()
}

// catchUp runs one watch tick.
func (a *App) catchUp() {
	stamp, err := a.deps.Archive.ChangeStamp(a.ctx)
	if err != nil {
		return
	}
	a.mu.Lock()
	if a.importing || stamp == a.stamp {
		// This app's own import brings everything level itself (and records the
		// stamp when it ends).
		a.mu.Unlock()
		return
	}
	first := !a.stampKnown
	a.stamp, a.stampKnown = stamp, true
	a.mu.Unlock()
	if first {
		return // the starting point, not a change
	}
	a.catchUpWith([]string{})
}

// catchUpWith brings the search index and the scheduler level with the archive
// and tells the open views which sessions changed (none named: the lists and
// search refresh, an open conversation stays as it is).
func (a *App) catchUpWith(sessions []string) {
	if a.deps.Index != nil {
		if _, err := a.deps.Index.Sync(a.ctx, a.deps.Archive, nil); err != nil && !errors.Is(err, index.ErrClosed) {
			a.log.Warn("search index catch-up failed", "err", err)
		}
	}
	if s := a.deps.Scheduler; s != nil && s.Running() {
		if err := s.Reload(a.ctx); err != nil {
			a.log.Warn("scheduler reload failed", "err", err)
		}
	}
	if len(sessions) > 0 {
		a.noteStamp() // this process's own change: the watch need not catch up with it
	}
	a.events.Publish(EventArchiveChanged, ArchiveChanged{Sessions: sessions})
}

// noteStamp records the archive's change stamp after this app changed it itself.
func (a *App) noteStamp() {
	if stamp, err := a.deps.Archive.ChangeStamp(a.ctx); err == nil {
		a.mu.Lock()
		a.stamp, a.stampKnown = stamp, true
		a.mu.Unlock()
	}
}
