// Package follow keeps the archive up to date while agents write: it watches every
// import root recursively with fsnotify (folders created later included), coalesces
// each burst of appends into one import of the files that changed, holds a torn
// tail of a live file as "still being written" rather than damage, and falls back
// to a slow rescan for a root it cannot watch (the inotify limit, a network file
// system), saying why. A root that does not exist yet is waited for by watching
// the nearest folder above it that does (that folder alone), with the slow rescan
// as the fallback. Which files make up a session comes from Options.Source (the
// archive's formats): a dsh log or an OpenHands events.jsonl is its own source, an
// OpenHands conversation folder the source of every event file in it.
//
// The package knows nothing of the archive's types: the import is a function the
// wiring supplies, and its per-file report type R comes back unchanged in the
// events, so `logbook watch` can print them as `logbook import` does.
package follow

import (
	"context"
	"log/slog"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Mode is how a root is being followed.
type Mode string

// Modes of a root.
const (
	// Watching: changes are signalled by the operating system and imported
	// within about a second.
	Watching Mode = "watching"
	// Polling: the root cannot be watched (Status.Reason says why), so it is
	// rescanned every Options.Rescan.
	Polling Mode = "polling"
	// Missing: the root does not exist (yet); it is followed once it appears,
	// told by a watch on the nearest folder above it, or found by the check
	// every Options.Rescan.
	Missing Mode = "missing"
)

// Status is what the UI shows for one root.
type Status struct {
	Root    string    `json:"root"`
	Mode    Mode      `json:"mode"`
	Reason  string    `json:"reason,omitempty"` // why the root is not watched, in words for the person
	Folders int       `json:"folders"`          // folders watched under the root (0 unless watching)
	Since   time.Time `json:"since"`            // when the root entered this mode
}

// State is what a follower makes of one imported file's report.
type State string

// States of an imported file.
const (
	// Imported: the report stands as the import gave it.
	Imported State = "imported"
	// Writing: the file ends in a torn line or frame, and it was written to less
	// than Options.TornQuiet ago: the tail is taken as still being written, not
	// as damage. It is imported again on its next write.
	Writing State = "writing"
	// Torn: the tail stayed torn for Options.TornQuiet after the last write; the
	// writer is gone and the torn tail is damage to report.
	Torn State = "torn"
)

// File is one file of an imported batch.
type File[R any] struct {
	Report R     `json:"report"`
	State  State `json:"state"`
}

// Batch is the outcome of one import run.
type Batch[R any] struct {
	At    time.Time `json:"at"`
	Files []File[R] `json:"files"`
	// Err is the import's own error (a fault of the run, not of a file). The files
	// it did not report are imported again after a pause.
	Err error `json:"-"`
}

// Options configures a Follower. Import, Path and Torn are required.
type Options[R any] struct {
	// Roots are the folders to follow: the default agent roots and the ones the
	// person added. A root that does not exist is followed once it appears.
	Roots []string
	// Import imports the named files (never an empty list) and returns one report
	// per file. It is the same import as `logbook import`'s: an unchanged file is
	// skipped on its stat, an appended one is read from where the last run stopped.
	Import func(ctx context.Context, paths []string) ([]R, error)
	// Path returns the file a report is about.
	Path func(R) string
	// Torn reports whether a report says the file ends in a torn (incomplete) line
	// or frame: for the archive, verdict recovered with a torn-tail problem.
	Torn func(R) bool
	// Match reports whether a file is a session log to import. The default takes
	// dsh V0 logs: session.jsonl and session.jsonl.zstd. Source, when set, is used
	// instead.
	Match func(path string) bool
	// Source maps a file that changed to the session source to import for it: the
	// file itself (a dsh log, an OpenHands events.jsonl), or a folder above it when
	// the session is a folder of files (an OpenHands conversation, one file per
	// event), or false when the file is part of no session. A source outside the
	// file's root is not followed. The wiring passes archive.SourceOf, which asks
	// the archive's formats, so the follower knows no format's file names.
	Source func(path string) (string, bool)

	// OnImport, when set, is called after every import run with its reports. It
	// runs on Run's goroutine: it must not block for long.
	OnImport func(Batch[R])
	// OnStatus, when set, is called when a root changes mode (and once per root at
	// the start). It runs on Run's goroutine: it must not block for long.
	OnStatus func(Status)

	// Debounce is how long a file must be quiet before its changes are imported;
	// 0 means 150 ms. A writer appending many small pieces makes one import.
	Debounce time.Duration
	// MaxDelay bounds the wait for a file that never goes quiet; 0 means 500 ms,
	// so a continuous writer still shows within a second.
	MaxDelay time.Duration
	// Rescan is the slow interval at which a root that cannot be watched is
	// rescanned, and a missing root is looked for; 0 means 30 s.
	Rescan time.Duration
	// TornQuiet is how long a torn tail must stay unwritten before it is reported
	// as torn; 0 means 30 s.
	TornQuiet time.Duration

	// Logger receives debug and warning logs; nil means slog.Default().
	Logger *slog.Logger
	// Now stamps statuses and batches; nil means time.Now. Waiting always uses the
	// real clock.
	Now func() time.Time

	// BeforeWatch, when set, is called before a folder is watched; an error is
	// taken as the watch's own error. It is a seam for tests (simulating the
	// inotify limit with syscall.ENOSPC).
	BeforeWatch func(dir string) error
	// NetworkFS reports whether a folder is on a network file system, where
	// changes made on other machines are never signalled, and its type's name.
	// The default reads statfs (and the mount table for FUSE) on Linux; elsewhere
	// it says no.
	NetworkFS func(dir string) (fsType string, network bool)
}

// Follower follows the roots of its Options. Create it with New and call Run
// once; Statuses and Writing may be called from any goroutine.
type Follower[R any] struct {
	opts Options[R]

	mu      sync.Mutex
	status  map[string]Status
	writing map[string]bool
}

// New returns a Follower for o, with defaults filled in.
func New[R any](o Options[R]) *Follower[R] {
	if o.Match == nil {
		o.Match = IsDshLog
	}
	if o.Source == nil {
		match := o.Match
		o.Source = func(p string) (string, bool) { return p, match(p) }
	}
	if o.Debounce <= 0 {
		o.Debounce = 150 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 500 * time.Millisecond
	}
	if o.MaxDelay < o.Debounce {
		o.MaxDelay = o.Debounce
	}
	if o.Rescan <= 0 {
		o.Rescan = 30 * time.Second
	}
	if o.TornQuiet <= 0 {
		o.TornQuiet = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Logger = o.Logger.With("component", "follow")
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NetworkFS == nil {
		o.NetworkFS = networkFS
	}
	return &Follower[R]{opts: o, status: map[string]Status{}, writing: map[string]bool{}}
}

// IsDshLog reports whether path names a dsh V0 session log.
func IsDshLog(path string) bool {
	name := filepath.Base(path)
	return name == "session.jsonl" || name == "session.jsonl.zstd"
}

// Run follows the roots until ctx is done, then returns nil; an import under way
// then is waited for, and its reports go to OnImport like any other's. Every session file
// already under a root is imported first (unchanged ones cost a stat), so nothing
// written between an earlier import and the start of watching is missed. Run
// returns an error only if the options are unusable.
func (f *Follower[R]) Run(ctx context.Context) error {
	l, err := newLoop(f)
	if err != nil {
		return err
	}
	defer l.close()
	return l.run(ctx)
}

// Statuses returns the status of every root, in root order.
func (f *Follower[R]) Statuses() []Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Status, 0, len(f.status))
	for _, s := range f.status {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out
}

// Writing returns the files whose torn tail is held as still being written,
// sorted: the UI shows them as live rather than damaged.
func (f *Follower[R]) Writing() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.writing))
	for p := range f.writing {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// setWriting records whether a file is held as still being written.
func (f *Follower[R]) setWriting(path string, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if on {
		f.writing[path] = true
	} else {
		delete(f.writing, path)
	}
}
