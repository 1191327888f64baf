package main

import (
	"context"
	"log/slog"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// indexAlong indexes, while an import runs, the sessions it has committed so far
// (index.SyncAlong): on two cores the index takes in one session while the archive
// reads the next, so the sessions are searchable sooner than if indexing waited
// for the whole import.
type indexAlong struct {
	ix   *index.Index
	feed *index.AlongFeed // the import names the sessions it commits here
	stop chan struct{}
	done chan error
}

// startIndexAlong opens the index and starts syncing it in the background. It
// returns nil when the index cannot be opened now (another process holds it, say):
// the import then brings it level afterwards, as before, and says why not.
func (e *env) startIndexAlong(ctx context.Context, s *archive.Store) *indexAlong {
	if e.readOnly {
		return nil
	}
	ix, err := e.openIndexOnlyQuiet(holderImport)
	if err != nil {
		return nil
	}
	a := &indexAlong{ix: ix, feed: index.NewAlongFeed(), stop: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		_, err := ix.SyncAlong(ctx, s, a.stop, a.feed)
		a.done <- err
	}()
	return a
}

// committed is the import's CommittedSessions while a is running, else nil.
func (a *indexAlong) committed() func([]string) {
	if a == nil {
		return nil
	}
	return a.feed.Committed
}

// finish stops the background syncing and brings the index level with the archive;
// the index is closed either way. An error, logged to log, leaves the caller to
// bring the index level the ordinary way (which also handles a full disk).
func (a *indexAlong) finish(ctx context.Context, s *archive.Store, progress func(done, total int), log *slog.Logger) error {
	close(a.stop)
	err := <-a.done
	if err == nil {
		_, err = a.ix.Sync(ctx, s, progress)
	}
	if cerr := a.ix.Close(); err == nil {
		err = cerr
	}
	if err != nil && ctx.Err() == nil {
		log.Warn("search index not synced along the import", "err", err)
	}
	return err
}
