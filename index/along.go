package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/logbook/logbook/archive"
)

// alongPoll is how often SyncAlong, not fed, looks for sessions the import has
// committed. Each look reads every session's revision, so it is a few times a
// second, not a busy loop. Fed, it writes what it has queued once the feed has
// named nothing new for this long.
const alongPoll = 150 * time.Millisecond

// SyncAlong indexes the sessions an import commits while the import runs, until
// stop is closed: on two cores the index takes in one session while the archive
// reads the next. Unlike a Sync after each commit, it fills one batch across its
// looks and writes it when full (or when a look finds nothing new), so the
// segments are as large as one Sync's and merging costs no more than after a
// whole import. It holds the index for writing until it returns (searches run
// meanwhile); call Sync afterwards to bring the index level (sessions gone from
// the archive, and what was committed after the last look).
//
// Each session's revision is still recorded only after its last documents are
// written, so whatever ends SyncAlong (ctx, an error, a crash) leaves no session
// claiming a revision whose documents are not all written.
//
// With a feed (not nil) that the import tells of the sessions it commits
// (archive.ImportOptions.CommittedSessions: AlongFeed.Committed), SyncAlong looks
// at every session's revision once, as it starts, and then indexes the sessions
// the feed names as soon as they are committed. Without one it looks at every
// revision a few times a second.
func (ix *Index) SyncAlong(ctx context.Context, src Source, stop <-chan struct{}, feed *AlongFeed) (SyncStats, error) {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	return ix.withBleve(func(bl bleve.Index, revs *revStore) (SyncStats, error) {
		return ix.along(ctx, bl, revs, src, stop, feed)
	})
}

// AlongFeed passes the sessions an import commits to SyncAlong. Its zero value
// is not usable: make one with NewAlongFeed.
type AlongFeed struct {
	mu   sync.Mutex
	ids  []string
	wake chan struct{} // holds a token once ids has grown since SyncAlong last woke
}

// NewAlongFeed returns a feed for one SyncAlong.
func NewAlongFeed() *AlongFeed { return &AlongFeed{wake: make(chan struct{}, 1)} }

// Committed tells SyncAlong that the sessions ids have been committed. It never
// blocks; a session named twice is indexed once if both come before it looks.
func (f *AlongFeed) Committed(ids []string) {
	f.mu.Lock()
	f.ids = append(f.ids, ids...)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// take returns the sessions committed since the last take, sorted, each once.
func (f *AlongFeed) take() []string {
	f.mu.Lock()
	ids := f.ids
	f.ids = nil
	f.mu.Unlock()
	slices.Sort(ids)
	return slices.Compact(ids)
}

func (ix *Index) along(ctx context.Context, bl bleve.Index, indexed *revStore, src Source, stop <-chan struct{}, feed *AlongFeed) (SyncStats, error) {
	start := time.Now()
	bulkMerging.Add(1) // see mergeplan.go
	defer bulkMerging.Add(-1)
	var st SyncStats
	listed, err := listedSessions(bl)
	if err != nil {
		return st, fmt.Errorf("sync along: %w", err)
	}
	w, err := newBatchWriter(bl, indexed, ix.batchDocs)
	if err != nil {
		return st, fmt.Errorf("sync along: %w", err)
	}
	w.listed = listed
	defer func() { _ = w.wait() }()
	queued := map[string]int64{} // sessions queued by this call, at the revision seen
	var seen map[string]int64    // the revisions of the last look, each indexed or queued
	for looked := false; ; looked = true {
		stopping := closed(stop)
		lookStart := time.Now()
		var todo []string
		if feed != nil && looked {
			// What the import committed since the last look. A session it names again
			// (committed again since) is indexed again.
			todo = feed.take()
		} else {
			if feed != nil {
				// The look below sees every session committed so far.
				feed.take()
			}
			revs, err := src.Revisions(ctx)
			if err != nil {
				return st, fmt.Errorf("sync along: %w", err)
			}
			st.Sessions = len(revs)
			for id, rev := range revs {
				if q, ok := queued[id]; ok && q == rev {
					continue
				}
				if r, ok := seen[id]; ok && r == rev {
					continue // found current at the last look, and nothing else writes
				}
				if !indexedAt(indexed, id, rev) {
					todo = append(todo, id)
				}
			}
			sort.Strings(todo)
			seen = revs
		}
		look := time.Since(lookStart)
		// index queues one session, recording the revision it was read at.
		index := func(id string, read func(func(archive.Block) error) (int64, error)) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, again := queued[id]; again {
				// Changed again since it was queued: its documents may still be in the
				// pending batch, where the look-up of its old documents cannot see them.
				if err := w.close(); err != nil {
					return err
				}
				w.listed[id] = struct{}{}
			}
			n, rev, err := w.sessionRead(ctx, id, read)
			if err != nil {
				return err
			}
			queued[id] = rev
			w.listed[id] = struct{}{}
			st.Indexed++
			st.Docs += n
			return nil
		}
		// A session deleted meanwhile is skipped: the Sync after drops it.
		if err := readSessions(ctx, src, todo, index, func(string) error { return nil }); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return st, cerr
			}
			return st, fmt.Errorf("sync along: %w", err)
		}
		if stopping {
			// The import is done: what is queued becomes searchable.
			if err := w.close(); err != nil {
				return st, fmt.Errorf("sync along: %w", err)
			}
			break
		}
		if len(todo) == 0 {
			// Nothing new since the last look (fed: for alongPoll): what is queued is
			// written, to be searchable. While the import goes on, the batch fills
			// across its commits instead, so its segments are as large as a Sync's.
			if err := w.flush(); err != nil {
				return st, fmt.Errorf("sync along: %w", err)
			}
		}
		var poll <-chan time.Time
		var wake <-chan struct{}
		if feed != nil {
			wake = feed.wake
			if w.pending() {
				poll = time.After(alongPoll)
			}
		} else {
			// A look reads every session's revision: in a large archive it waits at
			// least nine times as long as the look took, so looking costs at most a
			// tenth of a core whatever the number of sessions.
			poll = time.After(max(alongPoll, 9*look))
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-stop:
		case <-wake:
		case <-poll:
		}
	}
	st.TookMS = float64(time.Since(start).Microseconds()) / 1000
	if st.Indexed > 0 {
		ix.log.Info("index synced along an import", "indexed", st.Indexed, "docs", st.Docs, "took_ms", st.TookMS)
	}
	return st, nil
}

