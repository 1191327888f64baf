package follow

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/fsnotify/fsnotify"
)

// loop is the state of one Run. Only Run's goroutine touches it; the import runs
// on a goroutine of its own and hands its result back on done.
type loop[R any] struct {
	f     *Follower[R]
	o     Options[R]
	w     *fsnotify.Watcher // nil when file watching is unavailable
	noW   string            // why w is nil
	roots []*root
	dirs  map[string]*root // watched folder → its root

	pending map[string]*change
	live    map[string]*liveFile
	// folderSrc maps a folder to the folder session source its files belong to
	// (see sourceOf).
	folderSrc map[string]string
	// parents maps a folder watched for the creation of missing roots below it
	// to those roots (see awaitCreation).
	parents map[string][]*root

	importing bool
	done      chan imported[R]
	backoff   time.Duration // pause before retrying a failed import; 0 after a success

	timer  *time.Timer
	events chan fsnotify.Event
	errs   chan error
}

// change is a file waiting to be imported.
type change struct {
	first, last time.Time // first and latest change seen since its last import
	notBefore   time.Time // a retry after a failed import waits until then
	confirm     bool      // a torn tail's quiet check: import it now
}

// liveFile is a file whose torn tail is held as still being written.
type liveFile struct {
	deadline   time.Time // when it is checked again, unless written to before
	confirming bool      // the check is under way, and no write came since
}

// imported is an import run's outcome.
type imported[R any] struct {
	paths   []string
	confirm map[string]bool
	reports []R
	err     error
}

func newLoop[R any](f *Follower[R]) (*loop[R], error) {
	o := f.opts
	if o.Import == nil || o.Path == nil || o.Torn == nil {
		return nil, errors.New("follow: Options.Import, Path and Torn are required")
	}
	l := &loop[R]{f: f, o: o, dirs: map[string]*root{}, pending: map[string]*change{},
		live: map[string]*liveFile{}, folderSrc: map[string]string{}, parents: map[string][]*root{}, done: make(chan imported[R], 1)}
	seen := map[string]bool{}
	for _, p := range o.Roots {
		abs, err := filepath.Abs(p)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		l.roots = append(l.roots, &root{path: abs})
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		l.noW = "file watching is unavailable on this system: " + err.Error()
		o.Logger.Warn("file watching unavailable; roots are rescanned", "err", err, "every", o.Rescan)
	} else {
		l.w, l.events, l.errs = w, w.Events, w.Errors
	}
	l.timer = time.NewTimer(time.Hour)
	l.timer.Stop()
	return l, nil
}

func (l *loop[R]) close() {
	l.timer.Stop()
	if l.w != nil {
		_ = l.w.Close()
	}
}

func (l *loop[R]) run(ctx context.Context) error {
	for _, r := range l.roots {
		l.activate(r)
	}
	for {
		l.startImport(ctx)
		l.arm()
		select {
		case <-ctx.Done():
			if l.importing {
				// The import was given ctx: it stops, or finishes its batch if its
				// importer chose to. Its reports are handed on like any other's.
				l.finish(<-l.done)
			}
			return nil
		case ev, ok := <-l.events:
			if !ok {
				l.events = nil
				continue
			}
			l.event(ev)
		case err, ok := <-l.errs:
			if !ok {
				l.errs = nil
				continue
			}
			l.watchError(err)
		case <-l.timer.C:
			l.tick()
		case res := <-l.done:
			l.finish(res)
		}
	}
}

// arm sets the one timer to the earliest thing due, or stops it when nothing is:
// an idle follower has no timer and wakes only for an event. (Since Go 1.23 a
// timer's Stop and Reset leave no stale tick in its channel.)
func (l *loop[R]) arm() {
	next, ok := l.nextDue()
	if !ok {
		l.timer.Stop()
		return
	}
	l.timer.Reset(max(time.Until(next), 0))
}

// nextDue is the earliest moment something is due: a pending import (unless one
// is running, whose end re-arms), a torn tail's check, a root's rescan.
func (l *loop[R]) nextDue() (time.Time, bool) {
	var next time.Time
	take := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if !l.importing {
		for _, c := range l.pending {
			take(l.due(c))
		}
	}
	for _, lf := range l.live {
		if !lf.confirming {
			take(lf.deadline)
		}
	}
	for _, r := range l.roots {
		if r.mode != Watching {
			take(r.nextScan)
		}
	}
	return next, !next.IsZero()
}

