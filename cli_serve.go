package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/logbook/logbook/app"
	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
	"github.com/logbook/logbook/scheduler"
)

// uiOptions are the flags the browser UI (serve) and the window share.
type uiOptions struct {
	noImport    bool // skip the start-up import of the session roots
	demoIfEmpty bool // fill an empty archive with the labelled demo
}

func (o *uiOptions) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.noImport, "no-import", false, "do not import the session roots on start")
	fs.BoolVar(&o.demoIfEmpty, "demo-if-empty", false, "fill an empty archive with a clearly labelled demo archive")
}

// selfTestEnv reports whether APP_SELFTEST asks for the start-up self-test: the UI
// calls SelfTest once it has loaded, and the process reports it and exits.
func selfTestEnv() bool { return os.Getenv("APP_SELFTEST") == "1" }

// uiStores are the archive and the index a UI works on.
type uiStores struct {
	archive *archive.Store
	index   *index.Index
}

func (u *uiStores) Close() {
	if u.index != nil {
		u.index.Close()
	}
	if u.archive != nil {
		u.archive.Close()
	}
}

// openUIStores opens the archive and the index. With syncNow the index is brought
// level with the archive before returning; otherwise the start-up import does it
// (its last phase), so a window appears at once even when the index is rebuilt.
// who is what the process records of itself in the index (holderServe,
// holderWindow). In a read-only data directory there is no start-up import, so
// the index is made ready now (openIndex).
func (e *env) openUIStores(ctx context.Context, syncNow bool, who string) (*uiStores, error) {
	s, err := e.openArchive(ctx)
	if err != nil {
		return nil, err
	}
	u := &uiStores{archive: s}
	if syncNow || e.readOnly {
		u.index, err = e.openIndex(ctx, s, who, false)
	} else {
		u.index, err = e.openIndexOnly(who, false)
	}
	if err != nil {
		u.Close()
		return nil, err
	}
	return u, nil
}

// appDeps are the dependencies every UI of this process hands to app.New.
func (e *env) appDeps(u *uiStores, hub *app.Hub, o uiOptions) app.Deps {
	if e.readOnly {
		// Nothing can be imported or recorded: no start-up import, no demo, and no
		// scheduler (a fire it could not record would fire again and again).
		fmt.Fprintln(e.stderr, "logbook: read-only data directory: showing the archive as it is (no import, no scheduled prompts)")
		return app.Deps{Archive: u.archive, Index: u.index, Logger: e.logger, Version: version, DataDir: e.dataDir,
			Roots: archive.DefaultRoots(), SelfTest: selfTestEnv(), Events: hub}
	}
	sched := scheduler.New(u.archive, scheduler.Options{Logger: e.logger,
		ConfigPath: filepath.Join(e.dataDir, "scheduler.json")})
	return app.Deps{Archive: u.archive, Index: u.index, Logger: e.logger, Version: version, DataDir: e.dataDir,
		Roots: archive.DefaultRoots(), SelfTest: selfTestEnv(), Events: hub, Scheduler: sched,
		ImportOnStart: !o.noImport, DemoIfEmpty: o.demoIfEmpty}
}

// cmdServe serves the UI to a browser: the same bundle and methods as the window.
func cmdServe(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8765", "listen address (port 0 picks a free port)")
	allowRemote := fs.Bool("allow-remote", false, "allow a listen address other machines can reach")
	var o uiOptions
	o.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", pos[0])}
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr: %w", err)}
	}
	if !isLoopback(host) && !*allowRemote {
		return usageError{fmt.Errorf("--addr %s is reachable from other machines; use a loopback address (127.0.0.1), or add --allow-remote if you mean it", *addr)}
	}
	// A read-only data directory has no room for the instance lock, and nothing can
	// write it, so there is nothing to guard; what needs writing is switched off below.
	if !e.readOnly {
		release, err := lockDataDir(e.dataDir, "serve")
		if err != nil {
			return err
		}
		defer release()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) && !flagSet(fs, "addr") {
		// The default port is taken (another program, or an old Logbook of another
		// data directory): any free loopback port does, and the link says which.
		fmt.Fprintf(e.stderr, "logbook serve: %s is in use; using a free port instead\n", *addr)
		ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	defer ln.Close()
	u, err := e.openUIStores(ctx, true, holderServe)
	if err != nil {
		return err
	}
	defer u.Close()

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	hub := app.NewHub()
	hub.Logger = e.logger
	d := e.appDeps(u, hub, o)
	if d.SelfTest {
		d.OnSelfTest = func(marker string) {
			fmt.Fprintf(e.stdout, "SELFTEST OK %s mode=web\n", marker)
			time.AfterFunc(300*time.Millisecond, stop)
		}
	}
	a := app.New(d)
	srv := app.NewServer(a, hub, app.ServerOptions{Addr: ln.Addr().String(), AllowRemote: *allowRemote, Logger: e.logger})
	a.Startup(ctx)
	defer a.Shutdown(context.Background())
	if *allowRemote && !isLoopback(host) {
		fmt.Fprintf(e.stderr, "WARNING: serving on %s, reachable from other machines; anyone with the link below can read the archive.\n", ln.Addr())
	}
	fmt.Fprintf(e.stdout, "Logbook UI: %s\n", srv.URL())
	return app.ListenAndServe(ctx, ln, srv)
}

// flagSet reports whether the command line named the flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// isLoopback reports whether a listen host only accepts connections from this
// machine ("" and 0.0.0.0 listen on every interface).
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// cmdWindow opens the desktop window (a desktop build; see desktop.go).
func cmdWindow(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("window", flag.ContinueOnError)
	var o uiOptions
	o.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", pos[0])}
	}
	return runWindow(ctx, e, o)
}
