package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// command is one CLI subcommand.
type command struct {
	usage   string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ error }

// exitError ends the process with a status after the command printed its output.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

var commands map[string]command

func init() {
	commands = map[string]command{
		"import":      {"import [--json] [--strict] [--lenient-headers] [--replace-damaged] [PATH...]", "import session logs (default: the dsh session roots); exit 1 when a file is not archived whole", cmdImport},
		"check":       {"check [--json] [--strict] [--lenient-headers] PATH...", "give each file's verdict without importing", cmdCheck},
		"sessions":    {"sessions [--json] [--project CWD] [--limit N]", "list archived sessions, newest first", cmdSessions},
		"show":        {"show SESSION [--json]", "print a readable transcript of a session", cmdShow},
		"export":      {"export SESSION --format jsonl [-o FILE [--force]] [--kept upstream|original|tail]", "export a session (jsonl: byte-identical logical JSONL), or the bytes kept aside for it", cmdExport},
		"approvals":   {"approvals [--json] [--session ID]", "list approval requests and their outcomes", cmdApprovals},
		"compactions": {"compactions [--json] [--session ID]", "list compactions and what they shadowed", cmdCompactions},
		"schedules":   {"schedules [--json] [--session ID] [--now RFC3339] | schedules VERB SESSION SCHEDULE", "list scheduled prompts and their state; VERB: pause, resume, snooze (+DURATION), fire, skip, dismiss", cmdSchedules},
		"scheduler":   {"scheduler [--policy fire|ask|skip] [--webhook URL | -- COMMAND ARG...]", "fire scheduled prompts in the foreground until interrupted", cmdScheduler},
		"search":      {"search [--json] [--limit N] [--cursor C] [--sort relevance|recent] [--exhaustive] [--] QUERY", "full-text search over every session", cmdSearch},
		"reindex":     {"reindex", "rebuild the search index from the archive", cmdReindex},
		"serve":       {"serve [--addr 127.0.0.1:8765] [--no-import] [--demo-if-empty] [--allow-remote]", "serve the UI to a browser (prints the link with its access token)", cmdServe},
		"window":      {"window [--no-import] [--demo-if-empty]", "open the desktop window (logbook-desktop; the default command when it is installed)", cmdWindow},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "logbook %s: a local-first archive for AI coding-agent sessions\n\n", version)
	fmt.Fprintln(w, "usage: logbook [--data DIR] COMMAND [ARGS]")
	fmt.Fprintln(w, "\nThe archive lives in --data DIR, $LOGBOOK_DATA, or ~/.local/share/logbook.\n\ncommands:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range []string{"import", "check", "sessions", "show", "search", "export", "approvals", "compactions", "schedules", "scheduler", "reindex", "serve", "window"} {
		fmt.Fprintf(tw, "  %s\t%s\n", commands[name].usage, commands[name].summary)
	}
	tw.Flush()
}

// helpError is a request for a command's help (-h, --help): its usage and flags are
// printed to standard output and the exit status is 0.
type helpError struct{ fs *flag.FlagSet }

func (h helpError) Error() string { return flag.ErrHelp.Error() }

// parseFlags parses flags wherever they appear among the positional arguments
// (`export ID -o f` and `export -o f ID` both work) and returns the positionals.
// Everything after a "--" is positional.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpError{fs}
			}
			return nil, usageError{err}
		}
		rest := fs.Args()
		// flag.Parse swallows a terminating "--"; once it did, the rest is positional.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" && !flagTakesValue(fs, args[:n-1]) {
			return append(pos, rest...), nil
		}
		args = rest
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagTakesValue reports whether the last of the parsed args is a flag still waiting
// for its value (so a "--" after it is that value, not the end of the flags).
func flagTakesValue(fs *flag.FlagSet, parsed []string) bool {
	if len(parsed) == 0 {
		return false
	}
	last := parsed[len(parsed)-1]
	if !strings.HasPrefix(last, "-") || last == "-" || last == "--" || strings.Contains(last, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimLeft(last, "-"))
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// isTerminal reports whether f is a character device (a terminal), for progress bars.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func importFlags(fs *flag.FlagSet) (*bool, *archive.ImportOptions) {
	var o archive.ImportOptions
	asJSON := fs.Bool("json", false, "print a JSON report")
	fs.BoolVar(&o.Strict, "strict", false, "treat every record-level problem as corruption")
	fs.BoolVar(&o.LenientHeaders, "lenient-headers", false, "accept headers without delegationDepth (pre-release writers)")
	fs.BoolVar(&o.ReplaceDamaged, "replace-damaged", false, "let a source reported as damaged upstream replace the archived session even though it holds less (the archived version is kept as superseded lines)")
	return asJSON, &o
}

// importMemoryLimit is the soft heap limit of `logbook import` (see cmdImport).
const importMemoryLimit = 200 << 20

