package follow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// root is one followed root.
type root struct {
	path     string // as configured, made absolute
	real     string // with symbolic links resolved, as the import walks it; "" while missing
	mode     Mode
	reason   string
	folders  int // folders watched
	since    time.Time
	nextScan time.Time        // polling or missing: when it is looked at again
	snap     map[string]stamp // polling: each session file as the last scan saw it
	waitIn   string           // missing: the folder above it watched for its creation
}

// stamp is what a rescan compares to tell a file changed.
type stamp struct{ size, mtime int64 }

// activate starts following a root: watching it, or polling it when it cannot be
// watched, or looking for it when it is missing. Every session file already in it
// is queued for import.
func (l *loop[R]) activate(r *root) {
	l.stopAwait(r)
	fi, err := os.Stat(r.path)
	if err != nil || !fi.IsDir() {
		why := "it does not exist yet"
		switch {
		case err == nil:
			why = "it is not a folder"
		case !errors.Is(err, fs.ErrNotExist):
			why = err.Error()
		}
		r.real, r.snap = "", nil
		l.setMode(r, Missing, why)
		if errors.Is(err, fs.ErrNotExist) {
			l.awaitCreation(r)
		}
		return
	}
	r.real = r.path
	if real, err := filepath.EvalSymlinks(r.path); err == nil {
		r.real = real
	}
	if l.w == nil {
		l.poll(r, l.noW)
		return
	}
	if name, network := l.o.NetworkFS(r.real); network {
		l.poll(r, fmt.Sprintf("it is on a network file system (%s), where changes made by other machines are not signalled", name))
		return
	}
	if err := l.watchTree(r, r.real); err != nil {
		l.unwatch(r)
		l.poll(r, watchFailure(err))
		return
	}
	l.setMode(r, Watching, "")
}

// watchTree watches dir and every folder below it that is not watched yet, and
// queues every session file in them. Each folder is watched before it is read,
// so a file created while this runs is either read here or signalled.
// It fails only when the system is out of watches (or files); a folder that
// vanished or cannot be read is skipped.
func (l *loop[R]) watchTree(r *root, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir {
				l.o.Logger.Debug("folder not followed", "path", p, "err", err)
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			l.touchFile(r, p)
			return nil
		}
		if l.dirs[p] != nil {
			return nil
		}
		if err := l.addWatch(p); err != nil {
			if isLimit(err) {
				return err
			}
			l.o.Logger.Debug("folder not watched", "path", p, "err", err)
			return fs.SkipDir
		}
		l.dirs[p] = r
		r.folders++
		return nil
	})
}

func (l *loop[R]) addWatch(dir string) error {
	if l.o.BeforeWatch != nil {
		if err := l.o.BeforeWatch(dir); err != nil {
			return err
		}
	}
	return l.w.Add(dir)
}

// isLimit reports whether a watch failed for want of a system resource, so that
// the root is better polled than watched in part.
func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) ||
		errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOMEM)
}

// watchFailure says, for the person, why a root cannot be watched.
func watchFailure(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		why := "the system's limit on watched folders is reached"
		if n := watchLimit(); n > 0 {
			why += fmt.Sprintf(" (fs.inotify.max_user_watches = %d, shared by every program of this user)", n)
		}
		return why + "; raise it, for example with sudo sysctl fs.inotify.max_user_watches=524288"
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "too many files are open to watch more folders"
	}
	return "watching failed: " + err.Error()
}

// unwatch stops watching every folder of a root (the watches go back to the
// system for the other roots).
func (l *loop[R]) unwatch(r *root) {
	for d, rr := range l.dirs {
		if rr == r {
			if len(l.parents[d]) == 0 { // else still watched for a missing root
				_ = l.w.Remove(d)
			}
			delete(l.dirs, d)
		}
	}
	r.folders = 0
}

// forget drops the watches of a folder that was removed or moved away, and of
// the folders below it.
func (l *loop[R]) forget(dir string) {
	below := dir + string(filepath.Separator)
	for d, r := range l.dirs {
		if d == dir || strings.HasPrefix(d, below) {
			if len(l.parents[d]) == 0 {
				_ = l.w.Remove(d) // mostly gone already with the folder
			}
			delete(l.dirs, d)
			r.folders--
		}
	}
	for d := range l.folderSrc {
		if d == dir || strings.HasPrefix(d, below) {
			delete(l.folderSrc, d)
		}
	}
}

