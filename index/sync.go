package index

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/logbook/logbook/archive"
)

// Source is where the index's documents come from. *archive.Store satisfies it.
type Source interface {
	// Revisions returns every session's current revision.
	Revisions(ctx context.Context) (map[string]int64, error)
	// SessionBlocks calls fn for each searchable block of a session and returns the
	// revision the blocks were read at.
	SessionBlocks(ctx context.Context, sessionID string, fn func(archive.Block) error) (int64, error)
}

var _ Source = (*archive.Store)(nil)

// activitySource is a Source that can say when each session was last active
// (Unix milliseconds). Sync then indexes changed sessions oldest activity
// first, so the documents of the sessions worked on last sit together at the
// end of the index, where a planned search's window of newest matches is
// cheapest to read (plan.go).
type activitySource interface {
	SessionActivity(ctx context.Context) (map[string]int64, error)
}

var _ activitySource = (*archive.Store)(nil)

// SyncStats sums up one Sync.
type SyncStats struct {
	Sessions  int     `json:"sessions"`  // sessions in the archive
	Indexed   int     `json:"indexed"`   // sessions (re)indexed
	Removed   int     `json:"removed"`   // sessions dropped because the archive no longer has them
	Unchanged int     `json:"unchanged"` // sessions already indexed at their current revision
	Docs      int     `json:"docs"`      // documents written
	TookMS    float64 `json:"took_ms"`
}

// Batch limits: a session with more blocks or text than this is written in several
// batches, its revision recorded only after the last. batchWeight bounds the memory of a
// batch being indexed, which is about 100 bytes a token (the analysis, then
// Bleve's segment builder) and twice that before the GC runs: about 1 MiB of
// textWeight is 170,000 tokens, or 500 blocks of the real corpus log. Larger
// batches cost less CPU per block (fewer segments to build and merge) but more
// memory. The batch being filled holds its analysis compactly (prepared), about
// a fifth of that.
const (
	defaultBatchDocs = 1000
	batchWeight      = 1 << 20
)

// Sync brings the index up to date with src: every session whose archive revision
// differs from the revision it was indexed at is indexed again, and sessions gone
// from the archive are dropped. A session's revision is recorded (revisions.go)
// only once the batch with the last of its documents is on disk, so a Sync cut
// short (a crash, a cancelled ctx) leaves that session to be indexed again by the
// next Sync rather than silently stale. progress, if not nil, is called with the number of sessions done so far.
func (ix *Index) Sync(ctx context.Context, src Source, progress func(done, total int)) (SyncStats, error) {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	return ix.sync(ctx, src, progress)
}

// Reindex drops the whole index and indexes every session of src again.
func (ix *Index) Reindex(ctx context.Context, src Source, progress func(done, total int)) (SyncStats, error) {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.reset(); err != nil {
		return SyncStats{}, fmt.Errorf("reindex: %w", err)
	}
	return ix.sync(ctx, src, progress)
}

// withBleve runs fn on the Bleve index and the revisions of its sessions, kept
// open meanwhile, or returns ErrClosed.
func (ix *Index) withBleve(fn func(bl bleve.Index, revs *revStore) (SyncStats, error)) (SyncStats, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bl == nil {
		return SyncStats{}, ErrClosed
	}
	return fn(ix.bl, ix.revs)
}

func (ix *Index) sync(ctx context.Context, src Source, progress func(done, total int)) (SyncStats, error) {
	return ix.withBleve(func(bl bleve.Index, revs *revStore) (SyncStats, error) {
		return ix.syncBleve(ctx, bl, revs, src, progress)
	})
}

