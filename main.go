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
	"path/filepath"
	"runtime"
	"strings"

	"github.com/logbook/logbook/archive"
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

// env is what every command gets: where to write and how to open the archive.
type env struct {
	stdout, stderr io.Writer
	dataDir        string
	logger         *slog.Logger
	readOnly       bool // the data directory cannot be written: open everything read-only
}

// openArchive opens (creating if needed) the archive in the data directory. In a
// data directory this process cannot write (a read-only mount, a folder without
// write permission, a backup being browsed) it opens the archive read-only, says so
// once on stderr, and every reading command works as usual.
func (e *env) openArchive(ctx context.Context) (*archive.Store, error) {
	path := filepath.Join(e.dataDir, "logbook.db")
	if e.readOnly {
		s := archive.New(path)
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
	s := archive.New(path)
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

// run parses the global flags and dispatches; it returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr,
		logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	// Packages that log through the default logger (the index) get the CLI's: warnings
	// only, on stderr, so --json output and scripts stay clean.
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
	dir, err := dataDir(data)
	if err != nil {
		fmt.Fprintln(stderr, "logbook:", err)
		return 1
	}
	e.dataDir = dir
	e.readOnly = !archive.Writable(filepath.Join(dir, "logbook.db"))
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
