package app

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/redact"
)

// ExportOptions say how the UI's Export dialog exports a session, or sessions.
type ExportOptions struct {
	Format string `json:"format"` // md | html | jsonl | openhands | bundle
	// Redact scans the export for secrets and personal data (md, html and bundle).
	Redact bool `json:"redact"`
	// Names are further person names to find besides the current user's.
	Names []string `json:"names,omitempty"`
	// Turns ("A-B") or Around (a seq, with Context turns either side) export part
	// of the session (md and html; see export.Part); neither is the whole session.
	Turns   string `json:"turns,omitempty"`
	Around  *int64 `json:"around,omitempty"`
	Context int64  `json:"context,omitempty"`
	// Sessions are the further sessions of a bundle, after the one named (the
	// search results' sessions; the session argument may then be empty).
	Sessions []string `json:"sessions,omitempty"`
}

// part is the part of the session opts choose.
func (o ExportOptions) part() export.Part {
	return export.Part{Turns: o.Turns, Around: o.Around, Context: o.Context}
}

// ids are the sessions to export: the one named, then opts.Sessions, trimmed,
// without blanks or repeats.
func (o ExportOptions) ids(sessionID string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range append([]string{sessionID}, o.Sessions...) {
		if id = strings.TrimSpace(id); id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ExportFile is a finished export. In the desktop window it was written where the
// person chose (Path; Cancelled when they closed the save dialog, and then nothing
// was built); in a browser it waits to be fetched once from Download (a URL
// relative to the page, see download.go), and the browser saves it under Name.
type ExportFile struct {
	Name      string          `json:"name"`
	MIME      string          `json:"mime"`
	Download  string          `json:"download,omitempty"`
	Path      string          `json:"path,omitempty"`
	Cancelled bool            `json:"cancelled,omitempty"`
	Bytes     int64           `json:"bytes"`
	Redaction *redact.Summary `json:"redaction,omitempty"`
}

// exportMIME is the media type of each format.
var exportMIME = map[string]string{
	export.FormatMarkdown:  "text/markdown; charset=utf-8",
	export.FormatHTML:      "text/html; charset=utf-8",
	export.FormatJSONL:     "application/jsonl",
	export.FormatOpenHands: "application/zip", // the conversation's files, zipped
	export.FormatBundle:    "application/zip",
}

// maxBundleSessions bounds the sessions of a bundle the UI asks for (as
// `logbook export --query` bounds its own).
const maxBundleSessions = export.MaxQuerySessions

// checkExport validates opts.
func checkExport(sessionID string, opts ExportOptions) error {
	if _, ok := exportMIME[opts.Format]; !ok {
		return invalid(fmt.Sprintf("unknown export format %q (md, html, jsonl, openhands or bundle)", opts.Format))
	}
	n := len(opts.ids(sessionID))
	switch {
	case opts.Format == export.FormatBundle && n == 0:
		return invalid("a bundle needs a session")
	case opts.Format == export.FormatBundle && n > maxBundleSessions:
		return invalid(fmt.Sprintf("a bundle from the UI holds at most %d sessions; this one would hold %d", maxBundleSessions, n))
	case opts.Format != export.FormatBundle && strings.TrimSpace(sessionID) == "":
		return invalid("a session id is required")
	case opts.Format != export.FormatBundle && len(opts.Sessions) > 0:
		return invalid("several sessions go in a bundle; md, html, jsonl and openhands export one")
	}
	if opts.Redact && (opts.Format == export.FormatJSONL || opts.Format == export.FormatOpenHands) {
		return invalid(fmt.Sprintf("redaction applies to md, html and bundle exports; %s is the archive's exact record", opts.Format))
	}
	if !opts.part().Whole() && opts.Format != export.FormatMarkdown && opts.Format != export.FormatHTML {
		return invalid(fmt.Sprintf("a turn range applies to md and html exports; %s holds whole sessions", opts.Format))
	}
	if err := opts.part().Check(); err != nil {
		return invalid(err.Error())
	}
	return nil
}

// ExportSelection is the sessions a bundle of a search's sessions will hold,
// resolved before it is built.
type ExportSelection struct {
	Query    string   `json:"query"`
	Sessions []string `json:"sessions"`
}

// ExportQuery returns every session a search finds, on every page of its hits,
// not only the pages the results have loaded: the Export dialog of search
// results says how many before anything is built, then scans and exports
// exactly these (ExportOptions.Sessions), so the findings reviewed are those of
// the bundle written. `logbook export --format bundle --query` chooses its
// sessions the same way (export.QuerySessions).
func (a *App) ExportQuery(query string) (ExportSelection, error) {
	if strings.TrimSpace(query) == "" {
		return ExportSelection{}, invalid("a search is required to choose the sessions of a bundle")
	}
	if a.deps.Index == nil {
		return ExportSelection{}, errors.New("search index is not open")
	}
	ids, err := export.QuerySessions(a.ctx, a.deps.Archive, a.deps.Index, query, maxBundleSessions)
	var many *export.TooManySessionsError
	if errors.As(err, &many) {
		return ExportSelection{}, invalid(many.Error())
	}
	if err != nil {
		return ExportSelection{}, err
	}
	if ids == nil {
		ids = []string{} // a list in the JSON contract, never null
	}
	return ExportSelection{Query: query, Sessions: ids}, nil
}

// scan loads what opts export and, with opts.Redact, scans every text the export
// writes: one session's transcript (md, html, which it returns) or a bundle's
// sessions, scanned as one but loaded one at a time (export.ScanSessions). A
// re-scan of the same sessions gives the same finding IDs, so ExportScan's
// findings address the decisions Export applies.
func (a *App) scan(sessionID string, opts ExportOptions) (*export.Transcript, *redact.Report, error) {
	sc, err := redact.NewScanner(redact.WithCurrentUser(redact.Options{UserNames: opts.Names}))
	if err != nil {
		return nil, nil, err
	}
	if opts.Format == export.FormatBundle {
		rep, err := export.ScanSessions(a.ctx, a.deps.Archive, opts.ids(sessionID), sc)
		return nil, rep, err
	}
	t, err := a.load(sessionID, opts)
	if err != nil {
		return nil, nil, err
	}
	rep, err := sc.Scan(a.ctx, t.Docs())
	if err != nil {
		return nil, nil, err
	}
	return t, rep, nil
}

// load reads the part of the session opts choose.
func (a *App) load(sessionID string, opts ExportOptions) (*export.Transcript, error) {
	t, err := export.Load(a.ctx, a.deps.Archive, strings.TrimSpace(sessionID))
	if err != nil {
		return nil, err
	}
	t, err = opts.part().Of(t)
	if err != nil {
		return nil, invalid(err.Error())
	}
	return t, nil
}

// ExportScan returns what redaction would find in an export: findings with
// masked previews, never the secrets.
func (a *App) ExportScan(sessionID string, opts ExportOptions) (redact.Report, error) {
	opts.Redact = true
	if err := checkExport(sessionID, opts); err != nil {
		return redact.Report{}, err
	}
	_, rep, err := a.scan(sessionID, opts)
	if err != nil {
		return redact.Report{}, err
	}
	return *rep, nil
}

// Export writes a session in opts.Format, or sessions in a bundle, redacted by
// decisions when opts.Redact (the zero Decisions redacts every finding). The
// desktop window asks where to save it first, and builds it into that file only
// when the person chose one; for a browser it is built into a file fetched once
// from the returned Download URL (download.go).
func (a *App) Export(sessionID string, opts ExportOptions, decisions redact.Decisions) (ExportFile, error) {
	if err := checkExport(sessionID, opts); err != nil {
		return ExportFile{}, err
	}
	ids, f, err := a.exportFile(sessionID, opts)
	if err != nil {
		return f, err
	}
	var sum *redact.Summary
	write := func(w io.Writer) (err error) { sum, err = a.writeExport(ids, opts, decisions, w); return err }
	if sv, ok := a.events.window().(saver); ok {
		path, err := sv.SaveFile(f.Name)
		if err != nil || path == "" {
			f.Cancelled = err == nil
			return f, err
		}
		n, err := writeWhole(path, write)
		if err != nil {
			return f, err
		}
		f.Path, f.Bytes, f.Redaction = path, n, sum
		return f, nil
	}
	url, n, err := a.downloads.add(a.deps.DataDir, f.Name, f.MIME, write)
	if err != nil {
		return f, err
	}
	f.Download, f.Bytes, f.Redaction = url, n, sum
	return f, nil
}

// exportFile resolves the sessions opts export (first: an unknown one asks
// nothing) and names the file.
func (a *App) exportFile(sessionID string, opts ExportOptions) ([]string, ExportFile, error) {
	ids := opts.ids(sessionID)
	for i, id := range ids {
		sess, err := a.deps.Archive.Session(a.ctx, id)
		if err != nil {
			return nil, ExportFile{}, err
		}
		ids[i] = sess.ID
	}
	f := ExportFile{Name: ids[0] + "." + opts.Format, MIME: exportMIME[opts.Format]}
	switch {
	case opts.Format == export.FormatOpenHands:
		f.Name = ids[0] + "-openhands.zip"
		kept, err := a.deps.Archive.KeptFiles(a.ctx, ids[0])
		if err != nil {
			return nil, ExportFile{}, err
		}
		if len(kept) == 0 {
			return nil, ExportFile{}, invalid(fmt.Sprintf("session %s keeps no OpenHands files: it is no OpenHands conversation (a dsh session's exact log is jsonl)", ids[0]))
		}
	case opts.Format == export.FormatBundle && len(ids) > 1:
		f.Name = fmt.Sprintf("logbook-%d-sessions.logbook", len(ids))
	case opts.Format == export.FormatBundle:
		f.Name = ids[0] + ".logbook"
	}
	return ids, f, nil
}

// writeExport writes the export of ids (resolved; one but for a bundle) to w and
// returns the redaction summary, nil when not redacted.
func (a *App) writeExport(ids []string, opts ExportOptions, decisions redact.Decisions, w io.Writer) (*redact.Summary, error) {
	switch {
	case opts.Format == export.FormatJSONL:
		return nil, a.deps.Archive.ExportJSONL(a.ctx, ids[0], w)
	case opts.Format == export.FormatOpenHands:
		return nil, export.WriteOriginalZip(a.ctx, a.deps.Archive, ids[0], w)
	case opts.Format == export.FormatBundle && !opts.Redact:
		bw := export.NewBundleWriter(w, "the Export dialog: session "+strings.Join(ids, ", session "), nil)
		if err := bw.AddSessions(a.ctx, a.deps.Archive, ids); err != nil {
			return nil, err
		}
		return nil, bw.Close()
	case opts.Format == export.FormatBundle:
		_, rep, err := a.scan(ids[0], ExportOptions{Format: opts.Format, Names: opts.Names, Sessions: ids[1:]})
		if err != nil {
			return nil, err
		}
		rd := rep.Redactor(decisions)
		sum := rd.Summary()
		bw := export.NewBundleWriter(w, "the Export dialog: session "+strings.Join(ids, ", session "), &sum)
		if err := bw.AddRedacted(a.ctx, a.deps.Archive, ids, rd); err != nil {
			return nil, err
		}
		return &sum, bw.Close()
	}
	var t *export.Transcript
	var err error
	if opts.Redact {
		var rep *redact.Report
		if t, rep, err = a.scan(ids[0], opts); err != nil {
			return nil, err
		}
		t = t.Redacted(rep.Redactor(decisions))
	} else if t, err = a.load(ids[0], opts); err != nil {
		return nil, err
	}
	if opts.Format == export.FormatHTML {
		err = export.WriteHTML(w, t)
	} else {
		err = export.WriteMarkdown(w, t)
	}
	return t.Redaction, err
}

// writeWhole writes a file the person chose through write: into a temporary file
// beside path, renamed over path only once written and closed, so a failed
// export leaves no half file (nor harms one that was there).
func writeWhole(path string, write func(io.Writer) error) (int64, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return 0, err
	}
	n, err := writeClose(f, write)
	if err == nil {
		err = os.Chmod(f.Name(), 0o644) // as os.Create makes it; CreateTemp makes it 0600
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return 0, err
	}
	return n, nil
}

// writeClose writes f's content through write, buffered in downloadChunk
// writes, and closes f. It returns the bytes written; the caller removes f on
// an error.
func writeClose(f *os.File, write func(io.Writer) error) (int64, error) {
	bw := bufio.NewWriterSize(f, downloadChunk)
	cw := &countingWriter{w: bw}
	err := write(cw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return cw.n, err
}

// countingWriter counts what it passes on.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
