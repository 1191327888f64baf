package main

// The readable formats of `logbook export` (md, html, bundle) and their redaction gate. This
// file is what cmd_export.go dispatches to for --format md|html|bundle; the jsonl path and
// its flags stay in cmd_export.go.

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/redact"
)

// renderFlags are the flags only the readable formats take.
type renderFlags struct {
	redact, yes, json *bool
	names             *string
}

// addRenderFlags defines the readable formats' flags on fs.
func addRenderFlags(fs *flag.FlagSet) renderFlags {
	return renderFlags{
		redact: fs.Bool("redact", false, "md, html, bundle: scan for secrets and personal data and replace the accepted findings with placeholders (asks per category on a terminal)"),
		yes:    fs.Bool("yes", false, "with --redact: accept every finding without asking"),
		names:  fs.String("redact-names", "", "with --redact: further person names to find, comma-separated (your login and home directory are found anyway)"),
		json:   fs.Bool("json", false, "with --redact: print the findings report (no secrets) on standard output; the file is written only with --yes and -o FILE"),
	}
}

// isRenderFormat reports whether format is one exportRendered writes.
func isRenderFormat(format string) bool {
	return format == export.FormatMarkdown || format == export.FormatHTML || format == export.FormatBundle
}

// exportRendered writes session id (or the part of it sel chooses) as Markdown or
// HTML to -o FILE or standard output, after the redaction gate when --redact is set.
func exportRendered(ctx context.Context, e *env, s *archive.Store, id, format string, rf renderFlags, sel *selectFlags, out string, force bool) error {
	part, err := sel.part()
	if err != nil {
		return err
	}
	t, err := export.Load(ctx, s, id)
	if err != nil {
		return err
	}
	if t, err = part.Of(t); err != nil {
		return err
	}
	if *rf.redact {
		rd, write, err := redactGate(e, rf, func(sc *redact.Scanner) (*redact.Report, error) { return sc.Scan(ctx, t.Docs()) })
		if err != nil || !write {
			return err
		}
		t = t.Redacted(rd)
	}
	return writeOut(e, out, force, func(w io.Writer) error {
		if format == export.FormatHTML {
			return export.WriteHTML(w, t)
		}
		return export.WriteMarkdown(w, t)
	})
}

// exportBundle writes the sessions sel chooses (or the one named) as a bundle to
// -o FILE. Each session is loaded, written and let go in turn; with --redact, all
// are first scanned as one, a session at a time (export.ScanSessions), so a
// secret gets one placeholder throughout.
func exportBundle(ctx context.Context, e *env, s *archive.Store, pos []string, sel *selectFlags, rf renderFlags, out string, force bool) error {
	// Choose the sessions before touching -o FILE.
	list, how, err := sel.selectSessions(ctx, e, s, pos)
	if err != nil {
		return err
	}
	ids := make([]string, len(list))
	for i, sess := range list {
		ids[i] = sess.ID
	}
	if !*rf.redact {
		return writeOut(e, out, force, func(w io.Writer) error {
			bw := export.NewBundleWriter(w, how, nil)
			if err := bw.AddSessions(ctx, s, ids); err != nil {
				return err
			}
			return bw.Close()
		})
	}
	rd, write, err := redactGate(e, rf, func(sc *redact.Scanner) (*redact.Report, error) { return export.ScanSessions(ctx, s, ids, sc) })
	if err != nil || !write {
		return err
	}
	sum := rd.Summary()
	return writeOut(e, out, force, func(w io.Writer) error {
		bw := export.NewBundleWriter(w, how, &sum)
		if err := bw.AddRedacted(ctx, s, ids, rd); err != nil {
			return err
		}
		return bw.Close()
	})
}

