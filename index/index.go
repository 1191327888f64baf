package index

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// ErrClosed is returned by methods called after Close.
var ErrClosed = errors.New("index: closed")

// versionKey is the internal key holding indexVersion.
var versionKey = []byte("logbook:version")

// metaFile is the file Bleve writes first into an index directory. Open only ever
// replaces a directory that has it or holds nothing but what Bleve and Open make
// (see inspectDir), never a directory it did not make.
const metaFile = "index_meta.json"

// Index is the full-text index of the archive's blocks. It is safe for concurrent
// use: searches run alongside a Sync; Sync and Reindex run one at a time.
type Index struct {
	dir       string
	log       *slog.Logger
	rebuilt   bool
	batchDocs int // documents per batch; see defaultBatchDocs

	readOnly bool          // opened with Options.ReadOnly: nothing is written in dir
	wait     time.Duration // how long an open waits for Bleve's lock (Reindex reopens)
	holder   Holder        // this process's record in dir, while it writes there
	unlock   func()        // releases the index lock; nil when read-only or closed
	tempRoot string        // OpenTemp's directory, removed by Close

	writeMu   sync.Mutex     // serialises Sync and Reindex
	mu        sync.RWMutex   // guards bl: Reindex, Close and a reopen swap it
	bl        bleve.Index    // a *guarded Bleve index
	revs      *revStore      // the revisions bl's sessions were indexed at; replaced with bl
	reopening sync.WaitGroup // a reopen after a full disk (reopenLater)

	caches segCaches // per-segment data of planned searches (plan.go)
	window int       // windowSize; tests make it small

	active                   activity      // when bl was last written or searched (pages.go)
	releaseStop, releaseDone chan struct{} // the page releaser's stop and end (pages.go)
	releaseAbove             int64         // resident file bytes over which it releases (releaseAboveOpen)
}

// ErrInUse is returned by Open when another process has the index open (Bleve
// allows one process per index); the caller can go on without search. The error
// is an *InUseError, which names the holder when it recorded itself.
var ErrInUse = errors.New("the search index is in use by another Logbook process")

// lockWait is how long Open waits for another process to let go of the index.
const lockWait = 2 * time.Second

// Options say how OpenWith opens an index.
type Options struct {
	// Holder is what this process records of itself in the index directory while
	// it has the index open for writing, so another process finding the index
	// busy can name it (InUseError). Open fills in PID and Since.
	Holder Holder
	// ReadOnly opens the index without writing anything in its directory: no lock
	// file, no holder record, no cached time files, no merges, no repairs. A Sync
	// that would change the index then fails with ErrReadOnly, as Reindex does. An
	// index that is missing or needs a repair is an error; see OpenTemp.
	ReadOnly bool
	// Wait is how long Open waits for another process to let go of the index:
	// 0 means 2 seconds, and a negative Wait does not wait.
	Wait time.Duration
	// Fresh discards the index in the directory, without trying to open it, and
	// starts an empty one: a rebuild that cannot trip on whatever state it finds.
	// A directory that is not an index is still refused.
	Fresh bool
}

// Open opens the index in dir for writing, creating it if dir does not exist. An
// index written by another indexVersion, or one it cannot read (a half-made
// index, a missing or garbled index_meta.json, a broken store), is replaced by an
// empty one; Rebuilt then reports true and the caller should Sync. An index that
// another process has open is never replaced: Open returns an *InUseError.
func Open(dir string) (*Index, error) { return OpenWith(dir, Options{}) }

// OpenWith opens the index in dir as o says; see Open and Options.
func OpenWith(dir string, o Options) (*Index, error) {
	ix := &Index{dir: dir, log: slog.Default().With("component", "index"), batchDocs: defaultBatchDocs,
		window: windowSize, readOnly: o.ReadOnly, wait: o.Wait}
	if n, ok := residentFileBytes(); ok {
		ix.releaseAbove = n + releaseAboveOpen
	}
	switch {
	case ix.wait == 0:
		ix.wait = lockWait
	case ix.wait < 0:
		ix.wait = 0
	}
	if o.ReadOnly {
		bl, err := openReadOnly(dir, ix.wait)
		if errors.Is(err, errBoltLocked) {
			err = &InUseError{Holder: readHolder(dir)}
		}
		if err != nil {
			return nil, fmt.Errorf("open index %s read-only: %w", dir, err)
		}
		ix.bl, ix.revs = ix.guard(bl), loadRevs(dir)
		ix.caches.readOnly = true
		ix.startPageReleaser()
		return ix, nil
	}
	if err := ix.openWriter(o); err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, noSpace(err))
	}
	ix.startPageReleaser()
	return ix, nil
}