func (ix *Index) syncBleve(ctx context.Context, bl bleve.Index, indexed *revStore, src Source, progress func(done, total int)) (SyncStats, error) {
	start := time.Now()
	var st SyncStats
	revs, err := src.Revisions(ctx)
	if err != nil {
		return st, fmt.Errorf("sync: %w", err)
	}
	st.Sessions = len(revs)

	if err := indexed.forgetAbsent(revs); err != nil {
		return st, fmt.Errorf("sync: %w", err)
	}
	stale := staleSessions(indexed, revs)
	st.Unchanged = len(revs) - len(stale)
	sort.Strings(stale)
	// Most recently active first; the activity reads every session's row, so not
	// for a single session (or none, as before most searches).
	if as, ok := src.(activitySource); ok && len(stale) > 1 {
		active, err := as.SessionActivity(ctx)
		if err != nil {
			return st, fmt.Errorf("sync: %w", err)
		}
		sort.SliceStable(stale, func(i, j int) bool { return active[stale[i]] < active[stale[j]] })
	}
	listed, err := listedSessions(bl)
	if err != nil {
		return st, fmt.Errorf("sync: %w", err)
	}
	gone, err := goneSessions(ctx, bl, revs, listed)
	if err != nil {
		return st, fmt.Errorf("sync: %w", err)
	}

	total, done := len(stale)+len(gone), 0
	report := func() {
		if progress != nil {
			progress(done, total)
		}
	}
	report()
	// One batch carries many small sessions: each batch waits for Bleve to persist
	// it, which costs more than indexing a small session. A session's revision
	// is still recorded only after its last documents are written.
	w, err := newBatchWriter(bl, indexed, ix.batchDocs)
	if err != nil {
		return st, fmt.Errorf("sync: %w", err)
	}
	w.listed = listed
	// Whatever ends the sync, no batch is still being written when it returns.
	defer func() { _ = w.wait() }()
	for _, id := range gone {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if err := w.drop(ctx, id); err != nil {
			return st, fmt.Errorf("sync: drop %s: %w", id, err)
		}
		st.Removed++
		done++
		report()
	}
	index := func(id string, read func(func(archive.Block) error) (int64, error)) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, _, err := w.sessionRead(ctx, id, read)
		if err != nil {
			return err
		}
		st.Indexed++
		st.Docs += n
		done++
		report()
		return nil
	}
	missing := func(id string) error { // deleted since Revisions was read
		if err := w.drop(ctx, id); err != nil {
			return err
		}
		st.Removed++
		done++
		report()
		return nil
	}
	if err := readSessions(ctx, src, stale, index, missing); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return st, cerr
		}
		return st, fmt.Errorf("sync: %w", err)
	}
	if err := w.close(); err != nil {
		return st, fmt.Errorf("sync: %w", err)
	}
	st.TookMS = float64(time.Since(start).Microseconds()) / 1000
	if st.Indexed > 0 || st.Removed > 0 {
		ix.log.Info("index synced", "indexed", st.Indexed, "removed", st.Removed, "docs", st.Docs, "took_ms", st.TookMS)
	}
	return st, nil
}

// batchWriter fills Bleve batches and writes each when it is full, one at a
// time, in order, on a goroutine of its own. Each document's text is analysed
// as it is queued (docBuilder.document), so the next batch is read and analysed
// while Bleve builds the segment of the one before: Bleve builds a segment on
// one goroutine, and this keeps the other core busy without a second batch in
// Bleve's hands. Batches are written in order, so a session's revision can be
// recorded with the batch holding its last document: every earlier batch of
// the session is written by then.
//
// (Two batches written at once, as before, held twice the term frequencies and
// Bleve's segment builder in memory, and the collector spent what the second
// core gained; a session split across batches also had to wait for both.)
type batchWriter struct {
	bl      bleve.Index
	revs    *revStore
	docs    *docBuilder
	b       *bleve.Batch
	done    map[string]int64 // the revisions of the sessions the pending batch completes
	maxDocs int
	weight  int // textWeight of the pending batch

	// listed holds every session the index's session field named when the sync
	// began (listedSessions), and those this writer queued since: one not listed
	// has no documents to look up (a first import's every session), as only this
	// writer writes meanwhile.
	listed map[string]struct{}

	slots chan struct{} // holds a token while a batch is being written
	mu    sync.Mutex
	err   error // the first write error
}

func newBatchWriter(bl bleve.Index, revs *revStore, maxDocs int) (*batchWriter, error) {
	docs, err := newDocBuilder(bl.Mapping())
	if err != nil {
		return nil, err
	}
	return &batchWriter{bl: bl, revs: revs, docs: docs, b: bl.NewBatch(), done: map[string]int64{},
		maxDocs: maxDocs, slots: make(chan struct{}, 1)}, nil
}

