package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/logbook/logbook/app"
)

// cmdServe serves the UI to a browser: the same bundle and methods as the window.
func cmdServe(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8765", "listen address (port 0 picks a free port)")
	allowRemote := fs.Bool("allow-remote", false, "allow a listen address other machines can reach")
	noWebhook := fs.Bool("no-webhook", false, "do not accept the OpenHands webhook (POST /api/v1/webhooks/…, with an API key)")
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
	public := !app.IsLoopbackHost(host)
	if public && !*allowRemote {
		return usageError{fmt.Errorf("--addr %s is reachable from other machines; use a loopback address (127.0.0.1), or add --allow-remote if you mean it (it needs an API key: `logbook apikey new`)", *addr)}
	}
	haveKey, err := e.apiKeys().Any()
	if err != nil {
		return err
	}
	if public && !haveKey {
		// Tools on other machines can only reach the machine endpoints with a key:
		// a public listener without one is a mistake, and the fix is one command.
		return fmt.Errorf("--addr %s with --allow-remote serves other machines, and they need an API key: make one first with `logbook apikey new --name NAME`, then start serve again", *addr)
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
	u, err := e.openUI(ctx, o, true, holderServe)
	if err != nil {
		return err
	}
	defer u.Close()

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if u.deps.SelfTest {
		u.deps.OnSelfTest = func(marker string) {
			fmt.Fprintf(e.stdout, "SELFTEST OK %s mode=web\n", marker)
			time.AfterFunc(300*time.Millisecond, stop)
		}
	}
	u.deps.Webhook = !*noWebhook
	a := app.New(u.deps)
	srv := app.NewServer(a, u.hub, app.ServerOptions{Addr: ln.Addr().String(), AllowRemote: *allowRemote, Logger: e.logger})
	a.Startup(ctx)
	defer a.Shutdown(context.Background())
	if !haveKey {
		fmt.Fprintln(e.stderr, "logbook serve: no API key yet; tools and scripts reach the machine endpoints (/api/v1/…) with one in the X-Session-API-Key header: make one with `logbook apikey new --name NAME`, or in Settings in the UI")
	}
	if *allowRemote && public {
		fmt.Fprintf(e.stderr, "WARNING: serving on %s, reachable from other machines; anyone with the link below can read the archive.\n", ln.Addr())
	}
	fmt.Fprintf(e.stdout, "Logbook UI: %s\n", srv.URL())
	return app.ListenAndServe(ctx, ln, srv)
}
