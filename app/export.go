package app

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/redact"
)

// ExportOptions say how the UI's Export dialog exports a session.
type ExportOptions struct {
	Format string `json:"format"` // md | html | jsonl
	// Redact scans the export for secrets and personal data (md and html).
	Redact bool `json:"redact"`
	// Names are further person names to find besides the current user's.
	Names []string `json:"names,omitempty"`
	// Turns ("A-B") or Around (a seq, with Context turns either side) export part
	// of the session (md and html; see export.Part); neither is the whole session.
	Turns   string `json:"turns,omitempty"`
	Around  *int64 `json:"around,omitempty"`
	Context int64  `json:"context,omitempty"`
}

// part is the part of the session opts choose.
func (o ExportOptions) part() export.Part {
	return export.Part{Turns: o.Turns, Around: o.Around, Context: o.Context}
}

// ExportFile is a finished export. In the desktop window it was written where the
// person chose (Path; Cancelled when they closed the save dialog); in a browser it
// comes back as Content for the page to download under Name.
type ExportFile struct {
	Name      string          `json:"name"`
	MIME      string          `json:"mime"`
	Content   string          `json:"content,omitempty"`
	Path      string          `json:"path,omitempty"`
	Cancelled bool            `json:"cancelled,omitempty"`
	Bytes     int             `json:"bytes"`
	Redaction *redact.Summary `json:"redaction,omitempty"`
}

// exportMIME is the media type of each format.
var exportMIME = map[string]string{
	export.FormatMarkdown: "text/markdown; charset=utf-8",
	export.FormatHTML:     "text/html; charset=utf-8",
	export.FormatJSONL:    "application/jsonl",
}

// checkExport validates opts.
func checkExport(sessionID string, opts ExportOptions) error {
	if strings.TrimSpace(sessionID) == "" {
		return invalid("a session id is required")
	}
	if _, ok := exportMIME[opts.Format]; !ok {
		return invalid(fmt.Sprintf("unknown export format %q (md, html or jsonl)", opts.Format))
	}
	if opts.Redact && opts.Format == export.FormatJSONL {
		return invalid("redaction applies to md and html exports; jsonl is the archive's exact record")
	}
	if !opts.part().Whole() && opts.Format == export.FormatJSONL {
		return invalid("a turn range applies to md and html exports; jsonl is the whole log")
	}
	if err := opts.part().Check(); err != nil {
		return invalid(err.Error())
	}
	return nil
}

// scan loads the session and, with opts.Redact, scans every text the export writes.
// A re-scan of the same session gives the same finding IDs, so ExportScan's findings
// address the decisions Export applies.
func (a *App) scan(sessionID string, opts ExportOptions) (*export.Transcript, *redact.Report, error) {
	t, err := a.load(sessionID, opts)
	if err != nil {
		return nil, nil, err
	}
	sc, err := redact.NewScanner(redact.WithCurrentUser(redact.Options{UserNames: opts.Names}))
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

// ExportScan returns what redaction would find in a session's export: findings with
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

// Export writes a session in opts.Format, redacted by decisions when opts.Redact
// (the zero Decisions redacts every finding). The desktop window asks where to save
// it; a browser gets the content back.
func (a *App) Export(sessionID string, opts ExportOptions, decisions redact.Decisions) (ExportFile, error) {
	if err := checkExport(sessionID, opts); err != nil {
		return ExportFile{}, err
	}
	var buf bytes.Buffer
	var f ExportFile
	if opts.Format == export.FormatJSONL {
		sess, err := a.deps.Archive.Session(a.ctx, strings.TrimSpace(sessionID))
		if err != nil {
			return f, err
		}
		if err := a.deps.Archive.ExportJSONL(a.ctx, sess.ID, &buf); err != nil {
			return f, err
		}
		f.Name = sess.ID + ".jsonl"
	} else {
		var t *export.Transcript
		var err error
		if opts.Redact {
			var rep *redact.Report
			if t, rep, err = a.scan(sessionID, opts); err != nil {
				return f, err
			}
			t = t.Redacted(rep.Redactor(decisions))
			f.Redaction = t.Redaction
		} else if t, err = a.load(sessionID, opts); err != nil {
			return f, err
		}
		if opts.Format == export.FormatHTML {
			err = export.WriteHTML(&buf, t)
		} else {
			err = export.WriteMarkdown(&buf, t)
		}
		if err != nil {
			return f, err
		}
		f.Name = t.Session.ID + "." + opts.Format
	}
	f.MIME, f.Bytes = exportMIME[opts.Format], buf.Len()
	if sv, ok := a.events.window().(saver); ok {
		path, err := sv.SaveFile(f.Name)
		if err != nil {
			return f, err
		}
		if path == "" {
			f.Cancelled = true
			return f, nil
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return f, err
		}
		f.Path = path
		return f, nil
	}
	f.Content = buf.String()
	return f, nil
}
