package archive

import (
	"errors"
	"io"
	"strings"

	"github.com/logbook/logbook/archive/dsh"
)

// CheckFile reads a session file and reports the verdict an import would give,
// without touching the archive.
func CheckFile(path string, opts ImportOptions) FileReport {
	if fm := formatOfPath(path); fm != dshName {
		return checkSource(formatNamed(fm), path)
	}
	f, fi, err := openRegular(path)
	if err != nil {
		return failedReport(path, err)
	}
	defer f.Close()
	return checkReader(path, f, fi.Size(), strings.HasSuffix(path, ".zstd"), opts)
}

// checkReader is CheckFile on a file's bytes already open (size of them).
func checkReader(path string, f io.Reader, size int64, compressed bool, opts ImportOptions) FileReport {
	fr := FileReport{Path: path, LastSeq: -1, Action: "checked", Warnings: []Problem{}}
	fail := func(err error) FileReport {
		f := failedReport(path, err)
		f.SessionID, f.Bytes = fr.SessionID, fr.Bytes
		return f
	}
	fr.Bytes = size
	r := dsh.NewReader(f, compressed, opts.dshOptions())
	defer r.Close()
	h, err := r.Header()
	if err != nil {
		return fail(err)
	}
	var checker *dsh.Checker
	if h != nil {
		fr.SessionID = h.ID
		checker = dsh.NewChecker(h)
	}
	fold := dsh.NewScheduleFold()
	var foldProblems, undecodable []Problem
	for h != nil {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		if _, p := dsh.Project(rec); p != nil {
			undecodable = append(undecodable, *p)
		}
		for i := range rec.Events {
			ev := &rec.Events[i]
			checker.Observe(ev, rec.Line)
			if ev.Type == "schedule/change" && ev.Seq >= h.SeedLength {
				if p := fold.Apply(ev); p != nil {
					p.Line = rec.Line
					foldProblems = append(foldProblems, *p)
				}
			}
		}
	}
	res := r.Result()
	fr.Verdict, fr.Error = res.Verdict, res.Problem
	fr.Records, fr.LogicalEvents, fr.LastSeq = res.Records, res.Events, res.LastSeq
	fr.Warnings = append(fr.Warnings, res.Warnings...)
	if h != nil {
		fr.Warnings = append(fr.Warnings, dsh.IdentityWarnings(path, h)...)
		fr.Warnings = append(fr.Warnings, checker.Finish()...)
		fr.Warnings = append(fr.Warnings, undecodable...)
		fr.Warnings = append(fr.Warnings, foldProblems...)
	}
	return fr
}
