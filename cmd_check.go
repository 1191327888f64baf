package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/logbook/logbook/archive"
)

// cmdCheck runs `logbook check`: each file's verdict, without importing.
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
