package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
	"github.com/logbook/logbook/internal/memlimit"
	"github.com/logbook/logbook/sync/follow"
)

// holderWatch is what `logbook watch` records of itself while it indexes.
const holderWatch = "logbook watch"

// stopGrace is how long a stopped watch lets the import under way finish.
const stopGrace = 10 * time.Second

// rootsFlag collects a repeated --root.
type rootsFlag []string

func (r *rootsFlag) String() string { return strings.Join(*r, ",") }

func (r *rootsFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("want a folder")
	}
	*r = append(*r, v)
	return nil
}

// cmdWatch runs `logbook watch`: it imports what is new under the roots, then
// follows them live until interrupted, printing one line (one JSON object with
// --json) per file an import changed, and keeping the search index level.
func cmdWatch(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	var roots rootsFlag
	fs.Var(&roots, "root", "a folder to follow, recursively (repeatable; default: the session roots)")
	asJSON := fs.Bool("json", false, "print one JSON object per imported file, with the fields of import --json's files")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (name a folder with --root)", pos[0])}
	}
	if len(roots) == 0 {
		roots = archive.DefaultRoots()
		if len(roots) == 0 {
			return errors.New("no session roots found (looked for $DSH_HOME/sessions and ~/.dsh/sessions); name a folder to follow: logbook watch --root DIR")
		}
	}
	if err := e.needWritable("watch"); err != nil {
		return err
	}
	memlimit.Apply() // the first pass may be a whole import
	// main stops on Ctrl-C; a service manager stops with SIGTERM. Either way the
	// import under way finishes (see importCtx) and is reported.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if who := instanceHolder(e.dataDir); who != "" {
		fmt.Fprintf(e.stderr, "logbook watch: %s is running on this archive and follows its session roots itself (unless started with --no-follow); this watch imports beside it (imports of one archive take turns), and %s indexes what it imports\n", termSafe(who), termSafe(who))
	}
	fmt.Fprintf(e.stderr, "Watching %s (Ctrl-C to stop)\n", strings.Join(roots, ", "))

	// The import runs under a context no signal ends at once: the batch under way
	// when the watch is stopped is finished, unless it takes longer than
	// stopGrace (waiting for another process's import, say).
	importCtx, stopImport := context.WithCancel(context.WithoutCancel(ctx))
	defer stopImport()
	stopAfter := context.AfterFunc(ctx, func() { time.AfterFunc(stopGrace, stopImport) })
	defer stopAfter()
	w := &watcher{e: e, s: s, json: *asJSON, out: e.stdout, kick: make(chan struct{}, 1)}
	indexed := make(chan struct{})
	go func() { defer close(indexed); w.indexLoop(ctx) }()
	f := follow.New(follow.Options[archive.FileReport]{
		Roots:    roots,
		Import:   w.importFiles(importCtx),
		Path:     func(r archive.FileReport) string { return r.Path },
		Torn:     archive.FileReport.TornTail,
		Source:   archive.SourceOf,
		OnImport: w.batch,
		OnStatus: w.status,
		Logger:   e.logger,
	})
	runErr := f.Run(ctx)
	<-indexed
	if runErr != nil {
		return runErr
	}
	// What the last batch imported is searchable once the watch has stopped.
	w.syncIndex(context.WithoutCancel(ctx))
	return nil
}

// watcher is the state of one `logbook watch`: what it prints, and the index
// kept level in the background.
type watcher struct {
	e    *env
	s    *archive.Store
	json bool

	mu   sync.Mutex
	out  io.Writer
	told bool // the index holder was named once

	kick chan struct{} // something was imported: index it
}

// importFiles is the follower's import: the archive's, as `logbook import`
// runs it. It runs under ctx, which no signal cancels, so a batch under way when
// the watch is stopped is finished.
func (w *watcher) importFiles(ctx context.Context) func(context.Context, []string) ([]archive.FileReport, error) {
	waited := false
	return func(_ context.Context, paths []string) ([]archive.FileReport, error) {
		rep, err := w.s.Import(ctx, paths, archive.ImportOptions{Waiting: func(holder string) {
			if !waited {
				waited = true
				fmt.Fprintf(w.e.stderr, "logbook watch: waiting for %s to finish (imports of one archive run one at a time)\n", termSafe(holder))
			}
		}})
		if rep == nil {
			return nil, err
		}
		return rep.Files, err
	}
}

