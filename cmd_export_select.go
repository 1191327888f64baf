package main

// Which sessions and which part of a session `logbook export` writes: several
// sessions for a bundle (--session, --project, --since/--until, --query), a turn
// range or the turns around a search hit for md and html.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/index"
)

// idsFlag collects a repeated --session.
type idsFlag []string

func (r *idsFlag) String() string { return strings.Join(*r, ",") }

func (r *idsFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("want a session id")
	}
	*r = append(*r, strings.TrimSpace(v))
	return nil
}

// selectFlags choose the sessions of a bundle and the part of a session md and
// html write.
type selectFlags struct {
	sessions     idsFlag
	project      *string
	since, until *string
	query        *string
	turns        *string
	around       *string
	context      *int64
}

// addSelectFlags defines the selection flags on fs.
func addSelectFlags(fs *flag.FlagSet) *selectFlags {
	sf := &selectFlags{}
	fs.Var(&sf.sessions, "session", "bundle: a session to put in it (repeat for several)")
	sf.project = fs.String("project", "", "bundle: every session of this project (its working directory, as `logbook sessions` shows it)")
	sf.since = fs.String("since", "", "bundle: sessions active at or after this time (2006-01-02 or RFC 3339)")
	sf.until = fs.String("until", "", "bundle: sessions active at or before this time (2006-01-02, the whole day, or RFC 3339)")
	sf.query = fs.String("query", "", "bundle: the sessions a search finds (the search syntax of `logbook search`)")
	sf.turns = fs.String("turns", "", "md, html: only turns A-B (also A-, -B or A), as the export numbers them")
	sf.around = fs.String("around", "", "md, html: only the turns around a search hit (its id, as `logbook search --json` gives it: SESSION:SEQ:KIND)")
	sf.context = fs.Int64("context", 1, "with --around: turns to give either side of the hit's turn")
	return sf
}

// many reports whether the flags choose a bundle's sessions.
func (sf *selectFlags) many() bool {
	return len(sf.sessions) > 0 || *sf.project != "" || *sf.since != "" || *sf.until != "" || *sf.query != ""
}

// some reports whether the flags choose a part of a session.
func (sf *selectFlags) some() bool { return *sf.turns != "" || *sf.around != "" }

// check validates the flags against the format and the positional arguments.
func (sf *selectFlags) check(format string, pos []string) error {
	if sf.many() && format != export.FormatBundle {
		return usageError{fmt.Errorf("--session, --project, --since, --until and --query choose the sessions of a bundle: add --format bundle")}
	}
	if sf.some() && format != export.FormatMarkdown && format != export.FormatHTML {
		return usageError{fmt.Errorf("--turns and --around give part of a session as md or html; %s is whole sessions", format)}
	}
	if *sf.turns != "" && *sf.around != "" {
		return usageError{fmt.Errorf("--turns and --around both choose the turns: give one")}
	}
	if _, err := sf.part(); err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return usageError{fmt.Errorf("name one session (for several, a bundle: --session ID repeated)")}
	case len(pos) == 0 && !sf.many() && *sf.around == "":
		return usageError{fmt.Errorf("name one session (or, for a bundle, --session, --project, --since/--until or --query)")}
	}
	return nil
}

