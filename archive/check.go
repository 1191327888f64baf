package archive

import (
	"errors"
	"io"

	"github.com/logbook/logbook/archive/format"
)

// CheckFile reads a session file and reports the verdict an import would give,
// without touching the archive.
func CheckFile(path string, opts ImportOptions) FileReport {
	fm := formatNamed(formatOfPath(path))
	sr, ok := fm.(format.StreamReader)
	if !ok {
		return checkSource(fm, path)
	}
	f, fi, err := openRegular(path)
	if err != nil {
		return failedReport(path, err)
	}
	defer f.Close()
	return checkStream(fm, sr, path, f, fi.Size(), opts)
}

// checkStream is CheckFile on a file's bytes already open (size of them), read as
// a stream of format fm: the verdict and warnings an import from its start would
// store, in the same order (the stream's, its checks', the records', the
// schedules').
func checkStream(fm format.Format, sr format.StreamReader, path string, data io.Reader, size int64, opts ImportOptions) FileReport {
	fr := FileReport{Path: path, LastSeq: -1, Action: "checked", Warnings: []Problem{}, Agent: fm.Name()}
	fail := func(err error) FileReport {
		f := failedReport(path, err)
		f.SessionID, f.Bytes = fr.SessionID, fr.Bytes
		return f
	}
	fr.Bytes = size
	st, err := sr.Open(opts.source(path, data, nil, nil))
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	fr.Format, _ = st.Layout()
	h := st.Session()
	var fold format.ScheduleFold
	if h != nil {
		fr.SessionID = h.ID
		fold = fm.ScheduleFold()
	}
	var foldProblems, undecodable []Problem
	for h != nil {
		rec, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		st.Prepare(&rec)
		if rec.Warning != nil {
			undecodable = append(undecodable, *rec.Warning)
		}
		// The session's own schedule changes, as the import folds them from the
		// archive (foldSchedules).
		if r := &rec.Record; changesSchedule(r) && r.FirstSeq >= h.SeedLength {
			if p := fold.Apply(r.Line, r.Raw); p != nil {
				foldProblems = append(foldProblems, *p)
			}
		}
	}
	res := st.Result()
	fr.Verdict, fr.Error = res.Verdict, res.Problem
	fr.Records, fr.LogicalEvents, fr.LastSeq = res.Records, res.Events, res.LastSeq
	fr.Warnings = append(fr.Warnings, res.Warnings...)
	if h != nil {
		fr.Warnings = append(fr.Warnings, st.Finish()...)
		fr.Warnings = append(fr.Warnings, undecodable...)
		fr.Warnings = append(fr.Warnings, foldProblems...)
	}
	return fr
}

// changesSchedule reports whether the projection gave the record a schedule change.
func changesSchedule(r *format.Record) bool {
	for _, it := range r.Items {
		if _, ok := it.(format.ScheduleChangeItem); ok {
			return true
		}
	}
	return false
}