// batch prints the files of one import run and wakes the indexer.
func (w *watcher) batch(b follow.Batch[archive.FileReport]) {
	printed := false
	for _, f := range b.Files {
		if w.print(f) {
			printed = true
		}
	}
	if b.Err != nil {
		fmt.Fprintf(w.e.stderr, "logbook watch: import failed (the files are read again shortly): %s\n", termSafe(b.Err.Error()))
	}
	if printed {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

// print prints one file of a batch when there is something to say of it: it
// changed, its torn tail is now taken as damage, or it failed. It reports
// whether it printed.
func (w *watcher) print(f follow.File[archive.FileReport]) bool {
	r := f.Report
	if !r.Changed && f.State != follow.Torn && r.Action != "failed" {
		return false // an unchanged file: a stat, nothing to say
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.json {
		// One object a line, the fields of import --json's files exactly. A file
		// being written shows as recovered with a torn-tail error; a torn tail
		// confirmed as damage comes once more, with action "unchanged".
		enc := json.NewEncoder(w.out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(r)
		return true
	}
	if f.State == follow.Writing {
		r.Error = nil // the torn tail is the line being written, not damage: no problem line
	}
	printReports(w.out, []archive.FileReport{r})
	switch f.State {
	case follow.Writing:
		fmt.Fprintln(w.out, "    being written: its last line is not complete yet")
	case follow.Torn:
		fmt.Fprintln(w.out, "    the tail stayed incomplete and its writer is gone: kept aside as damage")
	}
	return true
}

// status prints a root that is not watched, with the reason, and a root that
// is watched again.
func (w *watcher) status(st follow.Status) {
	switch st.Mode {
	case follow.Watching:
		fmt.Fprintf(w.e.stderr, "logbook watch: %s: watching (%d folders)\n", termSafe(st.Root), st.Folders)
	case follow.Polling:
		fmt.Fprintf(w.e.stderr, "logbook watch: %s: not watched, rescanned every 30 s: %s\n", termSafe(st.Root), termSafe(st.Reason))
	case follow.Missing:
		fmt.Fprintf(w.e.stderr, "logbook watch: %s: missing (%s); followed once it appears\n", termSafe(st.Root), termSafe(st.Reason))
	}
}

// indexLoop brings the search index level with the archive after each batch
// that changed something, until ctx ends. The index is opened for each round
// and let go after it, so `logbook search` works while the watch runs.
func (w *watcher) indexLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
			w.syncIndex(ctx)
		}
	}
}

// syncIndex runs one round of indexing. A running window or serve holding the
// index indexes what was imported itself (it notices within seconds), which is
// said once; a one-shot command holding it (a search) brings it level itself.
func (w *watcher) syncIndex(ctx context.Context) {
	ix, err := w.e.openIndexOnlyQuiet(holderWatch)
	var iu *index.InUseError
	if errors.As(err, &iu) {
		if h := iu.Holder; h == nil || !h.OneShot {
			w.mu.Lock()
			first := !w.told
			w.told = true
			w.mu.Unlock()
			if first {
				fmt.Fprintf(w.e.stderr, "logbook watch: %s; the imported sessions are indexed by a running Logbook within seconds\n", termSafe(w.e.indexInUse(iu, 0).Error()))
			}
		}
		return
	}
	if err != nil {
		w.e.logger.Warn("search index not updated", "err", err)
		return
	}
	defer ix.Close()
	if _, err := ix.Sync(ctx, w.s, nil); err != nil && ctx.Err() == nil {
		fmt.Fprintf(w.e.stderr, "logbook watch: search index not updated: %s\n", termSafe(err.Error()))
	}
}