// poll makes a root polled for a reason, and scans it at once.
func (l *loop[R]) poll(r *root, reason string) {
	r.snap = nil
	l.scan(r)
	l.setMode(r, Polling, reason)
}

// rescan looks at a root that is not watched: a missing one is activated when it
// appears, a polled one is scanned for changed files.
func (l *loop[R]) rescan(r *root) {
	if r.mode == Missing {
		l.activate(r)
		return
	}
	if fi, err := os.Stat(r.real); err != nil || !fi.IsDir() {
		l.activate(r) // gone: missing, with the reason
		return
	}
	l.scan(r)
	r.nextScan = time.Now().Add(l.o.Rescan)
}

// scan queues every session file of a polled root whose size or modification
// time changed since the last scan (all of them on the first).
func (l *loop[R]) scan(r *root) {
	snap := make(map[string]stamp, len(r.snap))
	_ = filepath.WalkDir(r.real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != r.real {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		src, ok := l.sourceOf(r, p)
		if !ok {
			return nil
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil
		}
		st := stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		if old, ok := r.snap[p]; !ok || old != st {
			l.touch(src)
		}
		snap[p] = st
		return nil
	})
	r.snap = snap
}

// lost marks a watched root that was removed or moved away as missing.
func (l *loop[R]) lost(r *root) {
	l.unwatch(r)
	r.real = ""
	l.setMode(r, Missing, "it was removed")
	l.awaitCreation(r)
}

// awaitCreation watches the nearest existing folder above a missing root (that
// folder alone, not what is below it), so that the root's creation, or that of a
// folder on the way to it, is signalled at once instead of found by the next
// rescan, which stays as the fallback. A root whose next folder appeared while
// this ran is activated again.
func (l *loop[R]) awaitCreation(r *root) {
	if l.w == nil {
		return
	}
	for range 64 { // each round finds the root, or a folder nearer to it
		dir := filepath.Dir(r.path)
		for {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				break
			}
			up := filepath.Dir(dir)
			if up == dir {
				return
			}
			dir = up
		}
		if _, network := l.o.NetworkFS(dir); network {
			return // creations by other machines are not signalled there
		}
		if len(l.parents[dir]) == 0 && l.dirs[dir] == nil {
			if err := l.addWatch(dir); err != nil {
				l.o.Logger.Debug("creation of a missing root not watched; it is looked for every rescan", "root", r.path, "folder", dir, "err", err)
				return
			}
		}
		l.parents[dir] = append(l.parents[dir], r)
		r.waitIn = dir
		// Made between the look and the watch?
		next := r.path
		for filepath.Dir(next) != dir {
			next = filepath.Dir(next)
		}
		if _, err := os.Lstat(next); err != nil {
			return
		}
		l.stopAwait(r)
		if _, err := os.Stat(r.path); err == nil {
			l.activate(r)
			return
		}
	}
}

// stopAwait stops watching for a root's creation; the folder's watch goes when
// no root waits in it and it is not watched for a root of its own.
func (l *loop[R]) stopAwait(r *root) {
	dir := r.waitIn
	if dir == "" {
		return
	}
	r.waitIn = ""
	l.parents[dir] = slices.DeleteFunc(l.parents[dir], func(x *root) bool { return x == r })
	if len(l.parents[dir]) == 0 {
		delete(l.parents, dir)
		if l.dirs[dir] == nil && l.w != nil {
			_ = l.w.Remove(dir)
		}
	}
}

// created takes a creation in a folder watched for missing roots: the roots at
// or below the new entry are activated (or wait in it, if still missing).
func (l *loop[R]) created(p string) {
	for _, r := range slices.Clone(l.parents[filepath.Dir(p)]) {
		if r.path == p || strings.HasPrefix(r.path, p+string(filepath.Separator)) {
			l.activate(r)
		}
	}
}

