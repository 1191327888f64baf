package main

// The wiring of every command, the window and serve, in one place: where the data
// directory is and what lives in it, how the archive, the search index, the
// scheduler and the app are opened on it, and what a read-only data directory
// changes. Commands get an *env and ask it; none opens a store itself.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/logbook/logbook/app"
	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
	"github.com/logbook/logbook/internal/apikey"
	"github.com/logbook/logbook/internal/memlimit"
	"github.com/logbook/logbook/scheduler"
	"github.com/logbook/logbook/sync/archivesync"
)

// env is what every command gets: where to write, the data directory and how to
// open what it holds.
type env struct {
	stdout, stderr io.Writer
	dataDir        string
	logger         *slog.Logger
	readOnly       bool // the data directory cannot be written: open everything read-only
}

// newEnv returns the env of a process writing to stdout and stderr, before the
// data directory is known (see setDataDir). Its logger prints warnings only, on
// stderr, so --json output and scripts stay clean.
func newEnv(stdout, stderr io.Writer) *env {
	return &env{stdout: stdout, stderr: stderr,
		logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
}

// setDataDir resolves the data directory (--data as flag, see dataDir) and
// whether this process can write it.
func (e *env) setDataDir(flag string) error {
	dir, err := dataDir(flag)
	if err != nil {
		return err
	}
	e.dataDir = dir
	e.readOnly = !archive.Writable(e.archivePath())
	return nil
}

// dataDir resolves the archive directory: --data, then $LOGBOOK_DATA, then the OS
// user data directory ($XDG_DATA_HOME or ~/.local/share on Linux).
func dataDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if d := strings.TrimSpace(os.Getenv("LOGBOOK_DATA")); d != "" {
		return filepath.Abs(d)
	}
	switch runtime.GOOS {
	case "windows", "darwin":
		base, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("no data directory: %w (use --data)", err)
		}
		return filepath.Join(base, "Logbook"), nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "logbook"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory: %w (use --data)", err)
	}
	return filepath.Join(home, ".local", "share", "logbook"), nil
}

// What the data directory holds.

// archivePath is the archive's SQLite file.
func (e *env) archivePath() string { return filepath.Join(e.dataDir, "logbook.db") }

// indexDir is the search index, derived from the archive.
func (e *env) indexDir() string { return filepath.Join(e.dataDir, "index") }

// lockFile is the instance lock's name in the data directory.
const lockFile = "logbook.lock"

// lockPath is the instance lock of a running window, serve or scheduler
// (lockDataDir), which names its holder.
func (e *env) lockPath() string { return filepath.Join(e.dataDir, lockFile) }

// schedulerConfigPath is where the scheduler's configuration lives: a file in the
// data directory, not the archive, because it says which programs may run.
func (e *env) schedulerConfigPath() string { return filepath.Join(e.dataDir, "scheduler.json") }

// apiKeys is the store of the API keys tools and scripts present to the
// machine-to-machine endpoints: a file in the data directory, beside the archive,
// so the CLI manages them while serve runs.
func (e *env) apiKeys() *apikey.Store {
	s := apikey.New(filepath.Join(e.dataDir, apikey.FileName))
	s.Logger = e.logger
	return s
}

// The archive.

