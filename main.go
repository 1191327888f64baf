// Command logbook is a local-first archive for AI coding-agent sessions. main.go is
// the composition root: the table of commands, the global flags, and the env
// (wire.go) every command opens the archive, index, scheduler and app through.
package main

import (
	"context"
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

// root is the command line: its commands, in the order `logbook help` lists them.
// Each lives in its own file, cmd_NAME.go; a group of commands nests its own
// table in sub (see command).
var root = command{
	name:    "logbook",
	args:    "[--data DIR] COMMAND [ARGS]",
	summary: "a local-first archive for AI coding-agent sessions",
	doc:     "The archive lives in --data DIR, $LOGBOOK_DATA, or ~/.local/share/logbook.",
	sub: []command{
		{name: "import", args: "[--json] [--strict] [--lenient-headers] [--replace-damaged] [PATH|FILE.logbook...]",
			summary: "import session logs (default: the dsh and OpenHands session roots), or the sessions of a bundle; exit 1 when a file is not archived whole", run: cmdImport},
		{name: "watch", args: "[--root DIR]... [--json]",
			summary: "import what is new under the session roots, then follow them live until interrupted (one line per imported file)", run: cmdWatch},
		{name: "check", args: "[--json] [--strict] [--lenient-headers] PATH...",
			summary: "give each file's verdict without importing", run: cmdCheck},
		{name: "sessions", args: "[--json] [--project CWD] [--limit N]",
			summary: "list archived sessions, newest first", run: cmdSessions},
		{name: "show", args: "SESSION [--json]",
			summary: "print a readable transcript of a session", run: cmdShow},
		{name: "search", args: "[--json] [--limit N] [--cursor C] [--sort relevance|recent] [--exhaustive] [--] QUERY",
			summary: "full-text search over every session", run: cmdSearch},
		{name: "export", args: "SESSION --format jsonl|md|html|bundle [-o FILE [--force]] [--kept upstream|original|tail] [--turns A-B | --around HIT [--context N]] [--redact [--yes] [--json] [--redact-names LIST]] | --format bundle -o FILE.logbook [--session ID]... [--project CWD] [--since T] [--until T] [--query Q] | SESSION --format openhands -o DIR",
			summary: "export a session (jsonl: byte-identical logical JSONL; md, html: readable, whole or some turns, optionally redacted; openhands: the conversation's original files), or sessions in a bundle that `import` takes back, or the bytes kept aside for a session", run: cmdExport},
		{name: "approvals", args: "[--json] [--session ID]",
			summary: "list approval requests and their outcomes", run: cmdApprovals},
		{name: "compactions", args: "[--json] [--session ID]",
			summary: "list compactions and what they shadowed", run: cmdCompactions},
		{name: "schedules", args: "[--json] [--session ID] [--now RFC3339] | schedules VERB SESSION SCHEDULE",
			summary: "list scheduled prompts and their state; VERB: pause, resume, snooze (+DURATION), fire, skip, dismiss", run: cmdSchedules},
		{name: "scheduler", args: "[--policy fire|ask|skip] [--webhook URL | -- COMMAND ARG...]",
			summary: "fire scheduled prompts in the foreground until interrupted", run: cmdScheduler},
		{name: "reindex",
			summary: "rebuild the search index from the archive", run: cmdReindex},
		apikeyCommand,
		syncCommand,
		{name: "serve", args: "[--addr 127.0.0.1:8765] [--no-import] [--no-follow] [--demo-if-empty] [--allow-remote]",
			summary: "serve the UI to a browser (prints the link with its access token)", run: cmdServe},
		{name: "window", args: "[--no-import] [--no-follow] [--demo-if-empty]",
			summary: "open the desktop window (logbook-desktop; the default command when it is installed)", run: cmdWindow},
	},
}

// run parses the global flags, resolves the data directory and dispatches the
// command; it returns the process exit status.
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
			printGroupUsage(stdout, root.name, root)
			return 0
		default:
			fmt.Fprintf(stderr, "logbook: unknown global flag %s\n", a)
			printGroupUsage(stderr, root.name, root)
			return 2
		}
	}
	if err := e.setDataDir(data); err != nil {
		fmt.Fprintln(stderr, "logbook:", err)
		return 1
	}
	if len(args) == 0 {
		if !hasWindow() {
			printGroupUsage(stderr, root.name, root)
			fmt.Fprintln(stderr, "\n"+noWindowHint)
			return 2
		}
		args = []string{"window"} // the desktop app: `logbook` alone opens the window
	}
	return dispatch(ctx, e, root.name, root, args)
}
