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

// What each command records of itself while it has the search index open for
// writing (index.Holder), so that another command finding it busy can say who
// holds it. The one-shot commands let go when they are done, so another waits
// for them a little (oneShotWait) rather than failing.
const (
	holderSearch  = "logbook search"
	holderImport  = "logbook import"
	holderReindex = "logbook reindex"
	holderServe   = "logbook serve"
	holderWindow  = "the Logbook window"
)

// oneShotWait is how long a command waits for a one-shot command (an import
// indexing what it imported, a search bringing the index up to date) to let go of
// the search index.
const oneShotWait = 10 * time.Second

// openIndex opens the search index beside the archive, as the command who, and
// brings it level with it: a version change rebuilds it and sessions imported
// since the last run are indexed, so search never silently misses what the archive
// holds. In a read-only data directory it searches the index as it is when that is
// level with the archive, and otherwise a temporary one (openIndexReadOnly).
func (e *env) openIndex(ctx context.Context, s *archive.Store, who string, quiet bool) (*index.Index, error) {
	if e.readOnly {
		return e.openIndexReadOnly(ctx, s, quiet)
	}
	ix, err := e.openIndexOnly(who, false)
	if err != nil {
		return nil, err
	}
	_, err = ix.Sync(ctx, s, e.indexProgress(quiet))
	if err == nil {
		return ix, nil
	}
	ix.Close()
	if !index.IsNoSpace(err) {
		return nil, fmt.Errorf("update search index: %w", err)
	}
	// The index on disk keeps every session it took in whole: search that, and
	// say what it may lack.
	again, oerr := e.openIndexOnly(who, false)
	if oerr != nil {
		return nil, fmt.Errorf("update search index: %w", err)
	}
	fmt.Fprintf(e.stderr, "logbook: the disk is full, so the search index could not take in every session; results may miss the latest (free some space and any search catches up): %v\n", err)
	return again, nil
}

// indexProgress returns a progress bar for indexing on a terminal, or nil.
func (e *env) indexProgress(quiet bool) func(done, total int) {
	f, ok := e.stderr.(*os.File)
	if !ok || !isTerminal(f) || quiet {
		return nil
	}
	bar := &progressBar{w: f, start: time.Now()}
	return func(done, total int) {
		bar.update(archive.Progress{File: "indexing", FileIndex: done, Files: total,
			DoneBytes: int64(done), TotalBytes: int64(total)})
		if done == total {
			bar.finish()
		}
	}
}

// openIndexOnly opens the search index for writing as the command who; fresh
// discards what the index directory holds first (reindex). Bleve allows one
// process per index: when a one-shot command holds it, this waits for it up to
// oneShotWait with a note on stderr; otherwise it names the holder.
func (e *env) openIndexOnly(who string, fresh bool) (*index.Index, error) {
	dir := filepath.Join(e.dataDir, "index")
	o := index.Options{Holder: index.Holder{Command: who, OneShot: who != holderServe && who != holderWindow},
		Fresh: fresh, Wait: -1}
	ix, err := index.OpenWith(dir, o)
	var iu *index.InUseError
	if errors.As(err, &iu) {
		o.Wait = 0 // Open's own short wait: a window that is closing lets go
		if h := iu.Holder; h != nil && h.OneShot && !h.Gone {
			fmt.Fprintf(e.stderr, "logbook: waiting for %s to finish indexing…\n", h)
			o.Wait = oneShotWait
		}
		ix, err = index.OpenWith(dir, o)
	}
	if errors.As(err, &iu) {
		return nil, e.indexInUse(iu, o.Wait)
	}
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	return ix, nil
}

// indexInUse says who holds the search index and what to do about it.
func (e *env) indexInUse(iu *index.InUseError, waited time.Duration) error {
	switch h := iu.Holder; {
	case h != nil && !h.Gone && h.OneShot:
		return fmt.Errorf("%w; it is still at work after %s: try again when it finishes", iu, waited)
	case h != nil && !h.Gone:
		return fmt.Errorf("%w; search in its UI, or stop it first", iu)
	}
	// No live record: a read-only Logbook, or one from before the record. The
	// instance lock names a running window or serve.
	if b, err := os.ReadFile(filepath.Join(e.dataDir, "logbook.lock")); err == nil && strings.TrimSpace(string(b)) != "" {
		return fmt.Errorf("%w; running here: %s", iu, strings.TrimSpace(string(b)))
	}
	return fmt.Errorf("%w; close the other Logbook, or try again when it is done", iu)
}

// openIndexReadOnly opens the search index of a read-only data directory. The
// index is searched as it is when it is level with the archive. When it is
// missing, unusable or behind, a temporary index is built in os.TempDir() (from a
// copy of the index when there is one) and brought level with the archive, so
// search still answers; it is removed on Close, and stderr says so.
func (e *env) openIndexReadOnly(ctx context.Context, s *archive.Store, quiet bool) (*index.Index, error) {
	dir := filepath.Join(e.dataDir, "index")
	ro, err := index.OpenWith(dir, index.Options{ReadOnly: true})
	var why string
	switch {
	case errors.Is(err, index.ErrNoIndex):
		why = "missing"
	case err != nil:
		why = fmt.Sprintf("unusable (%v)", err)
	default:
		n, err := ro.Pending(ctx, s)
		if err == nil && n == 0 {
			return ro, nil
		}
		why = fmt.Sprintf("%d sessions behind the archive", n)
		if err != nil {
			why = fmt.Sprintf("not checkable against the archive (%v)", err)
		}
	}
	tmp, err := index.OpenTemp(ro)
	if ro != nil {
		ro.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("the search index in %s is %s, and the data directory is read-only; a temporary index could not be made: %w", dir, why, err)
	}
	fmt.Fprintf(e.stderr, "logbook: the search index in %s is %s and cannot be updated (read-only data directory); searching a temporary index in %s instead, removed on exit\n", dir, why, tmp.Dir())
	if _, err := tmp.Sync(ctx, s, e.indexProgress(quiet)); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("build temporary search index: %w", err)
	}
	return tmp, nil
}

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

func cmdReindex(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("reindex", flag.ContinueOnError)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if e.readOnly {
		return fmt.Errorf("reindex needs to write the search index, but the data directory %s cannot be written; search still works there, with a temporary index when the one on disk is behind", e.dataDir)
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Now()
	// Fresh: whatever the index directory holds (half an index, a broken store)
	// is discarded without being opened, so reindex works from any state.
	ix, err := e.openIndexOnly(holderReindex, true)
	if err != nil {
		return err
	}
	defer ix.Close()
	st, err := ix.Sync(ctx, s, e.indexProgress(false))
	if err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	fmt.Fprintf(e.stdout, "Reindexed %+v in %s\n", st, time.Since(start).Round(time.Millisecond))
	return nil
}
