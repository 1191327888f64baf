package main

import (
	"context"
	"flag"
	"fmt"
	"time"
)

// cmdReindex runs `logbook reindex`: the search index rebuilt from the archive.
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
