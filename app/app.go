// Package app is the thin layer the user interface calls: one bound App type whose
// exported methods validate input, call the archive and the index, and return
// JSON-tagged DTOs. The same methods serve the Wails window (as bindings) and the
// browser (through Server, over HTTP). Business rules live in archive, index and
// scheduler.
//
// Nothing imports app except main.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
	"github.com/logbook/logbook/internal/apikey"
	"github.com/logbook/logbook/scheduler"
	"github.com/logbook/logbook/sync/archivesync"
)

// Deps are what main hands to the app.
type Deps struct {
	Archive *archive.Store
	Index   *index.Index
	Logger  *slog.Logger
	Version string
	DataDir string
	Roots   []string // session roots imported by StartImport (archive.DefaultRoots() by default)
	// MaxBundleUpload bounds a bundle a browser uploads to import (bundleimport.go);
	// 0 means 1 GiB.
	MaxBundleUpload int64
	// SelfTest, when set, makes the UI call SelfTest on load; the desktop shell then
	// quits (see the APP_SELFTEST environment variable in main).
	SelfTest bool
	// OnSelfTest, when set, is called by SelfTest with the marker (the desktop shell
	// prints it and quits).
	OnSelfTest func(marker string)
	// Scheduler re-arms the archive's scheduled prompts (package scheduler); nil
	// disables the schedule methods.
	Scheduler *scheduler.Scheduler
	// Events fans app events out to the window and to browsers; New makes one when nil.
	Events *Hub
	// ImportOnStart makes Startup import Roots in the background, as StartImport does.
	ImportOnStart bool
	// DemoIfEmpty makes Startup create the demo archive (CreateDemo) when the archive
	// is still empty once the start-up import, if any, is done.
	DemoIfEmpty bool
	// APIKeys are the keys tools and scripts present to the machine-to-machine
	// endpoints (package apikey); New keeps them in DataDir/apikeys.json when nil.
	APIKeys *apikey.Store
	// Follow makes the app follow the import roots live while it runs (package
	// sync/follow): a session an agent is writing is imported as it grows, and the
	// views follow. With ImportOnStart it starts once the start-up import is done.
	Follow bool
	// Webhook makes the HTTP server accept the OpenHands webhook (package
	// sync/webhook) under /api/v1/webhooks: an agent server's pushed events are
	// kept and imported by the archive (archive.Pushed), with the API keys.
	Webhook bool
	// WatchEvery is how often the app looks for changes other processes made to the
	// archive (5 s when 0; negative turns the watch off).
	WatchEvery time.Duration
}

// App is the Go API of the UI. Every exported method except Startup and Shutdown
// is callable from JavaScript.
type App struct {
	deps   Deps
	log    *slog.Logger
	ctx    context.Context // root context: cancelled by Shutdown
	cancel context.CancelFunc
	events *Hub
	wg     sync.WaitGroup

	mu         sync.Mutex
	importing  bool
	lastRun    *ImportRun
	demo       bool
	stamp      int64 // the archive's change stamp last seen (see watch.go)
	stampKnown bool
	watchWG    sync.WaitGroup // the archive watch (watch.go) and live follow (follow.go), apart from wg's finite work

	follow liveFollow
	// webhookURL is where this process's server accepts the webhook ("" when it
	// does not); see webhook.go.
	webhookURL string
	sync       appSync   // background sync (sync.go)
	downloads  downloads // exports waiting for a browser to fetch them (download.go)
}

// New builds the app; call Startup before use.
func New(d Deps) *App {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Roots == nil {
		d.Roots = archive.DefaultRoots()
	}
	if d.Roots == nil {
		d.Roots = []string{} // a list in the JSON contract, never null
	}
	if d.Events == nil {
		d.Events = NewHub()
	}
	if d.APIKeys == nil && d.DataDir != "" {
		d.APIKeys = apikey.New(filepath.Join(d.DataDir, apikey.FileName))
		d.APIKeys.Logger = d.Logger
	}
	a := &App{deps: d, log: d.Logger.With("component", "app"), events: d.Events}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	return a
}