// flush starts writing the pending batch, if any, and returns the first error of
// any earlier write. The revisions of the sessions the batch completes are
// recorded once Bleve's Batch returns: scorch's Batch returns only when the
// batch's snapshot is persisted (root.bolt synced), as openBleve never sets
// unsafe_batch (scorch.prepareSegment waits on introduction.persisted).
func (w *batchWriter) flush() error {
	if err := w.failed(); err != nil {
		return err
	}
	if w.b.Size() == 0 && len(w.done) == 0 {
		return nil
	}
	// The sessions this batch rewrites must not be claimed indexed at their old
	// revisions should it land and the Sync stop before their new ones are
	// recorded.
	if err := w.revs.syncForgotten(); err != nil {
		return err
	}
	b, done := w.b, w.done
	w.b, w.done, w.weight = w.bl.NewBatch(), map[string]int64{}, 0
	w.slots <- struct{}{}
	if b.Size() == 0 {
		// Sessions with no documents left to write: their revisions wait only for
		// the batch before, which may hold the last of their documents, to be
		// written (the slot), and are not recorded if it failed.
		defer func() { <-w.slots }()
		if err := w.failed(); err != nil {
			return err
		}
		return w.revs.set(done)
	}
	// The batch before has been written (or failed) by now: never write this one
	// after a failure, or its revisions would claim sessions whose earlier
	// documents are missing.
	if err := w.failed(); err != nil {
		<-w.slots
		return err
	}
	go func() {
		defer func() { <-w.slots }()
		err := w.bl.Batch(b)
		if err == nil {
			err = w.revs.set(done)
		}
		if err != nil {
			w.mu.Lock()
			if w.err == nil {
				w.err = err
			}
			w.mu.Unlock()
		}
	}()
	return nil
}

// wait waits for the batch being written, if any, and returns the first write
// error.
func (w *batchWriter) wait() error {
	w.slots <- struct{}{}
	<-w.slots
	return w.failed()
}

func (w *batchWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// close writes the pending batch and waits for all of them.
func (w *batchWriter) close() error {
	if err := w.flush(); err != nil {
		_ = w.wait()
		return err
	}
	return w.wait()
}

// sessionRead queues a session's blocks, passed on by read (which returns the
// revision they were read at), deletes of its documents the archive no longer
// has, and its revision. The revision is queued after the last document, so it
// is recorded once the batch that completes the session is written. It returns
// the session's documents and that revision.
func (w *batchWriter) sessionRead(ctx context.Context, id string, read func(func(archive.Block) error) (int64, error)) (int, int64, error) {
	old, err := w.sessionDocIDs(ctx, id)
	if err != nil {
		return 0, 0, err
	}
	// Until the batch completing it is written, the session is half written if a
	// batch is flushed in between: make sure no revision claims otherwise, whatever
	// triggered this re-index. flush puts this on disk before the next batch.
	if err := w.revs.forget(id); err != nil {
		return 0, 0, err
	}
	seen := make(map[string]struct{}, len(old))
	rev, err := read(func(blk archive.Block) error {
		if _, dup := seen[blk.ID]; dup {
			return nil
		}
		seen[blk.ID] = struct{}{}
		d := newBlockDoc(blk)
		if err := w.b.IndexAdvanced(w.docs.document(blk.ID, d)); err != nil {
			return fmt.Errorf("block %s: %w", blk.ID, err)
		}
		w.weight += textWeight(d.Text)
		if w.b.Size() < w.maxDocs && w.weight < batchWeight {
			return nil
		}
		if err := w.flush(); err != nil {
			return err
		}
		return ctx.Err()
	})
	if err != nil {
		return 0, 0, err
	}
	for docID := range old {
		if _, ok := seen[docID]; !ok {
			w.b.Delete(docID)
		}
	}
	w.done[id] = rev
	if w.b.Size() >= w.maxDocs || w.weight >= batchWeight {
		return len(seen), rev, w.flush()
	}
	return len(seen), rev, nil
}

// pending reports whether documents, deletes or revisions are queued, not yet
// written.
func (w *batchWriter) pending() bool { return w.b.Size() > 0 || len(w.done) > 0 }

// drop queues the deletes of a session's documents and its revision.
func (w *batchWriter) drop(ctx context.Context, id string) error {
	old, err := w.sessionDocIDs(ctx, id)
	if err != nil {
		return err
	}
	if err := w.revs.forget(id); err != nil {
		return err
	}
	for docID := range old {
		w.b.Delete(docID)
	}
	if w.b.Size() >= w.maxDocs {
		return w.flush()
	}
	return nil
}

// sessionDocIDs returns the IDs of a session's documents in the index, without a
// search when the session was not listed in the index as the sync began.
func (w *batchWriter) sessionDocIDs(ctx context.Context, id string) (map[string]struct{}, error) {
	if _, ok := w.listed[id]; w.listed != nil && !ok {
		return map[string]struct{}{}, nil
	}
	return sessionDocIDs(ctx, w.bl, id)
}

// sessionDocIDs returns the IDs of a session's documents in the index.
func sessionDocIDs(ctx context.Context, bl bleve.Index, id string) (map[string]struct{}, error) {
	q := query.NewTermQuery(id)
	q.SetField(fieldSession)
	ids := map[string]struct{}{}
	var after []string
	for {
		req := bleve.NewSearchRequestOptions(q, 5000, 0, false)
		req.SortBy([]string{"_id"})
		req.Score = "none"
		if after != nil {
			req.SetSearchAfter(after)
		}
		res, err := bl.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			ids[h.ID] = struct{}{}
		}
		if len(res.Hits) < req.Size {
			return ids, nil
		}
		after = []string{res.Hits[len(res.Hits)-1].ID}
	}
}

