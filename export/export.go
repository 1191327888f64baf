// Package export writes an archived session for reading outside Logbook: Markdown
// that renders on GitHub, or one self-contained HTML file that looks like the
// conversation view. A Transcript is loaded once through the archive's read APIs;
// Docs lists every text it will write for the redact scanner, and Redacted returns a
// copy with the accepted findings replaced, so the writers never see a secret the
// person chose to hide. Nothing here writes to the archive.
package export

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export/redact"
)

// Formats a Transcript can be written in (jsonl is the archive's own ExportJSONL).
const (
	FormatMarkdown = "md"
	FormatHTML     = "html"
	FormatJSONL    = "jsonl"
)

// Transcript is a whole session: its summary and every timeline item, oldest first.
type Transcript struct {
	Session archive.Session
	Items   []archive.TimelineItem
	// Redaction is the summary of what was redacted, nil when the export was not
	// scanned. The writers record it (counts by category, never a secret).
	Redaction *redact.Summary
	// Range says which part of the session Items hold ("turns 3-5; the session
	// has turns 1-40"), empty for the whole session. The writers show it.
	Range string
}

// Load reads a session's whole timeline, a page of archive.MaxTimelineLimit items
// at a time. id may be an unambiguous prefix. Turns are the archive's: a log that
// names none (OpenHands) has one per prompt, with a turn start before it.
func Load(ctx context.Context, s *archive.Store, id string) (*Transcript, error) {
	sess, err := s.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	t := &Transcript{Session: sess}
	var after *int64
	for {
		page, err := s.Timeline(ctx, sess.ID, archive.TimelineQuery{After: after, Limit: archive.MaxTimelineLimit})
		if err != nil {
			return nil, fmt.Errorf("export: timeline of %s: %w", sess.ID, err)
		}
		t.Items = append(t.Items, page.Items...)
		if !page.HasAfter || len(page.Items) == 0 {
			return t, nil
		}
		last := page.Items[len(page.Items)-1].Seq
		after = &last
	}
}

// Doc kinds: the last element of a doc ID "SEQ/KIND" (or "title").
const (
	docTitle      = "title"
	docProject    = "project"
	docText       = "text"
	docReasoning  = "reasoning"
	docToolArgs   = "tool-args"
	docToolOutput = "tool-output"
	docApproval   = "approval-reason"
	docSummary    = "compaction-summary"
	docMarker     = "marker"
	docLabel      = "marker-label"
)

// docID names one text of item seq.
func docID(seq int64, kind string) string { return strconv.FormatInt(seq, 10) + "/" + kind }

// Docs lists every text the writers put in an export, one redact.Doc each, with IDs
// "title", "project" and "SEQ/KIND" (KIND: text, reasoning, tool-args, tool-output,
// approval-reason, compaction-summary, marker-label, marker). Empty texts are left out.
func (t *Transcript) Docs() []redact.Doc { return t.docs(nil, "") }

// docs appends t's docs to docs, their IDs prefixed with prefix.
func (t *Transcript) docs(docs []redact.Doc, prefix string) []redact.Doc {
	add := func(id, text string) {
		if text != "" {
			docs = append(docs, redact.Doc{ID: prefix + id, Text: text})
		}
	}
	add(docTitle, t.Session.Title)
	add(docProject, t.Session.Project)
	for i := range t.Items {
		it := &t.Items[i]
		t.eachText(it, func(kind string, p *string) { add(docID(it.Seq, kind), *p) })
	}
	return docs
}

// eachText calls fn with a pointer to every text of it that an export writes.
func (t *Transcript) eachText(it *archive.TimelineItem, fn func(kind string, p *string)) {
	switch {
	case it.Message != nil:
		fn(docText, &it.Message.Text)
		fn(docReasoning, &it.Message.Reasoning)
	case it.Tool != nil:
		fn(docToolArgs, &it.Tool.Arguments)
		if it.Tool.Output != nil {
			fn(docToolOutput, it.Tool.Output)
		}
	case it.Approval != nil:
		fn(docApproval, &it.Approval.Reason)
	case it.Compaction != nil:
		fn(docSummary, &it.Compaction.Summary)
	case it.Marker != nil:
		fn(docLabel, &it.Marker.Label)
		fn(docMarker, &it.Marker.Detail)
	}
}

// Redacted returns a copy of t with every text passed through rd, and rd's summary
// recorded. t is not changed.
func (t *Transcript) Redacted(rd *redact.Redactor) *Transcript { return t.redacted(rd, "") }

// redacted is Redacted for docs whose IDs have prefix.
func (t *Transcript) redacted(rd *redact.Redactor, prefix string) *Transcript {
	c := &Transcript{Session: t.Session, Items: make([]archive.TimelineItem, len(t.Items)), Range: t.Range}
	c.Session.Title = rd.Redact(redact.Doc{ID: prefix + docTitle, Text: t.Session.Title})
	c.Session.Project = rd.Redact(redact.Doc{ID: prefix + docProject, Text: t.Session.Project})
	c.Session.Cwd, c.Session.Path = "", "" // never written; not scanned
	for i, it := range t.Items {
		// Copy the payload the texts live in before rewriting them.
		switch {
		case it.Message != nil:
			m := *it.Message
			it.Message = &m
		case it.Tool != nil:
			tc := *it.Tool
			if tc.Output != nil {
				o := *tc.Output
				tc.Output = &o
			}
			it.Tool = &tc
		case it.Approval != nil:
			a := *it.Approval
			it.Approval = &a
		case it.Compaction != nil:
			k := *it.Compaction
			it.Compaction = &k
		case it.Marker != nil:
			m := *it.Marker
			it.Marker = &m
		}
		c.eachText(&it, func(kind string, p *string) {
			if *p != "" {
				*p = rd.Redact(redact.Doc{ID: prefix + docID(it.Seq, kind), Text: *p})
			}
		})
		c.Items[i] = it
	}
	s := rd.Summary()
	c.Redaction = &s
	return c
}

// ScanSessions scans every text a multi-session export of the sessions ids writes,
// as one (see redact.Scanner.ScanParts): a secret gets the same placeholder in every
// session. It holds one session's transcript at a time, each loaded twice. A
// finding's doc ID is "N:" + the transcript's own doc ID, N counting from 0 in ids'
// order, so the findings of a scan of the same ids address the same texts:
// AddRedacted writes the sessions with a redactor of this report.
func ScanSessions(ctx context.Context, s *archive.Store, ids []string, sc *redact.Scanner) (*redact.Report, error) {
	return sc.ScanParts(ctx, len(ids), func(ctx context.Context, i int) ([]redact.Doc, error) {
		t, err := Load(ctx, s, ids[i])
		if err != nil {
			return nil, err
		}
		return t.docs(nil, setPrefix(i)), nil
	})
}

func setPrefix(i int) string { return strconv.Itoa(i) + ":" }

// redactionLine is the one-line summary an export records: counts by category in
// redact.Categories order, never a secret.
func redactionLine(s *redact.Summary) string {
	var parts []string
	total := 0
	for _, c := range redact.Categories {
		if n := s.Redacted[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, n))
			total += n
		}
	}
	line := fmt.Sprintf("redacted %d occurrence(s)", total)
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if s.Kept > 0 {
		line += fmt.Sprintf("; %d finding(s) kept by choice", s.Kept)
	}
	if s.Ruleset != "" {
		line += "; ruleset " + s.Ruleset
	}
	return line
}