// Startup is the Wails OnStartup hook; the HTTP server calls it too. ctx is only
// used for Wails runtime calls; the app's own work hangs off its root context.
// The runtime is attached only for a context Wails made: its functions end the
// process when handed any other (see runtime.go).
func (a *App) Startup(ctx context.Context) {
	if isWailsContext(ctx) {
		a.events.attachRuntime(ctx)
	}
	a.mu.Lock()
	a.demo = demoMarked(a.deps.DataDir)
	a.mu.Unlock()
	a.startScheduler()
	a.noteStamp()
	if _, err := archivesync.LoadConfig(a.syncPaths()); err == nil && a.deps.DataDir != "" {
		a.startSyncLoop() // sync on the timer, and after imports
	}
	a.watchArchive()
	if !a.deps.ImportOnStart {
		a.startFollow()
	}
	if (a.deps.ImportOnStart || a.deps.DemoIfEmpty) && a.track() {
		go func() {
			defer a.wg.Done()
			a.startupWork()
		}()
	}
}

// track counts one more background goroutine for Shutdown to wait for, unless
// Shutdown has begun (then it returns false and the work must not start). The
// check and the count happen under a.mu, which Shutdown holds while it cancels, so
// no goroutine is ever added once Shutdown waits.
func (a *App) track() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx.Err() != nil {
		return false
	}
	a.wg.Add(1)
	return true
}

// startupWork is the start-up import and the demo for an empty archive.
func (a *App) startupWork() {
	if a.deps.ImportOnStart {
		roots := a.roots()
		if err := a.beginImport(roots, nil); err != nil {
			a.log.Info("start-up import skipped", "err", err)
		} else {
			a.finishImport(a.importRoots(a.ctx, roots))
		}
		// Follow from here: the follower's first pass finds the files the import
		// just read unchanged (a stat each), and takes what was written meanwhile.
		a.startFollow()
	}
	if !a.deps.DemoIfEmpty {
		return
	}
	if n, err := a.sessionCount(a.ctx); err != nil || n > 0 {
		return
	}
	if err := a.createDemo(a.ctx); err != nil {
		a.log.Warn("demo archive not created", "err", err)
	}
}

// Shutdown cancels background work (imports, the scheduler) and waits for it.
func (a *App) Shutdown(ctx context.Context) {
	// Under a.mu, so a StartImport that already checked the context has also
	// counted its goroutine (see track and beginImport) before Wait below.
	a.mu.Lock()
	a.cancel()
	a.mu.Unlock()
	// The window is closing: later events must not reach for it.
	a.events.attach(nil)
	done := make(chan struct{})
	go func() { a.wg.Wait(); a.watchWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		a.log.Warn("background work did not stop within 10s")
	}
}

// Info describes the running app.
type Info struct {
	Version   string   `json:"version"`
	Mode      string   `json:"mode"` // desktop | web
	DataDir   string   `json:"data_dir"`
	Roots     []string `json:"roots"`
	Sessions  int      `json:"sessions"`
	Demo      bool     `json:"demo"`
	Importing bool     `json:"importing"`
	SelfTest  bool     `json:"self_test"`
}

// Info returns what the UI shows in its header and first-run screen.
func (a *App) Info() (Info, error) {
	ss, err := a.deps.Archive.ListSessions(a.ctx, archive.SessionFilter{})
	if err != nil {
		return Info{}, err
	}
	roots := a.roots() // reads the import settings: not under a.mu
	a.mu.Lock()
	defer a.mu.Unlock()
	mode := "web"
	if a.events.desktop() {
		mode = "desktop"
	}
	return Info{Version: a.deps.Version, Mode: mode, DataDir: a.deps.DataDir, Roots: roots,
		Sessions: len(ss), Demo: a.demo, Importing: a.importing, SelfTest: a.deps.SelfTest}, nil
}

// Sessions lists every archived session, newest first.
func (a *App) Sessions() ([]archive.Session, error) {
	return a.deps.Archive.ListSessions(a.ctx, archive.SessionFilter{})
}

// SessionDetail is a session with what the conversation header shows.
type SessionDetail struct {
	Session   archive.Session      `json:"session"`
	Relations archive.Relations    `json:"relations"`
	Files     []archive.FileStatus `json:"files"`
	Problems  []archive.Problem    `json:"problems"` // the fatal problem first, then warnings, of its files
	// Sync is the machine the session came from and its diverged versions
	// (a sync conflict); nil when sync never saw the session.
	Sync *archive.SessionSync `json:"sync"`
}

