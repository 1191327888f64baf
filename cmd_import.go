package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/index"
	"github.com/logbook/logbook/internal/memlimit"
)

func importFlags(fs *flag.FlagSet) (*bool, *archive.ImportOptions) {
	var o archive.ImportOptions
	asJSON := fs.Bool("json", false, "print a JSON report")
	fs.BoolVar(&o.Strict, "strict", false, "treat every record-level problem as corruption")
	fs.BoolVar(&o.LenientHeaders, "lenient-headers", false, "accept headers without delegationDepth (pre-release writers)")
	fs.BoolVar(&o.ReplaceDamaged, "replace-damaged", false, "let a source reported as damaged upstream replace the archived session even though it holds less (the archived version is kept as superseded lines)")
	return asJSON, &o
}

// cmdImport runs `logbook import`: it imports session logs into the archive and
// brings the search index level with it.
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
			fmt.Fprintln(e.stdout, "No dsh session roots found (looked for $DSH_HOME/sessions and ~/.dsh/sessions), nor OpenHands conversations (~/.openhands, $OPENHANDS_CONVERSATIONS_DIR, $OPENHANDS_PERSISTENCE_DIR/conversations). Pass a path to import: logbook import PATH")
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
	// Bundles (FILE.logbook, named or under a folder named) are checked and
	// unpacked first; a damaged one, or a session of one, gives nothing and is
	// reported, and the rest goes on (export/bundleimport.go). The folders are
	// walked once: the walk that finds the bundles under them is the import's.
	paths, found, bundles, err := export.DiscoverBundles(ctx, e.dataDir, paths)
	if err != nil {
		return err
	}
	opts.Discovered = found
	if len(paths) == 0 {
		// Only bundles that give nothing to import (redacted or damaged): an
		// empty list would mean the default roots.
		rep := &archive.ImportReport{Files: []archive.FileReport{}, Gone: []string{}}
		export.AddBundleReports(rep, bundles)
		ok := export.ReportBundles(e.stderr, bundles, rep)
		if *asJSON {
			if err := writeJSON(e.stdout, rep); err != nil {
				return err
			}
		} else {
			printReports(e.human(), rep.Files)
		}
		if !ok {
			return exitError(1)
		}
		return nil
	}
	memlimit.Apply()
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
	opts.CommittedSessions = along.committed()
	rep, err := s.Import(ctx, paths, *opts)
	bar.finish()
	if err != nil {
		if along != nil {
			_ = along.finish(ctx, s, nil, e.logger)
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
	if along != nil && along.finish(ctx, s, e.indexProgress(*asJSON), e.logger) == nil {
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
	export.AddBundleReports(rep, bundles)
	if rep.Gone == nil {
		rep.Gone = []string{} // "gone" is a list in the JSON contract, never null
	}
	// A bundle's session that did not come back as it was exported fails the
	// import; what each bundle gave is said last, on standard error.
	exit := func() error {
		bundlesOK := export.ReportBundles(e.stderr, bundles, rep)
		if err := importExit(rep, indexed); err != nil || bundlesOK {
			return err
		}
		return exitError(1)
	}
	if *asJSON {
		if err := writeJSON(e.stdout, rep); err != nil {
			return err
		}
		return exit()
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
	return exit()
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