// check validates the redaction flags against the format and -o FILE; cmdExport
// calls it with the other flag checks, before the archive is opened.
func (rf renderFlags) check(format, out string) error {
	if !isRenderFormat(format) && (*rf.redact || *rf.yes || *rf.json || *rf.names != "") {
		// jsonl and openhands are the archive's bytes: they cannot be redacted, and a
		// --redact passed over in silence would write the secrets it was to keep out.
		return usageError{fmt.Errorf("--redact, --yes, --json and --redact-names go with --format md, html or bundle; --format %s is not redacted", format)}
	}
	if (*rf.yes || *rf.json || *rf.names != "") && !*rf.redact {
		return usageError{fmt.Errorf("--yes, --json and --redact-names go with --redact")}
	}
	if *rf.json && *rf.yes && out == "" {
		return usageError{fmt.Errorf("--json prints the report on standard output: write the export with -o FILE")}
	}
	return nil
}

// writeOut runs write on -o FILE (complete or not at all) or standard output.
func writeOut(e *env, out string, force bool, write func(io.Writer) error) error {
	if out == "" {
		return write(e.stdout)
	}
	f, err := createOut(out, force)
	if err != nil {
		return err
	}
	return f.finish(write(f))
}

// redactGate scans the export with scan, lets the person decide, and returns the redactor of the
// accepted findings and whether to write the export: --json prints the report and
// writes only with --yes; --yes accepts everything; otherwise a terminal is asked
// per category, and without one the export is refused (exit 2).
func redactGate(e *env, rf renderFlags, scan func(*redact.Scanner) (*redact.Report, error)) (*redact.Redactor, bool, error) {
	opts := redact.Options{}
	for _, n := range strings.Split(*rf.names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			opts.UserNames = append(opts.UserNames, n)
		}
	}
	sc, err := redact.NewScanner(redact.WithCurrentUser(opts))
	if err != nil {
		return nil, false, err
	}
	rep, err := scan(sc)
	if err != nil {
		return nil, false, err
	}
	var dec redact.Decisions
	switch {
	case *rf.json:
		if err := writeJSON(e.stdout, rep); err != nil {
			return nil, false, err
		}
		if !*rf.yes {
			return nil, false, nil
		}
	case *rf.yes:
	case len(rep.Findings) == 0:
	default:
		if !term.IsTerminal(int(os.Stdin.Fd())) {
			fmt.Fprintf(e.stderr, "logbook export: --redact found %d possible secret(s) (%s) and standard input is not a terminal to ask about them: review them with --redact --json, or accept them all with --redact --yes\n",
				len(rep.Findings), countsLine(rep.Counts))
			return nil, false, exitError(2)
		}
		dec = askCategories(termSafeWriter(e.stderr), os.Stdin, rep)
	}
	return rep.Redactor(dec), true, nil
}

// termSafeWriter is w with terminal control sequences from session text defused.
func termSafeWriter(w io.Writer) io.Writer { return &safeWriter{w: w} }

// countsLine is "token 2, email 1" in category order.
func countsLine(counts map[redact.Category]int) string {
	var parts []string
	for _, c := range redact.Categories {
		if n := counts[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, n))
		}
	}
	return strings.Join(parts, ", ")
}

// askCategories prints the findings of each category (rule, masked preview,
// location) and asks whether to redact them; anything but n/no redacts.
func askCategories(w io.Writer, in io.Reader, rep *redact.Report) redact.Decisions {
	byCat := map[redact.Category][]redact.Finding{}
	for _, f := range rep.Findings {
		byCat[f.Category] = append(byCat[f.Category], f)
	}
	dec := redact.Decisions{Categories: map[redact.Category]bool{}}
	br := bufio.NewReader(in)
	for _, c := range redact.Categories {
		fs := byCat[c]
		if len(fs) == 0 {
			continue
		}
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Doc < fs[j].Doc })
		fmt.Fprintf(w, "\n%s: %d finding(s)\n", c, len(fs))
		for i, f := range fs {
			if i == 20 {
				fmt.Fprintf(w, "  … and %d more (see --json)\n", len(fs)-i)
				break
			}
			fmt.Fprintf(w, "  %-14s %-24s %s line %d  %q\n", f.Rule, f.Masked, f.Doc, f.Line, f.Preview)
		}
		fmt.Fprintf(w, "redact %s? [Y/n] ", c)
		line, _ := br.ReadString('\n')
		a := strings.ToLower(strings.TrimSpace(line))
		dec.Categories[c] = a != "n" && a != "no"
	}
	return dec
}
