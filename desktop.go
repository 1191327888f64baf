//go:build desktop || bindings

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"github.com/logbook/logbook/app"
	"github.com/logbook/logbook/frontend"
)

// desktopBuild is true: `logbook` with no command opens the window. The file is
// also built with the bindings tag, which `wails generate module` uses (see
// bindings.go), so that wails.Run is what that run reaches.
const desktopBuild = true

// hasWindow reports whether `logbook` alone can open the window: this binary is it.
func hasWindow() bool { return true }

// generatingBindings is set by bindings.go in the binding generator's build.
var generatingBindings bool

// selfTestTimeout is how long the self-test waits for the UI to call Go.
const selfTestTimeout = 30 * time.Second

// windowOptions are the Wails options of the Logbook window; a is the bound API.
func windowOptions(a *app.App, hub *app.Hub, dataDir string) *options.App {
	sum := sha256.Sum256([]byte(dataDir))
	return &options.App{
		Title:            "Logbook",
		Width:            1280,
		Height:           800,
		MinWidth:         760,
		MinHeight:        500,
		AssetServer:      &assetserver.Options{Assets: frontend.Dist()},
		BackgroundColour: &options.RGBA{R: 255, G: 255, B: 255, A: 255},
		Bind:             []any{a},
		OnStartup:        a.Startup,
		OnShutdown:       a.Shutdown,
		ErrorFormatter:   func(err error) any { return app.FormatError(err) },
		// One window per data directory, so two instances never write the same
		// archive; a second launch brings the first window forward instead. (Linux
		// uses the D-Bus session bus for this; without one the lock is skipped.)
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId:               "dev.logbook.app." + hex.EncodeToString(sum[:8]),
			OnSecondInstanceLaunch: func(options.SecondInstanceData) { hub.Raise() },
		},
	}
}

// runWindow opens the desktop window on the archive and blocks until it closes.
func runWindow(ctx context.Context, e *env, o uiOptions) error {
	if generatingBindings {
		a := app.New(app.Deps{Roots: []string{}})
		return wails.Run(windowOptions(a, app.NewHub(), ""))
	}
	if _, err := fs.Stat(frontend.Dist(), "index.html"); err != nil {
		// Wails would log.Fatal on a bundle without a page.
		return errors.New("the UI bundle is not built (frontend/dist has no index.html): run make build")
	}
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		// GTK would panic ("failed to init GTK"); say what to do instead.
		return errors.New("no display to open the window on ($DISPLAY is not set); run `logbook serve` for the browser UI")
	}
	// The index is synced by the start-up import, so the window shows at once;
	// without that import, it is synced now.
	// The flock comes first: it works without a D-Bus session bus, which Wails'
	// own single-instance lock needs.
	release, err := lockDataDir(e.dataDir, "window")
	if err != nil {
		return err
	}
	defer release()
	u, err := e.openUI(ctx, o, o.noImport, holderWindow)
	if err != nil {
		return err
	}
	defer u.Close()
	hub, d := u.hub, u.deps
	var a *app.App
	var failed atomic.Bool
	if d.SelfTest {
		called := make(chan struct{})
		var once atomic.Bool
		d.OnSelfTest = func(marker string) {
			if !once.CompareAndSwap(false, true) {
				return
			}
			close(called)
			info, err := a.Info()
			if err != nil || info.Mode != "desktop" {
				failed.Store(true)
				fmt.Fprintf(e.stdout, "SELFTEST FAILED: the UI called Go (%s) but the window runtime is not attached (mode=%s, err=%v)\n", marker, info.Mode, err)
			} else {
				fmt.Fprintf(e.stdout, "SELFTEST OK %s mode=%s\n", marker, info.Mode)
			}
			time.AfterFunc(300*time.Millisecond, hub.Quit)
		}
		go func() {
			select {
			case <-called:
			case <-time.After(selfTestTimeout):
				failed.Store(true)
				fmt.Fprintln(e.stdout, "SELFTEST FAILED: the UI never called Go")
				hub.Quit()
				// The window may never have started (then Quit has nothing to close).
				time.Sleep(5 * time.Second)
				os.Exit(1)
			}
		}()
	}
	// The OpenHands webhook, when the settings turn it on: the app server on
	// loopback, for the machine endpoints (with an API key) beside the window.
	ws, err := app.LoadWebhookSettings(e.dataDir)
	if err != nil {
		fmt.Fprintf(e.stderr, "logbook: %v; the webhook stays off\n", err)
	}
	var hookLn net.Listener
	if ws.Enabled && !e.readOnly {
		if hookLn, err = net.Listen("tcp", ws.Addr); err != nil {
			fmt.Fprintf(e.stderr, "logbook: the webhook cannot listen on %s (%v); it stays off (Settings → Webhook)\n", ws.Addr, err)
			hookLn = nil
		} else {
			defer hookLn.Close()
			d.Webhook = true
		}
	}
	a = app.New(d)
	if hookLn != nil {
		srv := app.NewServer(a, hub, app.ServerOptions{Addr: hookLn.Addr().String(), Logger: e.logger})
		hookCtx, stopHook := context.WithCancel(ctx)
		defer stopHook()
		go func() {
			if err := app.ListenAndServe(hookCtx, hookLn, srv); err != nil {
				e.logger.Error("webhook server stopped", "err", err)
			}
		}()
	}
	// Ctrl-C needs no handling here: Wails catches SIGINT and SIGTERM itself and
	// closes the window, which runs OnShutdown (a.Shutdown).
	// run() routed the log package into the CLI's warn-level slog handler, which
	// drops log.Print lines; Wails reports fatal errors with log.Fatal, so they
	// must reach stderr.
	log.SetOutput(e.stderr)
	if err := wails.Run(windowOptions(a, hub, e.dataDir)); err != nil {
		return err
	}
	if failed.Load() {
		return exitError(1)
	}
	return nil
}
