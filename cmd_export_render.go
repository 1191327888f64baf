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

// exportRendered writes session id as Markdown or HTML to -o FILE or standard output,
// after the redaction gate when --redact is set.
func exportRendered(ctx context.Context, e *env, s *archive.Store, id, format string, rf renderFlags, out string, force bool) error {
	if (*rf.yes || *rf.json || *rf.names != "") && !*rf.redact {
		return usageError{fmt.Errorf("--yes, --json and --redact-names go with --redact")}
	}
	if format == export.FormatBundle && out == "" {
		return usageError{fmt.Errorf("a bundle is a zip file: write it with -o FILE")}
	}
	if *rf.json && *rf.yes && out == "" {
		return usageError{fmt.Errorf("--json prints the report on standard output: write the export with -o FILE")}
	}
	t, err := export.Load(ctx, s, id)
	if err != nil {
		return err
	}
	if *rf.redact {
		var write bool
		if t, write, err = redactGate(ctx, e, t, rf); err != nil || !write {
			return err
		}
	}
	var w io.Writer = e.stdout
	var f *outFile
	if out != "" {
		if f, err = createOut(out, force); err != nil {
			return err
		}
		w = f
	}
	switch format {
	case export.FormatBundle:
		var jsonl func(io.Writer) error
		if !*rf.redact {
			jsonl = func(w io.Writer) error { return s.ExportJSONL(ctx, id, w) }
		}
		err = export.WriteBundle(w, t, jsonl)
	case export.FormatHTML:
		err = export.WriteHTML(w, t)
	default:
		err = export.WriteMarkdown(w, t)
	}
	if f != nil {
		err = f.finish(err)
	}
	return err
}

// redactGate scans every text t would write, lets the person decide, and returns the
// redacted transcript and whether to write it: --json prints the report and writes
// only with --yes; --yes accepts everything; otherwise a terminal is asked per
// category, and without one the export is refused (exit 2).
func redactGate(ctx context.Context, e *env, t *export.Transcript, rf renderFlags) (*export.Transcript, bool, error) {
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
	rep, err := sc.Scan(ctx, t.Docs())
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
	return t.Redacted(rep.Redactor(dec)), true, nil
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
