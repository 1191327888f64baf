package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/logbook/logbook/index"
)

// cmdSearch runs `logbook search`: full-text search over every session.
func cmdSearch(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", index.DefaultLimit, fmt.Sprintf("hits per page, 1 to %d", index.MaxLimit))
	cursor := fs.String("cursor", "", "continue after a previous page (its next_cursor)")
	sort := fs.String("sort", "relevance", "relevance or recent")
	exhaustive := fs.Bool("exhaustive", false, "rank and count every match, however many (exact; slower when many match)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return searchFlagError(err, args)
	}
	if *sort != "relevance" && *sort != "recent" {
		return usageError{fmt.Errorf("--sort must be relevance or recent, got %q", *sort)}
	}
	if *limit < 1 || *limit > index.MaxLimit {
		return usageError{fmt.Errorf("--limit must be between 1 and %d, got %d", index.MaxLimit, *limit)}
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	ix, err := e.openIndex(ctx, s, holderSearch, *asJSON)
	if err != nil {
		return err
	}
	defer ix.Close()
	res, err := ix.Search(ctx, index.Query{
		Text: strings.Join(pos, " "), Sort: *sort, Limit: *limit, Cursor: *cursor, Exhaustive: *exhaustive,
	})
	// A query that does not parse, or a cursor no search returned, is a mistake in
	// the command line like a bad flag: exit status 2, with the error's column.
	var qe *index.QueryError
	switch {
	case errors.As(err, &qe):
		return usageError{qe}
	case errors.Is(err, index.ErrBadCursor):
		if inner := errors.Unwrap(err); inner != nil {
			err = inner // drop Search's "search: " prefix
		}
		return usageError{fmt.Errorf("--cursor: %w", err)}
	case err != nil:
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	printHits(e.stdout, res)
	return nil
}

// searchFlagError explains a flag search does not know. A query is often
// mistaken for one: a word that starts with - (--port, -1) or a negated word
// (deploy -test), so the error says how to search for it.
func searchFlagError(err error, args []string) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return err
	}
	typed := name
	for _, a := range args {
		if a == "--" {
			break
		}
		if a != "" && strings.TrimLeft(a, "-") == strings.TrimLeft(name, "-") {
			typed = a
			break
		}
	}
	return usageError{fmt.Errorf("unknown flag %s; to search for text that starts with -, put -- before the query: logbook search -- %s",
		termSafe(typed), termSafe(typed))}
}

// printHits renders search results for a terminal: the total, then one line per
// hit and its fragments with the matches in bold. A later page (after a cursor)
// carries no total, so it shows only its hits. Text from sessions is made
// terminal-safe (termSafe); the bold is Logbook's own.
func printHits(w io.Writer, res index.Result) {
	if res.Notice != "" {
		fmt.Fprintln(w, "note: "+termSafe(res.Notice))
	}
	switch {
	case len(res.Hits) == 0 && res.Total == 0:
		fmt.Fprintln(w, "No matches.")
		return
	case res.Total == 0:
		fmt.Fprintf(w, "more matches (%.1f ms)\n", res.TookMS)
	case !res.TotalExact:
		// A phrase over a large result set: word order was checked in the
		// matches ranked so far, and the count scaled up from them.
		fmt.Fprintf(w, "about %d matches (%.1f ms)\n", res.Total, res.TookMS)
	default:
		fmt.Fprintf(w, "%d matches (%.1f ms)\n", res.Total, res.TookMS)
	}
	if res.RankedAmong > 0 {
		fmt.Fprintf(w, "ranked among the %d newest matches; --exhaustive ranks all\n", res.RankedAmong)
	}
	for _, h := range res.Hits {
		what := h.Kind
		if h.Tool != "" {
			what += " " + h.Tool
		}
		if h.Surface == "shadowed" {
			what += ", shadowed"
		}
		if h.IsError {
			what += ", error"
		}
		fmt.Fprintf(w, "\n%s  %s  seq %d  [%s]\n", h.Time.Local().Format("2006-01-02 15:04"), termSafe(h.SessionID), h.Seq, termSafe(what))
		for _, f := range h.Fragments {
			fmt.Fprintln(w, "  "+terminalFragment(f))
		}
	}
	if res.NextCursor != "" {
		fmt.Fprintf(w, "\nmore: --cursor %s\n", res.NextCursor)
	}
}

// terminalFragment turns an HTML fragment (escaped text, matches in <mark>) into
// one line of terminal text with the matches in bold. The text is a session's,
// so each run of it is unescaped and made terminal-safe before the bold goes
// around it: a control sequence in it is shown (␛]0;x␇), never run.
func terminalFragment(f string) string {
	text := func(s string) string { return termSafe(html.UnescapeString(s)) }
	var b strings.Builder
	for {
		i := strings.Index(f, "<mark>")
		if i < 0 {
			break
		}
		j := strings.Index(f[i:], "</mark>")
		if j < 0 {
			break
		}
		b.WriteString(text(f[:i]))
		b.WriteString("\033[1m")
		b.WriteString(text(f[i+len("<mark>") : i+j]))
		b.WriteString("\033[0m")
		f = f[i+j+len("</mark>"):]
	}
	b.WriteString(text(f))
	return oneLine(b.String())
}
