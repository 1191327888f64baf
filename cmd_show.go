package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
)

// cmdShow runs `logbook show`: a session's readable transcript.
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