// openArchive opens (creating if needed) the archive in the data directory. In a
// data directory this process cannot write (a read-only mount, a folder without
// write permission, a backup being browsed) it opens the archive read-only, says so
// once on stderr, and every reading command works as usual.
func (e *env) openArchive(ctx context.Context) (*archive.Store, error) {
	if e.readOnly {
		s := archive.New(e.archivePath())
		s.Logger = e.logger
		if err := s.OpenReadOnly(ctx); err != nil {
			_ = s.Close()
			return nil, err
		}
		fmt.Fprintf(e.stderr, "logbook: %s cannot be written; the archive is open read-only\n", e.dataDir)
		return s, nil
	}
	if err := os.MkdirAll(e.dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	s := archive.New(e.archivePath())
	s.Logger = e.logger
	if err := s.Open(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// needWritable is the error of a command that must write the archive when the data
// directory is read-only.
func (e *env) needWritable(what string) error {
	if !e.readOnly {
		return nil
	}
	return fmt.Errorf("%s needs to write the archive, but the data directory %s cannot be written (a read-only mount, or no write permission); reading commands (sessions, show, search, export, serve) still work, or choose another directory with --data", what, e.dataDir)
}

// The search index.

// What each command records of itself while it has the search index open for
// writing (index.Holder), so that another command finding it busy can say who
// holds it. The one-shot commands let go when they are done, so another waits
// for them a little (oneShotWait) rather than failing.
const (
	holderSearch  = "logbook search"
	holderImport  = "logbook import"
	holderReindex = "logbook reindex"
	holderSync    = "logbook sync"
	holderServe   = "logbook serve"
	holderWindow  = "the Logbook window"
)

// oneShotWait is how long a command waits for a one-shot command (an import
// indexing what it imported, a search bringing the index up to date) to let go of
// the search index.
const oneShotWait = 10 * time.Second

// openIndex opens the search index beside the archive, as the command who, and
// brings it level with it: a version change rebuilds it and sessions imported
// since the last run are indexed, so search never silently misses what the archive
// holds. In a read-only data directory it searches the index as it is when that is
// level with the archive, and otherwise a temporary one (openIndexReadOnly).
func (e *env) openIndex(ctx context.Context, s *archive.Store, who string, quiet bool) (*index.Index, error) {
	if e.readOnly {
		return e.openIndexReadOnly(ctx, s, quiet)
	}
	ix, err := e.openIndexOnly(who, false)
	if err != nil {
		return nil, err
	}
	_, err = ix.Sync(ctx, s, e.indexProgress(quiet))
	if err == nil {
		return ix, nil
	}
	ix.Close()
	if !index.IsNoSpace(err) {
		return nil, fmt.Errorf("update search index: %w", err)
	}
	// The index on disk keeps every session it took in whole: search that, and
	// say what it may lack.
	again, oerr := e.openIndexOnly(who, false)
	if oerr != nil {
		return nil, fmt.Errorf("update search index: %w", err)
	}
	fmt.Fprintf(e.stderr, "logbook: the disk is full, so the search index could not take in every session; results may miss the latest (free some space and any search catches up): %v\n", err)
	return again, nil
}

// openIndexOnly opens the search index for writing as the command who; fresh
// discards what the index directory holds first (reindex). Bleve allows one
// process per index: when a one-shot command holds it, this waits for it up to
// oneShotWait with a note on stderr; otherwise it names the holder.
func (e *env) openIndexOnly(who string, fresh bool) (*index.Index, error) {
	dir := e.indexDir()
	o := index.Options{Holder: index.Holder{Command: who, OneShot: who != holderServe && who != holderWindow},
		Fresh: fresh, Wait: -1}
	ix, err := index.OpenWith(dir, o)
	var iu *index.InUseError
	if errors.As(err, &iu) {
		o.Wait = 0 // Open's own short wait: a window that is closing lets go
		if h := iu.Holder; h != nil && h.OneShot && !h.Gone {
			fmt.Fprintf(e.stderr, "logbook: waiting for %s to finish indexing…\n", h)
			o.Wait = oneShotWait
		}
		ix, err = index.OpenWith(dir, o)
	}
	if errors.As(err, &iu) {
		return nil, e.indexInUse(iu, o.Wait)
	}
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	return ix, nil
}

// openIndexOnlyQuiet opens the index for writing without waiting for, or
// reporting, another holder.
func (e *env) openIndexOnlyQuiet(who string) (*index.Index, error) {
	return index.OpenWith(e.indexDir(),
		index.Options{Holder: index.Holder{Command: who, OneShot: true}, Wait: -1})
}

// indexInUse says who holds the search index and what to do about it.
func (e *env) indexInUse(iu *index.InUseError, waited time.Duration) error {
	switch h := iu.Holder; {
	case h != nil && !h.Gone && h.OneShot:
		return fmt.Errorf("%w; it is still at work after %s: try again when it finishes", iu, waited)
	case h != nil && !h.Gone:
		return fmt.Errorf("%w; search in its UI, or stop it first", iu)
	}
	// No live record: a read-only Logbook, or one from before the record. The
	// instance lock names a running window or serve.
	if b, err := os.ReadFile(e.lockPath()); err == nil && strings.TrimSpace(string(b)) != "" {
		return fmt.Errorf("%w; running here: %s", iu, strings.TrimSpace(string(b)))
	}
	return fmt.Errorf("%w; close the other Logbook, or try again when it is done", iu)
}

// openIndexReadOnly opens the search index of a read-only data directory. The
// index is searched as it is when it is level with the archive. When it is
// missing, unusable or behind, a temporary index is built in os.TempDir() (from a
// copy of the index when there is one) and brought level with the archive, so
// search still answers; it is removed on Close, and stderr says so.
func (e *env) openIndexReadOnly(ctx context.Context, s *archive.Store, quiet bool) (*index.Index, error) {
	dir := e.indexDir()
	ro, err := index.OpenWith(dir, index.Options{ReadOnly: true})
	var why string
	switch {
	case errors.Is(err, index.ErrNoIndex):
		why = "missing"
	case err != nil:
		why = fmt.Sprintf("unusable (%v)", err)
	default:
		n, err := ro.Pending(ctx, s)
		if err == nil && n == 0 {
			return ro, nil
		}
		why = fmt.Sprintf("%d sessions behind the archive", n)
		if err != nil {
			why = fmt.Sprintf("not checkable against the archive (%v)", err)
		}
	}
	tmp, err := index.OpenTemp(ro)
	if ro != nil {
		ro.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("the search index in %s is %s, and the data directory is read-only; a temporary index could not be made: %w", dir, why, err)
	}
	fmt.Fprintf(e.stderr, "logbook: the search index in %s is %s and cannot be updated (read-only data directory); searching a temporary index in %s instead, removed on exit\n", dir, why, tmp.Dir())
	if _, err := tmp.Sync(ctx, s, e.indexProgress(quiet)); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("build temporary search index: %w", err)
	}
	return tmp, nil
}

// Sync.

// syncPaths are the sync files in the data directory: sync.json (the remote and
// this machine's id), sync.key (the archive key, 0600) and sync/ (state, pulled
// sessions, kept conflicts). See sync/archivesync.
func (e *env) syncPaths() archivesync.Paths { return archivesync.Paths{Dir: e.dataDir} }

// The scheduler.

// newScheduler returns the scheduler for this data directory's archive. With cfg
// nil it is configured from scheduler.json (and saves changes there), as serve and
// the window run it; `logbook scheduler` passes the configuration its flags made,
// and notify to print each fire.
func (e *env) newScheduler(s *archive.Store, cfg *scheduler.Config, notify func(scheduler.Fire)) *scheduler.Scheduler {
	o := scheduler.Options{Logger: e.logger, Notify: notify}
	if e.dataDir != "" {
		o.DemoRoots = []string{app.DemoRoot(e.dataDir)} // the demo's schedules never fire
	}
	if cfg != nil {
		o.Config = *cfg
	} else {
		o.ConfigPath = e.schedulerConfigPath()
	}
	return scheduler.New(s, o)
}

// The app (serve, the window).

// uiOptions are the flags the browser UI (serve) and the window share.
type uiOptions struct {
	noImport    bool // skip the start-up import of the session roots (and live follow)
	noFollow    bool // import on start, but do not follow the roots live
	demoIfEmpty bool // fill an empty archive with the labelled demo
}

func (o *uiOptions) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.noImport, "no-import", false, "do not import the session roots on start, nor follow them live")
	fs.BoolVar(&o.noFollow, "no-follow", false, "import the session roots on start, but do not follow them live (import again with Import now)")
	fs.BoolVar(&o.demoIfEmpty, "demo-if-empty", false, "fill an empty archive with a clearly labelled demo archive")
}

