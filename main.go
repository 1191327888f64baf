// Command logbook is a local-first archive for AI coding-agent sessions. main.go is
// the composition root: it resolves the data directory, opens the archive and hands
// control to the chosen command.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// noWindowHint is what a build without the desktop window says when asked for it.
const noWindowHint = "this build has no desktop window (no logbook-desktop beside it); run `logbook serve`, or `make build` where the GTK/WebKit headers are installed"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses the global flags and dispatches; it returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := newEnv(stdout, stderr)
	// Packages that log through the default logger (the index) get the CLI's.
	slog.SetDefault(e.logger)
	var data string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		switch {
		case a == "--data" || a == "-data":
			if len(args) < 2 {
				fmt.Fprintln(stderr, "logbook: --data needs a directory")
				return 2
			}
			data, args = args[1], args[2:]
		case strings.HasPrefix(a, "--data=") || strings.HasPrefix(a, "-data="):
			data, args = a[strings.Index(a, "=")+1:], args[1:]
		case a == "--version" || a == "-version":
			fmt.Fprintln(stdout, "logbook", version)
			return 0
		case a == "-h" || a == "--help" || a == "-help":
			usage(stdout)
			return 0
		default:
			fmt.Fprintf(stderr, "logbook: unknown global flag %s\n", a)
			usage(stderr)
			return 2
		}
	}
	if err := e.setDataDir(data); err != nil {
		fmt.Fprintln(stderr, "logbook:", err)
		return 1
	}
	if len(args) == 0 {
		if !hasWindow() {
			usage(stderr)
			fmt.Fprintln(stderr, "\n"+noWindowHint)
			return 2
		}
		args = []string{"window"} // the desktop app: `logbook` alone opens the window
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "logbook: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	if err := cmd.run(ctx, e, args[1:]); err != nil {
		var he helpError
		if errors.As(err, &he) {
			fmt.Fprintf(stdout, "usage: logbook %s\n\n%s\n", cmd.usage, cmd.summary)
			he.fs.SetOutput(stdout)
			he.fs.PrintDefaults()
			return 0
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "logbook %s: %s\nusage: logbook %s\n", args[0], termSafe(err.Error()), cmd.usage)
			return 2
		}
		var ee exitError
		if errors.As(err, &ee) {
			return int(ee)
		}
		fmt.Fprintf(stderr, "logbook %s: %s\n", termSafe(args[0]), termSafe(err.Error()))
		return 1
	}
	return 0
}