// staleSessions returns the sessions of revs whose revision in the index differs
// from the archive's: those a Sync indexes again.
func staleSessions(indexed *revStore, revs map[string]int64) []string {
	var stale []string
	for id, rev := range revs {
		if !indexedAt(indexed, id, rev) {
			stale = append(stale, id)
		}
	}
	return stale
}

// indexedAt reports whether the index holds session id at revision rev.
func indexedAt(indexed *revStore, id string, rev int64) bool {
	have, ok := indexed.at(id)
	return ok && have == rev
}

// listedSessions returns every session the index's session field names: a
// superset of the sessions with documents, as a deleted document's terms stay
// until a merge.
func listedSessions(bl bleve.Index) (map[string]struct{}, error) {
	dict, err := bl.FieldDict(fieldSession)
	if err != nil {
		return nil, err
	}
	listed := map[string]struct{}{}
	for {
		e, err := dict.Next()
		if err != nil {
			_ = dict.Close()
			return nil, err
		}
		if e == nil {
			break
		}
		listed[e.Term] = struct{}{}
	}
	return listed, dict.Close()
}

// goneSessions returns the sessions that have documents in the index but are not
// in revs, of those listed (see listedSessions).
func goneSessions(ctx context.Context, bl bleve.Index, revs map[string]int64, listed map[string]struct{}) ([]string, error) {
	var candidates []string
	for id := range listed {
		if _, ok := revs[id]; !ok {
			candidates = append(candidates, id)
		}
	}
	sort.Strings(candidates)
	// The term dictionary still lists a session whose documents are deleted but not
	// yet merged away; only sessions with live documents are gone for real.
	var gone []string
	for _, id := range candidates {
		q := query.NewTermQuery(id)
		q.SetField(fieldSession)
		res, err := bl.SearchInContext(ctx, bleve.NewSearchRequestOptions(q, 0, 0, false))
		if err != nil {
			return nil, err
		}
		if res.Total > 0 {
			gone = append(gone, id)
		}
	}
	return gone, nil
}

// textWeight estimates the memory a text takes while Bleve indexes it, in units
// of about a sixth of a token: its length, plus one for each byte of a non-ASCII
// character. A CJK character (three bytes) makes about one bigram, as an ASCII
// word makes about one token per six bytes, parts of identifiers included.
func textWeight(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			n++
		}
	}
	return n
}