// Session returns one session (an id prefix is enough) with its relations, files
// and import problems.
func (a *App) Session(id string) (SessionDetail, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return SessionDetail{}, invalid("a session id is required")
	}
	s, err := a.deps.Archive.Session(a.ctx, id)
	if err != nil {
		return SessionDetail{}, err
	}
	d := SessionDetail{Session: s, Problems: []archive.Problem{}}
	if d.Relations, err = a.deps.Archive.Relations(a.ctx, s.ID); err != nil {
		return d, err
	}
	if d.Files, err = a.deps.Archive.SessionFiles(a.ctx, s.ID); err != nil {
		return d, err
	}
	for _, f := range d.Files {
		ps, err := a.deps.Archive.FileProblems(a.ctx, f.Path)
		if err != nil {
			return d, err
		}
		d.Problems = append(d.Problems, ps...)
	}
	d.Sync, err = a.deps.Archive.SyncOf(a.ctx, s.ID)
	return d, err
}

// Timeline returns one page of a session's conversation.
func (a *App) Timeline(id string, q archive.TimelineQuery) (archive.TimelinePage, error) {
	if q.Limit < 0 || q.Limit > archive.MaxTimelineLimit {
		return archive.TimelinePage{}, invalid(fmt.Sprintf("limit must be between 0 and %d", archive.MaxTimelineLimit))
	}
	return a.deps.Archive.Timeline(a.ctx, id, q)
}

// SearchRequest is a search from the UI.
type SearchRequest struct {
	Query  string `json:"query"`
	Sort   string `json:"sort"` // relevance (default) | recent
	Limit  int    `json:"limit"`
	Cursor string `json:"cursor"`
	// Exhaustive ranks and counts every match, however many: exact order and
	// totals at a cost that grows with the matches (see index.Query).
	Exhaustive bool `json:"exhaustive"`
}

// Search runs a query in the search language (see the README).
func (a *App) Search(req SearchRequest) (index.Result, error) {
	return a.search(a.ctx, req)
}

// search is Search under ctx as well as the app's root context: the HTTP server
// passes the request's, so a search stops when its caller goes (see
// requestContext).
func (a *App) search(ctx context.Context, req SearchRequest) (index.Result, error) {
	if a.deps.Index == nil {
		return index.Result{}, errors.New("search index is not open")
	}
	if req.Sort != "" && req.Sort != index.SortRelevance && req.Sort != index.SortRecent {
		return index.Result{}, invalid(fmt.Sprintf("sort must be %q or %q", index.SortRelevance, index.SortRecent))
	}
	if req.Limit < 0 || req.Limit > index.MaxLimit {
		return index.Result{}, invalid(fmt.Sprintf("limit must be between 1 and %d (0 for the default, %d)", index.MaxLimit, index.DefaultLimit))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(a.ctx, cancel)()
	return a.deps.Index.Search(ctx, index.Query{
		Text: req.Query, Sort: req.Sort, Limit: req.Limit, Cursor: req.Cursor, Exhaustive: req.Exhaustive,
	})
}

// requestContext returns, for a bound method that should stop when its caller
// goes (Search), a function of the method's own signature that runs it under
// ctx; nil for any other. Wails binds only exported methods, whose arguments
// come from JSON, so the HTTP server swaps this in to pass the request's context.
func (a *App) requestContext(ctx context.Context, method string) any {
	if method == "Search" {
		return func(a *App, req SearchRequest) (index.Result, error) { return a.search(ctx, req) }
	}
	return nil
}

// Approvals lists every approval in the archive, oldest first.
func (a *App) Approvals() ([]archive.Approval, error) {
	return a.deps.Archive.Approvals(a.ctx, archive.ItemFilter{})
}

// Compactions lists every compaction and prune in the archive, oldest first.
func (a *App) Compactions() ([]archive.Compaction, error) {
	return a.deps.Archive.Compactions(a.ctx, archive.ItemFilter{})
}

// FileProblems returns the fatal problem and the warnings stored for one log file.
func (a *App) FileProblems(path string) ([]archive.Problem, error) {
	if path == "" {
		return nil, invalid("a file path is required")
	}
	return a.deps.Archive.FileProblems(a.ctx, path)
}

// SelfTest is called by the UI on load when the app runs its self-test; it returns
// the marker it was given, proving the JS→Go path works.
func (a *App) SelfTest(marker string) (string, error) {
	if a.deps.OnSelfTest != nil {
		a.deps.OnSelfTest(marker)
	}
	return "selftest:" + marker, nil
}
