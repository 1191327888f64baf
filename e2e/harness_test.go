// Package e2e drives the real UI bundle in Debian's Chromium against `logbook
// serve`'s HTTP server over a real archive and index, built once for the package
// from the shared corpus (the real 87k-event dsh log, dsh's web fixtures) and
// generated sessions. Screenshots land in $LOGBOOK_E2E_ARTIFACTS (default
// bin/e2e-artifacts) for a person to look at.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/app"
	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/frontend"
	"github.com/logbook/logbook/index"
)

// env is the archive, index and server every test in the package shares.
type env struct {
	dataDir   string
	store     *archive.Store
	index     *index.Index
	app       *app.App
	hub       *app.Hub
	server    *app.Server
	url       string // with the access token
	base      string // without
	realID    string // the real 87k-event session, "" when the shared corpus is absent
	genRoot   string
	artifacts string
	follow    bool // the app follows its roots live (app.Deps.Follow)
	cancel    context.CancelFunc
}

var (
	shared   *env
	skipWhy  string // why the browser tests cannot run here
	setupErr error
)

func TestMain(m *testing.M) {
	code := func() int {
		if err := prepare(); err != nil {
			setupErr = err
		}
		defer teardown()
		return m.Run()
	}()
	os.Exit(code)
}

// chromiumPath finds Debian's chromium (or $CHROMIUM).
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func prepare() error {
	if chromiumPath() == "" {
		skipWhy = "chromium is not installed (apt-get install chromium)"
		return nil
	}
	if _, err := fs.Stat(frontend.Dist(), "index.html"); err != nil {
		skipWhy = "the UI bundle is not built (cd frontend && npm ci && npm run build)"
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{cancel: cancel}
	shared = e
	dir, err := os.MkdirTemp("", "logbook-e2e-")
	if err != nil {
		return err
	}
	e.dataDir = dir
	e.artifacts = os.Getenv("LOGBOOK_E2E_ARTIFACTS")
	if e.artifacts == "" {
		e.artifacts = filepath.Join(repoRoot(), "bin", "e2e-artifacts")
	}
	if err := os.MkdirAll(e.artifacts, 0o755); err != nil {
		return err
	}
	// Generated sessions carry every family the views show: reasoning, tool calls
	// with errors, approvals with each outcome, compactions, schedules, forks.
	e.genRoot = filepath.Join(dir, "generated")
	if _, err := dshgen.WriteCorpus(e.genRoot, dshgen.CorpusOptions{Seed: 7, Sessions: 8, TargetBytes: 3 << 20, Projects: 3}); err != nil {
		return fmt.Errorf("generate sessions: %w", err)
	}
	roots := []string{e.genRoot}
	if c := corpusDir(); c != "" {
		roots = append(roots, c)
	}
	return e.serve(ctx, roots)
}

// serve imports roots into a new archive in e.dataDir, indexes it, and serves
// the app over it on a loopback port until ctx ends.
func (e *env) serve(ctx context.Context, roots []string) error {
	dir := e.dataDir
	e.store = archive.New(filepath.Join(dir, "logbook.db"))
	if err := e.store.Open(ctx); err != nil {
		return err
	}
	rep, err := e.store.Import(ctx, roots, archive.ImportOptions{})
	if err != nil {
		return fmt.Errorf("import fixtures: %w", err)
	}
	for _, f := range rep.Files {
		if filepath.Base(filepath.Dir(f.Path)) == "wzx123188-deepseekharness" {
			e.realID = f.SessionID
		}
	}
	if e.index, err = index.Open(filepath.Join(dir, "index")); err != nil {
		return err
	}
	if _, err := e.index.Sync(ctx, e.store, nil); err != nil {
		return err
	}
	hub := app.NewHub()
	e.hub = hub
	e.app = app.New(app.Deps{Archive: e.store, Index: e.index, Events: hub, Version: "e2e", DataDir: dir, Roots: roots, Follow: e.follow})
	e.app.Startup(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	e.server = app.NewServer(e.app, hub, app.ServerOptions{Addr: ln.Addr().String()})
	e.url = e.server.URL()
	e.base = "http://" + ln.Addr().String() + "/"
	go func() { _ = app.ListenAndServe(ctx, ln, e.server) }()
	return nil
}

func teardown() {
	if shared != nil {
		shared.close()
	}
}

// close stops e's server and closes its app, index and archive, then removes
// its data directory.
func (e *env) close() {
	e.cancel()
	if e.app != nil {
		e.app.Shutdown(context.Background())
	}
	if e.index != nil {
		_ = e.index.Close()
	}
	if e.store != nil {
		_ = e.store.Close()
	}
	_ = os.RemoveAll(e.dataDir)
}

// need returns the shared environment or skips (fails in CI, where every
// prerequisite is installed by .ci/run).
func need(t *testing.T) *env {
	t.Helper()
	require.NoError(t, setupErr, "e2e setup")
	if skipWhy != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("browser tests cannot run in CI: %s", skipWhy)
		}
		t.Skip(skipWhy)
	}
	return shared
}

func repoRoot() string {
	d, _ := os.Getwd()
	for ; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			wd, _ := os.Getwd()
			return wd
		}
	}
}

// corpusDir is ../shared/corpus/dsh beside the checkout, or "".
func corpusDir() string {
	p := filepath.Join(repoRoot(), "..", "shared", "corpus", "dsh")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// browser opens a fresh headless Chromium tab of the given size, already
// signed in (the page keeps the token URL's token in its sessionStorage).
func browser(t *testing.T, e *env, width, height int) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(allocator(t, width, height))
	ctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { tcancel(); cancel() })
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.url)), "open the token URL")
	return ctx
}

// allocator is the context of a headless Chromium of the given window size with
// a fresh profile, as every browser of these tests runs; it is ended when the
// test is done.
func allocator(t *testing.T, width, height int) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath()), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-quic", true), chromedp.WindowSize(width, height),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(acancel)
	return actx
}

// open navigates to a hash route of the app and waits for the selector.
func open(t *testing.T, ctx context.Context, e *env, route, waitFor string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.base+route), chromedp.WaitVisible(chromedp.CSS(waitFor))),
		"open %s and wait for %s", route, waitFor)
}

// shot saves a PNG screenshot of the viewport as a test artifact: the app scrolls
// inside its own panes, so the viewport is what a person sees (a full-page capture
// would resize the page and catch the virtual list mid-relayout).
func shot(t *testing.T, ctx context.Context, e *env, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err, "screenshot %s", name)
	p := filepath.Join(e.artifacts, name+".png")
	require.NoError(t, os.WriteFile(p, png, 0o644))
	t.Logf("screenshot: %s", p)
}

// eval runs a JavaScript expression and returns its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "evaluate %s", expr)
	return v
}

// poll waits until a JavaScript expression is truthy.
func poll(t *testing.T, ctx context.Context, expr string, what string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second)))
	if errors.Is(err, context.DeadlineExceeded) || err != nil {
		require.NoError(t, err, "waiting for %s (%s)", what, expr)
	}
}