// batchSource is a Source that reads the blocks of many sessions at once
// (archive.Store.SessionsBlocks): one read transaction and five statements for
// a batch of sessions, not for each session, which is most of what reading a
// small session costs.
type batchSource interface {
	SessionsBlocks(ctx context.Context, ids []string, fn func(id string, rev int64, each func(func(archive.Block) error) error) error) error
}

var _ batchSource = (*archive.Store)(nil)

// readBatch is how many sessions a sync reads in one read transaction: most
// are small (a first import's, a rebuilt index's).
const readBatch = 128

// readBudget bounds the block text a batch holds, 4 MiB (a hundred small
// sessions): a batch's blocks are read whole, the read transaction ended, and
// only then indexed. Indexing inside the read transaction held it open for
// seconds at a time, back to back, and SQLite could never restart the WAL
// under it: a 1 GB import grew the WAL to 509 MB, against 69 MB reading
// session by session. A variable for the tests.
var readBudget = 4 << 20

// blockOverhead is what readBudget counts for a block besides its text.
const blockOverhead = 256

// errReadBudget stops a batch's read at readBudget.
var errReadBudget = errors.New("index: a batch's read budget is spent")

// readSessions calls index for each of ids with a reader of its blocks, which
// returns the revision they were read at, and missing for each session no
// longer in src. A batchSource is read up to readBatch sessions and
// readBudget of text at a time, in the archive's order rather than that of
// ids (a batch's documents land in one or two Bleve batches, whose documents
// Bleve orders as it likes). A session over readBudget on its own is read
// while it is indexed, as a Source that reads one session at a time is.
func readSessions(ctx context.Context, src Source, ids []string, index func(string, func(func(archive.Block) error) (int64, error)) error, missing func(string) error) error {
	alone := func(id string) error {
		err := index(id, func(fn func(archive.Block) error) (int64, error) { return src.SessionBlocks(ctx, id, fn) })
		if errors.Is(err, archive.ErrNotFound) {
			err = missing(id)
		}
		if err != nil {
			return fmt.Errorf("index %s: %w", id, err)
		}
		return nil
	}
	bs, ok := src.(batchSource)
	if !ok {
		for _, id := range ids {
			if err := alone(id); err != nil {
				return err
			}
		}
		return nil
	}
	type held struct {
		id     string
		rev    int64
		blocks []archive.Block
	}
	for len(ids) > 0 {
		batch := ids[:min(readBatch, len(ids))]
		var got []held
		seen := make(map[string]bool, len(batch))
		size, cut := 0, ""
		err := bs.SessionsBlocks(ctx, batch, func(id string, rev int64, each func(func(archive.Block) error) error) error {
			seen[id] = true
			h := held{id: id, rev: rev}
			err := each(func(b archive.Block) error {
				if size += len(b.Text) + blockOverhead; size > readBudget {
					return errReadBudget
				}
				h.blocks = append(h.blocks, b)
				return nil
			})
			if errors.Is(err, errReadBudget) {
				cut = id
			}
			if err != nil {
				return err
			}
			got = append(got, h)
			return nil
		})
		if err != nil && !errors.Is(err, errReadBudget) {
			return err
		}
		done := make(map[string]bool, len(got))
		for _, h := range got {
			err := index(h.id, func(fn func(archive.Block) error) (int64, error) {
				for _, b := range h.blocks {
					if err := fn(b); err != nil {
						return 0, err
					}
				}
				return h.rev, nil
			})
			if err != nil {
				return fmt.Errorf("index %s: %w", h.id, err)
			}
			done[h.id] = true
		}
		if cut == "" {
			for _, id := range batch {
				if !seen[id] {
					if err := missing(id); err != nil {
						return fmt.Errorf("index %s: %w", id, err)
					}
				}
			}
			ids = ids[len(batch):]
			continue
		}
		if len(got) == 0 { // the batch's first session is over the budget alone
			if err := alone(cut); err != nil {
				return err
			}
			done[cut] = true
		}
		// The rest of the batch, the session cut short first, goes round again.
		rest := []string{}
		if !done[cut] {
			rest = append(rest, cut)
		}
		for _, id := range batch {
			if !done[id] && id != cut {
				rest = append(rest, id)
			}
		}
		ids = append(rest, ids[len(batch):]...)
	}
	return nil
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
