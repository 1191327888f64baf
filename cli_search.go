package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// openIndex opens the search index beside the archive and brings it level with it:
// a version change rebuilds it and sessions imported since the last run are indexed,
// so search never silently misses what the archive holds.
func (e *env) openIndex(ctx context.Context, s *archive.Store, quiet bool) (*index.Index, error) {
	ix, err := e.openIndexOnly()
	if err != nil {
		return nil, err
	}
	var progress func(done, total int)
	if f, ok := e.stderr.(*os.File); ok && isTerminal(f) && !quiet {
		bar := &progressBar{w: f, start: time.Now()}
		progress = func(done, total int) {
			bar.update(archive.Progress{File: "indexing", FileIndex: done, Files: total,
				DoneBytes: int64(done), TotalBytes: int64(total)})
		}
		defer bar.finish()
	}
	if _, err := ix.Sync(ctx, s, progress); err != nil {
		ix.Close()
		return nil, fmt.Errorf("update search index: %w", err)
	}
	return ix, nil
}

// openIndexOnly opens the search index, naming the running Logbook that holds it
// when it is busy (Bleve allows one process per index).
func (e *env) openIndexOnly() (*index.Index, error) {
	ix, err := index.Open(filepath.Join(e.dataDir, "index"))
	if errors.Is(err, index.ErrInUse) {
		who := "a running Logbook (the window or logbook serve)"
		if b, rerr := os.ReadFile(filepath.Join(e.dataDir, "logbook.lock")); rerr == nil && strings.TrimSpace(string(b)) != "" {
			who = strings.TrimSpace(string(b))
		}
		return nil, fmt.Errorf("%w: %s has it open; search in its UI, or stop it first", err, who)
	}
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	return ix, nil
}

func cmdSearch(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 20, "at most N hits")
	cursor := fs.String("cursor", "", "continue after a previous page (its next_cursor)")
	sort := fs.String("sort", "relevance", "relevance or recent")
	exhaustive := fs.Bool("exhaustive", false, "rank and count every match, however many (exact; slower when many match)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *sort != "relevance" && *sort != "recent" {
		return usageError{fmt.Errorf("--sort must be relevance or recent, got %q", *sort)}
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	ix, err := e.openIndex(ctx, s, *asJSON)
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

// printHits renders search results for a terminal: the total, then one line per
// hit and its fragments with the matches in bold. A later page (after a cursor)
// carries no total, so it shows only its hits.
func printHits(w io.Writer, res index.Result) {
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
		fmt.Fprintf(w, "\n%s  %s  seq %d  [%s]\n", h.Time.Local().Format("2006-01-02 15:04"), h.SessionID, h.Seq, what)
		for _, f := range h.Fragments {
			fmt.Fprintln(w, "  "+terminalFragment(f))
		}
	}
	if res.NextCursor != "" {
		fmt.Fprintf(w, "\nmore: --cursor %s\n", res.NextCursor)
	}
}

// terminalFragment turns an HTML fragment (escaped text, matches in <mark>) into
// terminal text with the matches in bold.
func terminalFragment(f string) string {
	f = strings.ReplaceAll(f, "<mark>", "\033[1m")
	f = strings.ReplaceAll(f, "</mark>", "\033[0m")
	return oneLine(html.UnescapeString(f))
}

func cmdReindex(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("reindex", flag.ContinueOnError)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	ix, err := e.openIndexOnly()
	if err != nil {
		return err
	}
	defer ix.Close()
	start := time.Now()
	st, err := ix.Reindex(ctx, s, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Reindexed %+v in %s\n", st, time.Since(start).Round(time.Millisecond))
	return nil
}
