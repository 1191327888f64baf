package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/logbook/logbook/archive"
)

// cmdSessions runs `logbook sessions`: the archived sessions, newest first.
func cmdSessions(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	project := fs.String("project", "", "only sessions of this project (cwd)")
	limit := fs.Int("limit", 0, "at most N sessions")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := s.ListSessions(ctx, archive.SessionFilter{Project: *project, Limit: *limit})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, withSync(ctx, s, list))
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "The archive is empty. Import sessions with: logbook import [PATH]")
		return nil
	}
	// Group by project, newest activity first within each, as a person scans them.
	byProject := map[string][]archive.Session{}
	var order []string
	for _, sess := range list {
		if _, ok := byProject[sess.Project]; !ok {
			order = append(order, sess.Project)
		}
		byProject[sess.Project] = append(byProject[sess.Project], sess)
	}
	tw := tabwriter.NewWriter(e.human(), 0, 0, 2, ' ', 0)
	for _, p := range order {
		name := p
		if name == "" {
			name = "(no cwd)"
		}
		fmt.Fprintf(tw, "%s\n", name)
		for _, sess := range byProject[p] {
			title := sess.Title
			if title == "" {
				title = "(untitled)"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d turns\t%d tools\t%d events\t%s\n", sess.UpdatedAt.Local().Format("2006-01-02 15:04"),
				clip(title, 48), sess.ID, sess.Turns, sess.ToolCalls, sess.Events, sess.Health)
		}
	}
	return tw.Flush()
}

// syncedSession is a session as `sessions --json` prints it: with the sync
// machine its bytes came from and, when its versions diverged between
// machines, every version (settled by `logbook sync resolve`).
type syncedSession struct {
	archive.Session
	Machine      string                `json:"machine,omitempty"`
	SyncConflict []archive.SyncVersion `json:"sync_conflict,omitempty"`
}

// withSync adds sync provenance to list; without sync set up, or on an
// archive that cannot tell, the sessions are printed as they are.
func withSync(ctx context.Context, s *archive.Store, list []archive.Session) []syncedSession {
	info, _ := s.SyncInfo(ctx)
	out := make([]syncedSession, len(list))
	for i, sess := range list {
		out[i].Session = sess
		if ss, ok := info[sess.ID]; ok {
			out[i].Machine = ss.Machine
			out[i].SyncConflict = ss.Conflict
		}
	}
	return out
}