// openWriter takes the index lock, opens or makes the index and records the
// holder.
func (ix *Index) openWriter(o Options) error {
	if err := os.MkdirAll(filepath.Dir(ix.dir), 0o755); err != nil {
		return err
	}
	unlock, err := lockIndex(ix.dir+".lock", ix.wait)
	if errors.Is(err, errLocked) {
		return &InUseError{Holder: readHolder(ix.dir)}
	}
	if err != nil {
		return err
	}
	removeLeftovers(ix.dir, ix.log)
	bl, rebuilt, err := openWriter(ix.dir, o.Fresh, ix.wait, ix.log)
	if errors.Is(err, errBoltLocked) {
		// The lock file is free but Bleve's lock is not: a read-only reader, or a
		// Logbook from before the lock file.
		err = &InUseError{Holder: readHolder(ix.dir)}
	}
	if err != nil {
		unlock()
		return err
	}
	revs, err := openRevs(ix.dir)
	if err != nil {
		_ = bl.Close()
		unlock()
		return err
	}
	ix.bl, ix.revs, ix.rebuilt, ix.unlock = ix.guard(bl), revs, rebuilt, unlock
	ix.holder = o.Holder
	ix.holder.PID, ix.holder.Since, ix.holder.Gone = os.Getpid(), time.Now().UTC(), false
	ix.recordHolder()
	removeStaleTimes(ix.dir)
	return nil
}

// recordHolder writes this process's holder record. Failing costs only a vaguer
// message to a process that finds the index busy.
func (ix *Index) recordHolder() {
	if err := writeHolder(ix.dir, ix.holder); err != nil {
		ix.log.Warn("record the holder of the search index", "dir", ix.dir, "err", err)
	}
}

// Rebuilt reports whether Open discarded an old or unreadable index, so the
// index starts empty and every session will be indexed again by the next Sync.
func (ix *Index) Rebuilt() bool { return ix.rebuilt }

// Close closes the index. It waits for a running Sync or Reindex to finish, so
// cancel their context first to stop them sooner. It is safe to call more than once.
func (ix *Index) Close() error {
	ix.stopPageReleaser()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var err error
	if ix.bl != nil {
		err = ix.bl.Close()
		ix.bl = nil
	}
	if ix.revs != nil {
		if rerr := ix.revs.close(); rerr != nil && err == nil {
			err = rerr
		}
		ix.revs = nil
	}
	if ix.unlock != nil {
		if rerr := removeHolder(ix.dir); rerr != nil {
			ix.log.Warn("remove the holder record of the search index", "dir", ix.dir, "err", rerr)
		}
		ix.unlock()
		ix.unlock = nil
	}
	if ix.tempRoot != "" {
		if rerr := os.RemoveAll(ix.tempRoot); rerr != nil && err == nil {
			err = fmt.Errorf("remove temporary index: %w", rerr)
		}
		ix.tempRoot = ""
	}
	return err
}

// reset replaces the index with an empty one. The caller holds writeMu. The new
// index is built beside the old one while the old one stays open, so a failure
// (a full disk) leaves the old index in place and in use.
func (ix *Index) reset() error {
	if ix.readOnly {
		return ErrReadOnly
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.bl == nil {
		return ErrClosed
	}
	tmp, err := buildEmpty(ix.dir)
	if err != nil {
		return noSpace(err)
	}
	if err := ix.bl.Close(); err != nil {
		ix.log.Warn("close index before reset", "err", err)
	}
	ix.bl = nil
	ix.caches.reset()
	if err := swapIn(tmp, ix.dir); err != nil {
		_ = os.RemoveAll(tmp)
		// Carry on with the old index if it is still there.
		if bl, oerr := openBleve(ix.dir, false, ix.wait); oerr == nil {
			ix.bl = ix.guard(bl)
		}
		return noSpace(err)
	}
	// The new directory has no revisions log: the old one went with the old index.
	_ = ix.revs.close()
	revs, err := openRevs(ix.dir)
	if err != nil {
		return noSpace(err)
	}
	bl, err := openBleve(ix.dir, false, ix.wait)
	if err != nil {
		_ = revs.close()
		return noSpace(err)
	}
	ix.bl, ix.revs = ix.guard(bl), revs
	ix.recordHolder()
	return nil
}

// guard wraps a newly opened Bleve index for ix.bl.
func (ix *Index) guard(bl bleve.Index) *guarded {
	g := &guarded{bl: bl, readOnly: ix.readOnly, active: &ix.active}
	g.onPoison = func() { ix.reopenLater(g) }
	return g
}

// reopenLater reopens the index from disk once the Sync whose write failed on a
// full disk (holding mu to read) and the searches under way are done: Bleve's
// state in memory is unreliable after that, the state on disk is the last
// complete batch. Until then every call fails with errReopening.
func (ix *Index) reopenLater(g *guarded) {
	ix.reopening.Add(1)
	go func() {
		defer ix.reopening.Done()
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if ix.bl != g {
			return // closed or replaced meanwhile
		}
		if err := g.bl.Close(); err != nil {
			ix.log.Warn("close the search index after the disk filled up", "err", err)
		}
		ix.caches.reset()
		bl, err := openBleve(ix.dir, false, ix.wait)
		if err != nil {
			ix.log.Error("reopen the search index after the disk filled up", "dir", ix.dir, "err", err)
			return // g stays poisoned: every call says so
		}
		ix.bl = ix.guard(bl)
		ix.log.Warn("the disk filled up; the search index was reopened as its last complete write left it", "dir", ix.dir)
	}()
}