// due is when a pending change is imported: once the file has been quiet for
// Debounce, or MaxDelay after its first change if it never goes quiet.
func (l *loop[R]) due(c *change) time.Time {
	t := c.last.Add(l.o.Debounce)
	if c.confirm {
		t = time.Time{}
	} else if limit := c.first.Add(l.o.MaxDelay); limit.Before(t) {
		t = limit
	}
	if c.notBefore.After(t) {
		t = c.notBefore
	}
	return t
}

// touch records a change to a session file, seen by an event or a rescan.
func (l *loop[R]) touch(path string) {
	now := time.Now()
	if c := l.pending[path]; c != nil {
		c.last = now
	} else {
		l.pending[path] = &change{first: now, last: now}
	}
	if lf := l.live[path]; lf != nil {
		lf.deadline, lf.confirming = now.Add(l.o.TornQuiet), false
	}
}

// tick does what is due: rescans and torn-tail checks. Due imports start in run.
func (l *loop[R]) tick() {
	now := time.Now()
	for _, r := range l.roots {
		if r.mode != Watching && !now.Before(r.nextScan) {
			l.rescan(r)
		}
	}
	for p, lf := range l.live {
		if !lf.confirming && !now.Before(lf.deadline) {
			// Quiet for TornQuiet: import it once more (a stat, if nothing
			// changed); still torn then, it is reported as torn.
			lf.confirming = true
			if c := l.pending[p]; c != nil {
				c.confirm = true
			} else {
				l.pending[p] = &change{first: now, last: now, confirm: true}
			}
		}
	}
}

// startImport imports every file that is due, unless an import is running.
func (l *loop[R]) startImport(ctx context.Context) {
	if l.importing || len(l.pending) == 0 || ctx.Err() != nil {
		return
	}
	now := time.Now()
	var paths []string
	confirm := map[string]bool{}
	for p, c := range l.pending {
		if now.Before(l.due(c)) {
			continue
		}
		delete(l.pending, p)
		// A source removed since its change is not imported: the import would only
		// report it missing. The archive keeps what it holds.
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() && !fi.IsDir() {
			l.settle(p)
			continue
		}
		paths = append(paths, p)
		if c.confirm {
			confirm[p] = true
		}
	}
	if len(paths) == 0 {
		return
	}
	sort.Strings(paths)
	l.importing = true
	go func() {
		reports, err := l.o.Import(ctx, paths)
		l.done <- imported[R]{paths: paths, confirm: confirm, reports: reports, err: err}
	}()
}

// finish takes an import's reports: torn tails of live files are held as being
// written, and files the import did not get to are retried after a pause.
func (l *loop[R]) finish(res imported[R]) {
	l.importing = false
	b := Batch[R]{At: l.o.Now(), Files: make([]File[R], 0, len(res.reports)), Err: res.err}
	reported := make(map[string]bool, len(res.reports))
	now := time.Now()
	for _, r := range res.reports {
		p := l.o.Path(r)
		reported[p] = true
		b.Files = append(b.Files, File[R]{Report: r, State: l.judge(p, r, res.confirm[p], now)})
	}
	if res.err != nil && !errors.Is(res.err, context.Canceled) {
		l.backoff = min(max(2*l.backoff, time.Second), l.o.Rescan)
		l.o.Logger.Warn("import failed; retrying", "files", len(res.paths), "err", res.err, "in", l.backoff)
		for _, p := range res.paths {
			if reported[p] {
				continue
			}
			c := l.pending[p]
			if c == nil {
				c = &change{first: now, last: now}
				l.pending[p] = c
			}
			c.notBefore = now.Add(l.backoff)
			c.confirm = c.confirm || res.confirm[p]
		}
	} else {
		l.backoff = 0
	}
	if l.o.OnImport != nil {
		l.o.OnImport(b)
	}
}

// judge is the state of a file's report, and keeps the live set up to date.
func (l *loop[R]) judge(path string, r R, confirmed bool, now time.Time) State {
	if !l.o.Torn(r) {
		l.settle(path)
		return Imported
	}
	lf := l.live[path]
	if confirmed && lf != nil && lf.confirming {
		l.settle(path)
		return Torn
	}
	switch {
	case lf == nil:
		l.live[path] = &liveFile{deadline: now.Add(l.o.TornQuiet)}
		l.f.setWriting(path, true)
	case lf.confirming:
		// The check was not this import (it failed, and this is its retry
		// without the flag): check again later rather than never.
		lf.deadline, lf.confirming = now.Add(l.o.TornQuiet), false
	}
	return Writing
}

// settle drops a file from the live set.
func (l *loop[R]) settle(path string) {
	if l.live[path] != nil {
		delete(l.live, path)
		l.f.setWriting(path, false)
	}
}
