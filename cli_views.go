package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/logbook/logbook/archive"
)

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
		return writeJSON(e.stdout, list)
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

func cmdShow(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Errorf("name one session")}
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	sess, err := s.Session(ctx, pos[0])
	if err != nil {
		return err
	}
	msgs, err := s.Messages(ctx, sess.ID)
	if err != nil {
		return err
	}
	calls, err := s.ToolCalls(ctx, sess.ID)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, map[string]any{"session": sess, "messages": msgs, "tool_calls": calls})
	}
	printTranscript(e.human(), sess, msgs, calls)
	return nil
}

// printTranscript renders a session for reading in a terminal: turns, prompts,
// answers, tool calls with their results, and what compactions shadowed.
func printTranscript(w io.Writer, sess archive.Session, msgs []archive.Message, calls []archive.ToolCall) {
	title := sess.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(w, "# %s\n%s · %s · %s\n", title, sess.ID, sess.Project, sess.CreatedAt.Local().Format(time.RFC1123))
	fmt.Fprintf(w, "%d turns · %d tool calls · %d events · models %s · health %s\n",
		sess.Turns, sess.ToolCalls, sess.Events, strings.Join(sess.Models, ", "), sess.Health)
	type item struct {
		seq  int64
		msg  *archive.Message
		call *archive.ToolCall
	}
	var items []item
	for i := range msgs {
		if msgs[i].Kind != "tool_result" {
			items = append(items, item{seq: msgs[i].Seq, msg: &msgs[i]})
		}
	}
	for i := range calls {
		items = append(items, item{seq: calls[i].CallSeq, call: &calls[i]})
	}
	sort.Slice(items, func(a, b int) bool { return items[a].seq < items[b].seq })
	turn := int64(-1)
	for _, it := range items {
		var t *int64
		if it.msg != nil {
			t = it.msg.Turn
		} else {
			t = it.call.Turn
		}
		if t != nil && *t != turn {
			turn = *t
			fmt.Fprintf(w, "\n── turn %d ──\n", turn)
		}
		if m := it.msg; m != nil {
			label := m.Kind
			switch m.Kind {
			case "injected":
				label = "context"
				if m.Plugin != "" {
					label += ": " + m.Plugin
				} else if m.SourceKind != "" {
					label += ": " + m.SourceKind
				}
			case "human":
				label = "you"
			}
			if m.Surface == "shadowed" {
				label += fmt.Sprintf(", shadowed by compaction at seq %d", *m.ShadowedBy)
			}
			fmt.Fprintf(w, "\n[%s] (seq %d)\n", label, m.Seq)
			if m.Reasoning != "" {
				fmt.Fprintf(w, "  (reasoning) %s\n", clip(oneLine(m.Reasoning), 160))
			}
			if m.Text != "" {
				text := m.Text
				if m.Kind == "injected" {
					text = clip(oneLine(text), 200)
				}
				fmt.Fprintln(w, indent(text, "  "))
			}
			continue
		}
		c := it.call
		fmt.Fprintf(w, "\n[tool %s] %s %s (seq %d)\n", c.CallID, c.Name, clip(oneLine(c.Arguments), 200), c.CallSeq)
		switch {
		case c.Output == nil:
			fmt.Fprintln(w, "  → no result (interrupted)")
		case c.IsError:
			fmt.Fprintf(w, "  → error %s%s\n", c.ErrorCode, indent(clip(*c.Output, 400), "    "))
		default:
			fmt.Fprintf(w, "  → %s\n", clip(oneLine(*c.Output), 300))
		}
	}
}