// part is the part of a session --turns or --around chose (the whole session
// without them).
func (sf *selectFlags) part() (export.Part, error) {
	p := export.Part{Turns: *sf.turns, Context: *sf.context}
	if *sf.around != "" {
		h, err := export.ParseHit(*sf.around)
		if err != nil {
			return p, usageError{err}
		}
		p.Around = &h.Seq
	}
	if err := p.Check(); err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// hitSession is the session --around names, checked against a named one.
func (sf *selectFlags) hitSession(pos []string) (string, error) {
	h, err := export.ParseHit(*sf.around)
	if err != nil {
		return "", usageError{err}
	}
	if len(pos) == 1 && !strings.HasPrefix(h.SessionID, pos[0]) {
		return "", usageError{fmt.Errorf("--around %s is a hit in session %s, not %s", *sf.around, h.SessionID, pos[0])}
	}
	return h.SessionID, nil
}

// selectSessions resolves a bundle's sessions: the named ones (positional and
// --session) and those --project, --since/--until and --query choose (all of
// them must hold for a session they choose), without repeats, in the order
// named, then most recently active first. It returns a line that says how they
// were chosen, for the manifest.
func (sf *selectFlags) selectSessions(ctx context.Context, e *env, s *archive.Store, pos []string) ([]archive.Session, string, error) {
	var out []archive.Session
	seen := map[string]bool{}
	add := func(sess archive.Session) {
		if !seen[sess.ID] {
			seen[sess.ID] = true
			out = append(out, sess)
		}
	}
	var how []string
	for _, id := range append(append([]string(nil), pos...), sf.sessions...) {
		sess, err := s.Session(ctx, id)
		if err != nil {
			return nil, "", err
		}
		add(sess)
		how = append(how, "session "+sess.ID)
	}
	if !(*sf.project != "" || *sf.since != "" || *sf.until != "" || *sf.query != "") {
		return out, strings.Join(how, ", "), nil
	}
	since, until, err := timeRange(*sf.since, *sf.until)
	if err != nil {
		return nil, "", usageError{err}
	}
	var hits map[string]bool
	if *sf.query != "" {
		if hits, err = querySessions(ctx, e, s, *sf.query); err != nil {
			return nil, "", err
		}
	}
	list, err := s.ListSessions(ctx, archive.SessionFilter{Project: *sf.project})
	if err != nil {
		return nil, "", err
	}
	n := len(out)
	for _, sess := range list {
		if (since.IsZero() || !sess.UpdatedAt.Before(since)) && (until.IsZero() || !sess.CreatedAt.After(until)) &&
			(hits == nil || hits[sess.ID]) {
			add(sess)
		}
	}
	var crit []string
	if *sf.project != "" {
		crit = append(crit, fmt.Sprintf("project %q", *sf.project))
	}
	if *sf.since != "" {
		crit = append(crit, "active since "+since.UTC().Format(time.RFC3339))
	}
	if *sf.until != "" {
		crit = append(crit, "active until "+until.UTC().Format(time.RFC3339))
	}
	if *sf.query != "" {
		crit = append(crit, fmt.Sprintf("found by %q", *sf.query))
	}
	if len(out) == n {
		return nil, "", fmt.Errorf("no session is %s", strings.Join(crit, " and "))
	}
	how = append(how, "sessions "+strings.Join(crit, " and "))
	return out, strings.Join(how, "; "), nil
}

// timeRange parses --since and --until: a date (until: to the end of that day)
// or an RFC 3339 time.
func timeRange(since, until string) (time.Time, time.Time, error) {
	parse := func(flag, v string, endOfDay bool) (time.Time, error) {
		if v == "" {
			return time.Time{}, nil
		}
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t, nil
		}
		d, err := time.ParseInLocation("2006-01-02", v, time.Local)
		if err != nil {
			return time.Time{}, fmt.Errorf("--%s %q: want a date (2006-01-02) or an RFC 3339 time (2006-01-02T15:04:05Z)", flag, v)
		}
		if endOfDay {
			d = d.AddDate(0, 0, 1).Add(-time.Nanosecond)
		}
		return d, nil
	}
	s, err := parse("since", since, false)
	if err != nil {
		return s, s, err
	}
	u, err := parse("until", until, true)
	if err == nil && !s.IsZero() && !u.IsZero() && u.Before(s) {
		err = fmt.Errorf("--until %s is before --since %s", until, since)
	}
	return s, u, err
}

// querySessions runs a search (through the index, brought level with the
// archive first, as `logbook search` does) and returns the sessions of its hits:
// all of them, resolved as the Export dialog of search results resolves them
// (export.QuerySessions).
func querySessions(ctx context.Context, e *env, s *archive.Store, q string) (map[string]bool, error) {
	ix, err := e.openIndex(ctx, s, holderSearch, true)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	found, err := export.QuerySessions(ctx, s, ix, q, export.MaxQuerySessions)
	var qe *index.QueryError
	var many *export.TooManySessionsError
	switch {
	case errors.As(err, &qe):
		return nil, usageError{fmt.Errorf("--query: %w", qe)}
	case errors.As(err, &many):
		return nil, usageError{fmt.Errorf("--query: %w", many)}
	case err != nil:
		return nil, err
	}
	ids := map[string]bool{}
	for _, id := range found {
		ids[id] = true
	}
	return ids, nil
}
