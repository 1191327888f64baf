package index

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/upsidedown"
	"go.etcd.io/bbolt"
)

// ErrClosed is returned by methods called after Close.
var ErrClosed = errors.New("index: closed")

// versionKey is the internal key holding indexVersion.
var versionKey = []byte("logbook:version")

// metaFile is the file Bleve writes first into an index directory. Open only ever
// deletes a directory that has it (or is empty), never a directory it did not make.
const metaFile = "index_meta.json"

// Index is the full-text index of the archive's blocks. It is safe for concurrent
// use: searches run alongside a Sync; Sync and Reindex run one at a time.
type Index struct {
	dir       string
	log       *slog.Logger
	rebuilt   bool
	batchDocs int // documents per batch; see defaultBatchDocs

	writeMu sync.Mutex   // serialises Sync and Reindex
	mu      sync.RWMutex // guards bl: Reindex and Close swap it
	bl      bleve.Index

	caches segCaches // per-segment data of planned searches (plan.go)
	window int       // windowSize; tests make it small
}

// ErrInUse is returned by Open when another process has the index open (Bleve
// allows one process per index); the caller can go on without search.
var ErrInUse = errors.New("the search index is in use by another Logbook process")

// lockWait is how long Open waits for another process to let go of the index.
const lockWait = 2 * time.Second

// Open opens the index in dir, creating it if dir does not exist. An index written
// by another indexVersion, or in a format this Bleve cannot read, is deleted and
// recreated empty; Rebuilt then reports true and the caller should Sync.
func Open(dir string) (*Index, error) {
	ix := &Index{dir: dir, log: slog.Default().With("component", "index"), batchDocs: defaultBatchDocs, window: windowSize}
	bl, rebuilt, err := openBleve(dir, ix.log)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	ix.bl, ix.rebuilt = bl, rebuilt
	removeStaleTimes(dir)
	return ix, nil
}

// Rebuilt reports whether Open discarded an old or unreadable index, so the
// index starts empty and every session will be indexed again by the next Sync.
func (ix *Index) Rebuilt() bool { return ix.rebuilt }

// Close closes the index. It waits for a running Sync or Reindex to finish, so
// cancel their context first to stop them sooner. It is safe to call more than once.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.bl == nil {
		return nil
	}
	err := ix.bl.Close()
	ix.bl = nil
	return err
}

// openBleve opens or creates the Bleve index in dir.
func openBleve(dir string, log *slog.Logger) (bl bleve.Index, rebuilt bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(entries) == 0 {
		if err == nil {
			// Bleve creates the directory itself and refuses one that exists.
			if err := os.Remove(dir); err != nil {
				return nil, false, err
			}
		}
		bl, err := createBleve(dir)
		return bl, false, err
	}
	bl, err = bleve.OpenUsing(dir, map[string]interface{}{"bolt_timeout": lockWait.String()})
	if errors.Is(err, bbolt.ErrTimeout) {
		// Another process (a running window or `logbook serve`) has the index open.
		// Never treat that as damage: deleting it would wreck the other's index.
		return nil, false, ErrInUse
	}
	if err == nil {
		v, gerr := bl.GetInternal(versionKey)
		if gerr == nil && string(v) == strconv.Itoa(indexVersion) {
			return bl, false, nil
		}
		_ = bl.Close()
		if gerr != nil {
			err = gerr
		} else {
			err = fmt.Errorf("index version %q, want %d", v, indexVersion)
		}
	} else if !discardable(err) {
		return nil, false, err
	}
	if err := removeIndexDir(dir); err != nil {
		return nil, false, err
	}
	log.Warn("search index discarded; it will be rebuilt from the archive", "dir", dir, "reason", err)
	bl, err = createBleve(dir)
	return bl, true, err
}

// discardable reports whether an open error means the directory holds an index
// this build cannot use, rather than one it cannot reach right now.
func discardable(err error) bool {
	switch {
	case errors.Is(err, upsidedown.IncompatibleVersion), // the format of old Bleve releases
		errors.Is(err, bleve.ErrorIndexMetaMissing),
		errors.Is(err, bleve.ErrorIndexMetaCorrupt),
		errors.Is(err, bleve.ErrorUnknownIndexType):
		return true
	case errors.Is(err, fs.ErrPermission):
		return false
	}
	// Anything else (a segment truncated by a crash, say) is treated the same: the
	// index is derived data, and rebuilding it beats refusing to start.
	return true
}

// removeIndexDir deletes an index directory, refusing one that holds anything but
// a Bleve index, so a mistyped path never costs the user a folder.
func removeIndexDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(dir, metaFile)); err != nil {
			return fmt.Errorf("%s is not a search index (no %s); not deleting it", dir, metaFile)
		}
	}
	return os.RemoveAll(dir)
}

// createBleve creates a new, empty index in dir and records indexVersion.
func createBleve(dir string) (bleve.Index, error) {
	im, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	bl, err := bleve.New(dir, im)
	if err != nil {
		return nil, err
	}
	if err := bl.SetInternal(versionKey, []byte(strconv.Itoa(indexVersion))); err != nil {
		_ = bl.Close()
		return nil, err
	}
	return bl, nil
}

// reset replaces the index with an empty one. The caller holds writeMu.
func (ix *Index) reset() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.bl == nil {
		return ErrClosed
	}
	if err := ix.bl.Close(); err != nil {
		ix.log.Warn("close index before reset", "err", err)
	}
	ix.bl = nil
	ix.caches.reset()
	if err := removeIndexDir(ix.dir); err != nil {
		return err
	}
	bl, err := createBleve(ix.dir)
	if err != nil {
		return err
	}
	ix.bl = bl
	return nil
}