func cmdExport(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", "jsonl", "export format: jsonl")
	out := fs.String("o", "", "write to FILE instead of standard output (never over an existing file without --force)")
	force := fs.Bool("force", false, "with -o: replace an existing FILE (or link)")
	kept := fs.String("kept", "", "instead of the archived session, the bytes the archive kept aside for it: upstream (a damaged or shorter version of the source it did not take), original (a corrupt or unsupported file), tail (a dropped torn tail)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Errorf("name one session")}
	}
	if *format != "jsonl" {
		return usageError{fmt.Errorf("unknown format %q (supported: jsonl)", *format)}
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	// Resolve the session before touching -o FILE: an unknown id must leave an
	// existing file alone rather than truncate it and then delete it.
	sess, err := s.Session(ctx, pos[0])
	if err != nil {
		return err
	}
	var w io.Writer = e.stdout
	var f *outFile
	if *out != "" {
		if f, err = createOut(*out, *force); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if *kept != "" {
		err = exportKept(ctx, s, sess.ID, *kept, bw)
	} else {
		err = s.ExportJSONL(ctx, sess.ID, bw)
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if f != nil {
		err = f.finish(err)
	}
	return err
}

// listCmd is the shape every archive-wide list shares: --json and --session flags
// (plus any a command adds), a query over the archive, then JSON or a table.
type listCmd[T any] struct {
	name   string
	flags  func(fs *flag.FlagSet) func() error // extra flags; the returned check runs after parsing
	query  func(s *archive.Store, ctx context.Context, f archive.ItemFilter) ([]T, error)
	header string
	row    func(T) string
}

func (c listCmd[T]) run(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	session := fs.String("session", "", "only this session")
	check := func() error { return nil }
	if c.flags != nil {
		check = c.flags(fs)
	}
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := check(); err != nil {
		return err
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := c.query(s, ctx, archive.ItemFilter{SessionID: *session})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, list)
	}
	tw := tabwriter.NewWriter(e.human(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, c.header)
	for _, item := range list {
		fmt.Fprintln(tw, c.row(item))
	}
	return tw.Flush()
}

func cmdApprovals(ctx context.Context, e *env, args []string) error {
	return listCmd[archive.Approval]{
		name:   "approvals",
		query:  (*archive.Store).Approvals,
		header: "ASKED\tTOOL\tOUTCOME\tPOLICY\tSANDBOX\tSESSION\tREASON",
		row: func(a archive.Approval) string {
			outcome := "(undecided)"
			if a.Outcome != nil {
				outcome = *a.Outcome
			}
			return strings.Join([]string{fmtTime(a.AskedAt), a.ToolName, outcome, a.Policy, a.SandboxMode, a.SessionID,
				clip(oneLine(a.Reason), 60)}, "\t")
		},
	}.run(ctx, e, args)
}

func cmdCompactions(ctx context.Context, e *env, args []string) error {
	return listCmd[archive.Compaction]{
		name:   "compactions",
		query:  (*archive.Store).Compactions,
		header: "WHEN\tKIND\tSTATUS\tSHADOWED\tTOKENS\tMODEL\tSESSION\tSUMMARY",
		row: func(c archive.Compaction) string {
			summary := clip(oneLine(c.Summary), 60)
			if c.Error != nil {
				summary = "error: " + clip(oneLine(*c.Error), 60)
			}
			toks := "-"
			if c.ShadowedTokens != nil {
				toks = fmt.Sprint(*c.ShadowedTokens)
			}
			return strings.Join([]string{fmtTime(c.StartedAt), c.Kind, c.Status, fmt.Sprintf("%d msgs", len(c.ShadowedSeqs)),
				toks, c.Model, c.SessionID, summary}, "\t")
		},
	}.run(ctx, e, args)
}

func cmdSchedules(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && scheduleVerbs[args[0]] != "" {
		return cmdScheduleAction(ctx, e, args) // cli_schedules.go
	}
	now := time.Now()
	return listCmd[archive.ScheduleItem]{
		name: "schedules",
		flags: func(fs *flag.FlagSet) func() error {
			nowFlag := fs.String("now", "", "evaluate states at this RFC 3339 instant (default: now)")
			return func() error {
				if *nowFlag == "" {
					return nil
				}
				t, err := time.Parse(time.RFC3339Nano, *nowFlag)
				if err != nil {
					return usageError{fmt.Errorf("--now must be an RFC 3339 instant such as 2026-11-29T09:00:00Z: %v", err)}
				}
				now = t
				return nil
			}
		},
		query: func(s *archive.Store, ctx context.Context, f archive.ItemFilter) ([]archive.ScheduleItem, error) {
			return s.Schedules(ctx, f, now)
		},
		header: "STATE\tKIND\tNEXT FIRE (local)\tLOGBOOK\tLAST FIRE\tID\tSESSION\tPROMPT",
		row: func(it archive.ScheduleItem) string {
			next := "-"
			if it.NextFire != nil {
				next = it.NextFire.Local().Format("2006-01-02 15:04:05")
			}
			// LOGBOOK: what Logbook does (its overrides and fires), beside the fold's STATE.
			lb := it.LogbookState
			if it.LogbookNextFire != nil && (it.NextFire == nil || !it.LogbookNextFire.Equal(*it.NextFire)) {
				lb += " " + it.LogbookNextFire.Local().Format("2006-01-02 15:04:05")
			}
			last := "-"
			if f := it.LastFire; f != nil {
				last = f.Outcome + " " + f.FiredAt.Local().Format("2006-01-02 15:04:05")
			}
			return strings.Join([]string{it.State, it.Kind, next, lb, last, it.ID, it.SessionID, clip(oneLine(it.Prompt), 60)}, "\t")
		},
	}.run(ctx, e, args)
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func indent(s, pre string) string { return pre + strings.ReplaceAll(s, "\n", "\n"+pre) }

// exportKept writes the bytes of kind the archive kept for the session's file (the
// file's own bytes, as they were on disk, not logical JSONL).
func exportKept(ctx context.Context, s *archive.Store, sessionID, kind string, w io.Writer) error {
	switch kind {
	case "upstream", "original", "tail":
	default:
		return usageError{fmt.Errorf("--kept must be upstream, original or tail, got %q", kind)}
	}
	files, err := s.SessionFiles(ctx, sessionID)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := s.KeptBytes(ctx, f.Path, kind, w); !errors.Is(err, archive.ErrNotFound) {
			return err
		}
	}
	return fmt.Errorf("no %s bytes are kept for session %s", kind, sessionID)
}