func cmdImport(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	asJSON, opts := importFlags(fs)
	paths, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		roots := archive.DefaultRoots()
		if len(roots) == 0 {
			if *asJSON {
				return writeJSON(e.stdout, &archive.ImportReport{Files: []archive.FileReport{}, Gone: []string{}})
			}
			fmt.Fprintln(e.stdout, "No dsh session roots found (looked for $DSH_HOME/sessions and ~/.dsh/sessions). Pass a path to import: logbook import PATH")
			return nil
		}
		paths = roots
		if !*asJSON {
			fmt.Fprintf(e.stderr, "Importing from %s\n", strings.Join(roots, ", "))
		}
	}
	if err := e.needWritable("import"); err != nil {
		return err
	}
	// An import's heap is mostly garbage between records (decoded lines, blocks on
	// their way to SQLite). A soft limit makes the collector reclaim it before the
	// process grows, which keeps a whole import, index included, well under 300 MB
	// on the largest lines and frames a log may hold; GOMEMLIMIT overrides it.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(importMemoryLimit)
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	var bar *progressBar
	if f, ok := e.stderr.(*os.File); ok && isTerminal(f) {
		bar = &progressBar{w: f, start: time.Now()}
		opts.Progress = bar.update
	}
	opts.Waiting = func(holder string) {
		fmt.Fprintf(e.stderr, "logbook import: waiting for %s to finish (imports of one archive run one at a time)\n", holder)
	}
	along := e.startIndexAlong(ctx, s)
	rep, err := s.Import(ctx, paths, *opts)
	bar.finish()
	if err != nil {
		if along != nil {
			_ = along.finish(ctx, s, nil)
		}
		return err
	}
	if err := s.Maintain(ctx); err != nil {
		e.logger.Warn("maintenance after import failed", "err", err)
	}
	// The index is derived from the archive and fed in the same run (along with the
	// import, then to the end), so what was just imported is searchable at once. A
	// failure here loses nothing: the next run (or any search) brings the index level
	// with the archive again.
	indexed := true
	if along != nil && along.finish(ctx, s, e.indexProgress(*asJSON)) == nil {
		// Level with the archive.
	} else if ix, err := e.openIndex(ctx, s, holderImport, *asJSON); errors.Is(err, index.ErrInUse) {
		// The holder says who it is (index.InUseError): a running window or serve
		// indexes what was imported within seconds; after a short command, the next
		// search (which brings the index level first) or import does.
		fmt.Fprintf(e.stderr, "logbook import: %s; the imported sessions are indexed by a running Logbook within seconds, or else by the next search or import\n", termSafe(err.Error()))
	} else if err != nil {
		indexed = false
		fmt.Fprintf(e.stderr, "logbook import: search index not updated: %v\n", err)
	} else {
		ix.Close()
	}
	if rep.Gone == nil {
		rep.Gone = []string{} // "gone" is a list in the JSON contract, never null
	}
	if *asJSON {
		if err := writeJSON(e.stdout, rep); err != nil {
			return err
		}
		return importExit(rep, indexed)
	}
	printReports(e.human(), rep.Files)
	sum := rep.Summary
	if sum.Files == 0 {
		fmt.Fprintf(e.human(), "No session files found in %s: Logbook imports files named session.jsonl or session.jsonl.zstd below a folder, or any file named on the command line.\n",
			strings.Join(paths, ", "))
	}
	fmt.Fprintf(e.stdout, "\n%d files: %d ok, %d recovered, %d corrupt, %d unsupported, %d failed; %d changed, %d unchanged; %d events\n",
		sum.Files, sum.OK, sum.Recovered, sum.Corrupt, sum.Unsupp, sum.Failed, sum.Changed, sum.Unchanged, sum.Events)
	if len(rep.Gone) > 0 {
		fmt.Fprintf(e.human(), "%d sessions gone upstream (kept in the archive): %s\n", len(rep.Gone), strings.Join(rep.Gone, ", "))
	}
	if sum.Failed > 0 {
		fmt.Fprintf(e.stdout, "%d files could not be imported because of a fault of this machine (see above); nothing of them was lost, and the next import reads them again\n", sum.Failed)
	}
	return importExit(rep, indexed)
}

// importExit is import's exit status: 0 when every file was archived whole (ok, or
// recovered: a torn or uncommitted tail, as a live session has, is kept aside and
// read again once complete) and the index is current; 1 when any file is corrupt,
// unsupported or failed, or the index could not be updated. Usage errors are 2.
func importExit(rep *archive.ImportReport, indexed bool) error {
	for _, f := range rep.Files {
		switch f.Verdict {
		case archive.VerdictOK, archive.VerdictRecovered:
		default:
			return exitError(1)
		}
	}
	if !indexed {
		return exitError(1)
	}
	return nil
}

func cmdCheck(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	asJSON, opts := importFlags(fs)
	paths, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError{fmt.Errorf("name at least one file or folder to check")}
	}
	d := archive.Discover(paths)
	reports := []archive.FileReport{}
	reports = append(reports, d.Reports()...)
	bad := false
	for _, f := range d.Files {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r := archive.CheckFile(f, *opts)
		bad = bad || r.Verdict != archive.VerdictOK
		reports = append(reports, r)
	}
	if *asJSON {
		if err := writeJSON(e.stdout, map[string]any{"files": reports}); err != nil {
			return err
		}
	} else {
		printReports(e.human(), reports)
	}
	if bad || len(d.Problems) > 0 {
		return exitError(1)
	}
	return nil
}

// printReports prints one line per file, then its problem and warnings indented.
func printReports(w io.Writer, files []archive.FileReport) {
	for _, f := range files {
		id := f.SessionID
		if id == "" {
			id = "-"
		}
		fmt.Fprintf(w, "%-11s %-10s %s  %s  (%d records, %d events)\n", f.Verdict, f.Action, f.Path, id, f.Records, f.LogicalEvents)
		if f.Error != nil {
			fmt.Fprintf(w, "    %s: %s\n", f.Error.Kind, f.Error.Message)
		}
		for i, warn := range f.Warnings {
			if i == 5 {
				fmt.Fprintf(w, "    … %d more warnings (see --json)\n", len(f.Warnings)-5)
				break
			}
			fmt.Fprintf(w, "    warning %s: %s\n", warn.Kind, warn.Message)
		}
	}
}