// selfTestEnv reports whether APP_SELFTEST asks for the start-up self-test: the UI
// calls SelfTest once it has loaded, and the process reports it and exits.
func selfTestEnv() bool { return os.Getenv("APP_SELFTEST") == "1" }

// uiWiring is what a UI works on: the archive, the index, the hub its events go
// through, and the dependencies app.New takes, built from them.
type uiWiring struct {
	archive *archive.Store
	index   *index.Index
	hub     *app.Hub
	deps    app.Deps
}

// Close closes the index, then the archive; it is safe on a partly opened uiWiring.
func (u *uiWiring) Close() {
	if u.index != nil {
		u.index.Close()
	}
	if u.archive != nil {
		u.archive.Close()
	}
}

// openUI opens the archive and the index and builds the app's dependencies. With
// syncNow the index is brought level with the archive before returning; otherwise
// the start-up import does it (its last phase), so a window appears at once even
// when the index is rebuilt. who is what the process records of itself in the
// index (holderServe, holderWindow). In a read-only data directory there is no
// start-up import, so the index is made ready now (openIndex).
func (e *env) openUI(ctx context.Context, o uiOptions, syncNow bool, who string) (*uiWiring, error) {
	memlimit.Apply() // the window and serve import too: at start, from Import, live follow, sync
	s, err := e.openArchive(ctx)
	if err != nil {
		return nil, err
	}
	u := &uiWiring{archive: s}
	if syncNow || e.readOnly {
		u.index, err = e.openIndex(ctx, s, who, false)
	} else {
		u.index, err = e.openIndexOnly(who, false)
	}
	if err != nil {
		u.Close()
		return nil, err
	}
	u.hub = app.NewHub()
	u.hub.Logger = e.logger
	u.deps = app.Deps{Archive: u.archive, Index: u.index, Logger: e.logger, Version: version, DataDir: e.dataDir,
		Roots: archive.DefaultRoots(), SelfTest: selfTestEnv(), Events: u.hub, APIKeys: e.apiKeys()}
	if e.readOnly {
		// Nothing can be imported or recorded: no start-up import, no demo, and no
		// scheduler (a fire it could not record would fire again and again).
		fmt.Fprintln(e.stderr, "logbook: read-only data directory: showing the archive as it is (no import, no scheduled prompts)")
		return u, nil
	}
	u.deps.Scheduler = e.newScheduler(u.archive, nil, nil)
	u.deps.ImportOnStart, u.deps.DemoIfEmpty = !o.noImport, o.demoIfEmpty
	// Live follow: a session an agent is writing shows as it grows. It imports
	// the roots, so --no-import turns it off too.
	u.deps.Follow = !o.noImport && !o.noFollow
	return u, nil
}