// event takes one change signalled by the system.
func (l *loop[R]) event(ev fsnotify.Event) {
	p := ev.Name
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		// A folder watched for missing roots went: they wait further up.
		for _, r := range slices.Clone(l.parents[p]) {
			l.stopAwait(r)
			l.awaitCreation(r)
		}
		// A removed or moved file needs nothing: the archive keeps what it holds,
		// and a file moved within a root arrives as a Create under its new name.
		if r := l.dirs[p]; r != nil {
			l.forget(p)
			if p == r.real {
				l.lost(r)
			} else {
				l.publish(r, false)
			}
		}
	case ev.Has(fsnotify.Create):
		l.created(p)
		r := l.dirs[filepath.Dir(p)]
		if r == nil || r.mode != Watching {
			return
		}
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			// A new folder (mkdir -p a/b/c included): watch it and everything
			// below it, and take the files written before the watch was there.
			if err := l.watchTree(r, p); err != nil {
				l.unwatch(r)
				l.poll(r, watchFailure(err))
				return
			}
			l.publish(r, false)
			return
		}
		l.touchFile(r, p)
	case ev.Has(fsnotify.Write):
		if r := l.dirs[filepath.Dir(p)]; r != nil {
			l.touchFile(r, p)
		}
	}
}

// touchFile records a change to a file of root r: its session source, if it is
// part of one, is queued for import.
func (l *loop[R]) touchFile(r *root, p string) {
	if src, ok := l.sourceOf(r, p); ok {
		l.touch(src)
	}
}

// sourceOf is the session source of a file of root r (see Options.Source). The
// folder source of a folder is remembered, so a conversation written event file
// by event file is not listed for each one.
func (l *loop[R]) sourceOf(r *root, p string) (string, bool) {
	dir := filepath.Dir(p)
	if src, ok := l.folderSrc[dir]; ok {
		return src, true
	}
	src, ok := l.o.Source(p)
	if !ok {
		return "", false
	}
	base := r.real
	if base == "" {
		base = r.path
	}
	if src != base && !strings.HasPrefix(src, base+string(filepath.Separator)) {
		return "", false // above the root: not followed
	}
	if src != p {
		l.folderSrc[dir] = src
	}
	return src, true
}

// watchError takes an error of the watcher. Lost events (the kernel's queue
// overflowed) are made up for by walking every watched root again; any other
// error ends watching, and every root is polled instead.
func (l *loop[R]) watchError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		l.o.Logger.Warn("file events were lost; rescanning the watched roots")
		for _, r := range l.roots {
			if r.mode != Watching {
				continue
			}
			if err := l.watchTree(r, r.real); err != nil {
				l.unwatch(r)
				l.poll(r, watchFailure(err))
			}
		}
		return
	}
	l.o.Logger.Error("file watching failed; roots are rescanned instead", "err", err, "every", l.o.Rescan)
	l.noW = "file watching stopped: " + err.Error()
	for _, r := range l.roots {
		l.stopAwait(r)
		if r.mode == Watching {
			l.unwatch(r)
			l.poll(r, l.noW)
		}
	}
	_ = l.w.Close()
	l.w, l.events, l.errs = nil, nil, nil
}

// setMode sets a root's mode, telling OnStatus when it (or its reason) changed.
func (l *loop[R]) setMode(r *root, m Mode, reason string) {
	changed := r.mode != m || r.reason != reason
	if changed {
		r.since = l.o.Now()
		switch m {
		case Polling:
			l.o.Logger.Warn("root polled, not watched", "root", r.path, "reason", reason, "every", l.o.Rescan)
		case Missing: // an agent that is not installed here: nothing is wrong
			l.o.Logger.Info("root missing", "root", r.path, "reason", reason, "every", l.o.Rescan)
		}
	}
	r.mode, r.reason = m, reason
	if m != Watching {
		r.nextScan = time.Now().Add(l.o.Rescan)
	}
	l.publish(r, changed)
}

// publish records a root's status for Statuses, and tells OnStatus if notify.
func (l *loop[R]) publish(r *root, notify bool) {
	s := Status{Root: r.path, Mode: r.mode, Reason: r.reason, Folders: r.folders, Since: r.since}
	l.f.mu.Lock()
	l.f.status[s.Root] = s
	l.f.mu.Unlock()
	if notify && l.o.OnStatus != nil {
		l.o.OnStatus(s)
	}
}
