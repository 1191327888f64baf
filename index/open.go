package index

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/upsidedown"
	"github.com/blevesearch/bleve/v2/mapping"
	"go.etcd.io/bbolt"
)

// How an index directory is laid out, and the names Open gives the directories
// beside it. Anything else in an index directory that has no metaFile makes it
// someone else's, which Open never deletes.
const (
	storeDir  = "store"     // Bleve's scorch store: root.bolt and the .zap segments
	rootBolt  = "root.bolt" // in storeDir
	metaTemp  = metaFile + "_temp"
	newSuffix = ".new-" // DIR.new-PID-RANDOM: an index being built, swapped in when complete
	oldSuffix = ".old-" // DIR.old-PID-NANOS: the index a swap replaced, deleted right after
	lockPoll  = 25 * time.Millisecond
)

// ourNames are the entries Bleve or Open put in an index directory.
var ourNames = map[string]bool{metaFile: true, metaTemp: true, storeDir: true, holderFile: true, holderFile + ".tmp": true,
	revsFile: true, revsTemp: true}

// errLocked is returned by lockIndex when another process holds the lock.
var errLocked = errors.New("index lock held by another process")

// errBoltLocked is returned by the open helpers when Bleve's own lock on
// root.bolt is held: a read-only reader, or a Logbook from before the lock file.
var errBoltLocked = errors.New("root.bolt is locked by another process")

// openWriter opens the index in dir for writing, or makes a new one. The caller
// holds the index lock, so no other writer is at work on dir: whatever Open finds
// there that it cannot use (a half-made index, a missing or garbled
// index_meta.json, a broken store, another indexVersion) is the remains of a
// failure and is replaced, unless the directory is not an index at all.
func openWriter(dir string, fresh bool, wait time.Duration, log *slog.Logger) (bl bleve.Index, rebuilt bool, err error) {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		bl, err := createIndex(dir, wait)
		return bl, false, err
	case err != nil:
		return nil, false, err
	case !fi.IsDir():
		// Neither Bleve nor Open ever makes a file here, so it may be the user's:
		// keep it, out of the way, and build the index where it belongs.
		aside := dir + ".moved-aside-" + time.Now().Format("20060102-150405")
		if err := os.Rename(dir, aside); err != nil {
			return nil, false, fmt.Errorf("%s is a file, not a search index, and cannot be moved aside: %w", dir, err)
		}
		log.Warn("a file stood where the search index belongs; moved it aside, rebuilding the index", "dir", dir, "moved_to", aside)
		bl, err := createIndex(dir, wait)
		return bl, true, err
	}
	empty, err := inspectDir(dir)
	if err != nil {
		return nil, false, err
	}
	if empty {
		bl, err := createIndex(dir, wait)
		return bl, false, err
	}
	if fresh {
		if err := boltFree(dir, wait); err != nil {
			return nil, false, err
		}
		log.Info("search index discarded to be rebuilt", "dir", dir)
		bl, err := createIndex(dir, wait)
		return bl, true, err
	}
	bl, err = openBleve(dir, false, wait)
	switch {
	case err == nil:
		return bl, false, nil
	case errors.Is(err, errBoltLocked), !discardable(err):
		return nil, false, err
	}
	// Bleve may have failed before it tried its lock (a missing index_meta.json).
	if err := boltFree(dir, wait); err != nil {
		return nil, false, err
	}
	log.Warn("search index discarded; it will be rebuilt from the archive", "dir", dir, "reason", err)
	bl, err = createIndex(dir, wait)
	return bl, true, err
}

// openReadOnly opens the index in dir without writing anything there: no lock
// file, no holder record, no merges, and none of the repairs Bleve makes on open.
// It fails on anything openWriter would repair, for the caller to fall back on a
// temporary index (OpenTemp).
func openReadOnly(dir string, wait time.Duration) (bleve.Index, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ErrNoIndex
	case err != nil:
		return nil, err
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is a file, not a search index", dir)
	}
	// Bleve settles an interrupted metadata update by renaming this file over
	// index_meta.json: a write only a writer may make.
	if _, err := os.Lstat(filepath.Join(dir, metaTemp)); err == nil {
		return nil, fmt.Errorf("an unfinished update (%s) only a writer can settle", metaTemp)
	}
	// Bolt creates a missing root.bolt even when asked to open it read-only.
	if fi, err := os.Stat(filepath.Join(dir, storeDir, rootBolt)); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("no %s in %s: not a complete index", rootBolt, filepath.Join(dir, storeDir))
	}
	return openBleve(dir, true, wait)
}

// maxSegmentDocs caps the blocks of a segment that merges make: Bleve's merge
// holds each term's postings, locations included, in memory while it writes
// them, so the largest a term's postings can get bounds the memory a merge
// takes. A block keeps at most maxTermLocations locations of a term, so no
// merge holds more than maxSegmentDocs × maxTermLocations of them, about 17 MB
// (100,000 blocks each repeating one word 255 times made a merge take 640 MB).
// At this size an archive of a million blocks searches about 50 segments, and
// each block is merged about twice rather than three or four times. Half of it
// (10,000) searched 200,000 blocks 10–50% slower at the median.
const maxSegmentDocs = 20000

// openBleve opens the Bleve index in dir, read-only or for writing, and checks
// that it is whole and was written by this indexVersion. It reports a panic
// inside Bleve (a segment mangled in a way it does not check for) as an error,
// like any other damage.
func openBleve(dir string, readOnly bool, wait time.Duration) (bl bleve.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			bl, err = nil, fmt.Errorf("bleve panicked opening the index: %v", r)
		}
	}()
	// Bolt's timeout 0 means waiting for ever.
	wait = max(wait, time.Nanosecond)
	want, err := newestSegments(dir, wait)
	if err != nil {
		return nil, err
	}
	config := map[string]interface{}{
		"bolt_timeout":           wait.String(),
		"scorchMergePlanOptions": map[string]interface{}{"MaxSegmentSize": maxSegmentDocs, "FloorSegmentSize": bulkFloorDocs},
		"eventCallbackName":      holdMergesCallback,
	}
	if readOnly {
		config["read_only"] = true
	}
	bl, err = bleve.OpenUsing(dir, config)
	if errors.Is(err, bbolt.ErrTimeout) {
		// Another process has the index open. Never treat that as damage:
		// deleting it would wreck the other's index.
		return nil, errBoltLocked
	}
	if err != nil {
		return nil, err
	}
	if bleveOpened != nil {
		bleveOpened(bl)
	}
	if err = checkOpened(bl, want); err != nil {
		_ = bl.Close() // which releases the merges
		return nil, err
	}
	releaseMerges(bl)
	return bl, nil
}

// bleveOpened, when a test sets it, is called between Bleve's open and
// checkOpened, to let Bleve's merger run there.
var bleveOpened func(bleve.Index)

// holdMergesCallback names holdMerges among scorch's event callbacks; openBleve
// opens every index with it.
const holdMergesCallback = "logbook-hold-merges-until-checked"

func init() { scorch.RegistryEventCallbacks[holdMergesCallback] = holdMerges }

// mergeHolds maps each open *scorch.Scorch to its *mergeHold.
var mergeHolds sync.Map

// mergeHold keeps an index's merger waiting until released is closed.
type mergeHold struct {
	once     sync.Once
	released chan struct{}
}

// holdOf returns the hold on the merger of s, making it (holding) if need be.
func holdOf(s *scorch.Scorch) *mergeHold {
	if h, ok := mergeHolds.Load(s); ok {
		return h.(*mergeHold)
	}
	h, _ := mergeHolds.LoadOrStore(s, &mergeHold{released: make(chan struct{})})
	return h.(*mergeHold)
}

func (h *mergeHold) release() { h.once.Do(func() { close(h.released) }) }

// holdMerges keeps an index's merger from starting a merge until openBleve has
// checked which snapshot Bleve loaded (releaseMerges). Scorch starts its merger
// as it opens, and with two small segments or more the merger merges at once:
// the loaded snapshot is replaced by one of a new segment, at times before
// checkOpened looks, and the check took the merge for damage and discarded the
// index (15 of 1,200 runs of TestRevisionsCrashBeforeRecord under load). Nothing
// else changes the loaded snapshot before openBleve returns: the persister swaps
// in only segments it wrote from memory, and nothing is in memory before a batch.
func holdMerges(e scorch.Event) bool {
	switch e.Kind {
	case scorch.EventKindPreMergeCheck:
		<-holdOf(e.Scorch).released
	case scorch.EventKindCloseStart:
		// Close waits for the merger: never keep it waiting here.
		holdOf(e.Scorch).release()
	case scorch.EventKindClose:
		mergeHolds.Delete(e.Scorch)
	}
	return true // the default: every merge and clean-up goes ahead
}

// releaseMerges lets the merger of bl, opened by openBleve, merge.
func releaseMerges(bl bleve.Index) {
	adv, err := bl.Advanced()
	if s, ok := adv.(*scorch.Scorch); err == nil && ok {
		holdOf(s).release()
	}
}

// checkOpened checks that Bleve loaded the newest snapshot of the index, made of
// the segments want, and that it is of this indexVersion. Bleve's merger must be
// held (holdMerges) until it returns: a merge replaces the loaded snapshot.
func checkOpened(bl bleve.Index, want []string) error {
	got, err := loadedSegments(bl)
	if err != nil {
		return err
	}
	slices.Sort(want)
	slices.Sort(got)
	if want != nil && !slices.Equal(got, want) {
		// Bleve skips a snapshot whose segments it cannot open (a crash cut one
		// short, or it was deleted) and loads an older one, logging only. The
		// older one is not what the index's revisions describe: treat it as damage.
		return fmt.Errorf("the newest snapshot did not load (it has segments %v, Bleve loaded %v)", want, got)
	}
	v, err := bl.GetInternal(versionKey)
	if err == nil && string(v) != strconv.Itoa(indexVersion) {
		err = fmt.Errorf("index version %q, want %d", v, indexVersion)
	}
	return err
}

// newestSegments returns the segment files of the newest snapshot recorded in
// the index's root.bolt, the one Bleve should load, or nil when root.bolt cannot
// be read (Bleve then reports why). It only reads root.bolt.
func newestSegments(dir string, wait time.Duration) ([]string, error) {
	db, err := bbolt.Open(filepath.Join(dir, storeDir, rootBolt), 0, &bbolt.Options{
		ReadOnly: true, Timeout: wait,
		// Bolt asks for O_CREATE even read-only: a missing root.bolt stays missing.
		OpenFile: func(p string, _ int, mode os.FileMode) (*os.File, error) { return os.OpenFile(p, os.O_RDONLY, mode) },
	})
	if errors.Is(err, bbolt.ErrTimeout) {
		return nil, errBoltLocked
	}
	if err != nil {
		return nil, nil
	}
	defer db.Close()
	var names []string
	_ = db.View(func(tx *bbolt.Tx) error {
		snapshots := tx.Bucket(scorchSnapshots)
		if snapshots == nil {
			return nil
		}
		k, _ := snapshots.Cursor().Last()
		snap := snapshots.Bucket(k)
		if snap == nil {
			return nil
		}
		names = []string{}
		return snap.ForEachBucket(func(k []byte) error {
			if p := snap.Bucket(k).Get(scorchSegmentPath); p != nil {
				names = append(names, filepath.Base(string(p)))
			}
			return nil
		})
	})
	return names, nil
}

// Scorch's keys in root.bolt: the bucket of snapshots, and in a segment's
// bucket, its file.
var scorchSnapshots, scorchSegmentPath = []byte{'s'}, []byte{'p'}

// loadedSegments returns the segment files of the snapshot Bleve loaded.
func loadedSegments(bl bleve.Index) ([]string, error) {
	adv, err := bl.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("not a scorch index (%T)", r)
	}
	names := []string{}
	for _, ss := range snap.Segments() {
		if p, ok := ss.Segment().(interface{ Path() string }); ok && p.Path() != "" {
			names = append(names, filepath.Base(p.Path()))
		}
	}
	return names, nil
}

// inspectDir reports whether the index directory dir holds no index (nothing,
// or only a holder record), and fails on a directory that is not an index: one
// with entries Bleve and Open never make and no index_meta.json, so a mistyped
// path never costs the user a folder.
func inspectDir(dir string) (empty bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	empty = true
	meta, foreign := false, ""
	for _, e := range entries {
		switch name := e.Name(); {
		case name == metaFile:
			meta = true
		case !ourNames[name]:
			foreign = name
		}
		if n := e.Name(); n != holderFile && n != holderFile+".tmp" {
			empty = false
		}
	}
	if foreign != "" && !meta {
		return false, fmt.Errorf("%s is not a search index (it holds %s and no %s); not deleting it", dir, foreign, metaFile)
	}
	return empty, nil
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
	case errors.Is(err, fs.ErrPermission), transient(err):
		return false
	}
	// Anything else (a segment truncated by a crash, a store that is a file, a
	// root.bolt that is not a database) is damage: the index is derived data, and
	// rebuilding it beats refusing to start.
	return true
}

// transient reports whether err is a fault of the machine that will pass (a full
// disk, too many open files, no memory), which says nothing about the index on
// disk: discarding it would lose a good index for nothing.
func transient(err error) bool {
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EINTR, syscall.EAGAIN} {
		if hasErrno(err, e) {
			return true
		}
	}
	return false
}

// createIndex makes a new, empty index at dir, replacing whatever is there: it is
// built in a directory beside dir and renamed into place only when complete and on
// disk, so a failure half way (a full disk, a crash) leaves dir as it was and never
// a half-made index in its place.
func createIndex(dir string, wait time.Duration) (bleve.Index, error) {
	tmp, err := buildEmpty(dir)
	if err != nil {
		return nil, err
	}
	if err := swapIn(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	return openBleve(dir, false, wait)
}

// buildEmpty builds a new, empty index (recording indexVersion) in a temporary
// directory beside dir, flushed to disk, and returns its path.
func buildEmpty(dir string) (string, error) {
	im, err := newMapping()
	if err != nil {
		return "", fmt.Errorf("mapping: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+newSuffix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", err
	}
	if err := fillEmpty(tmp, im); err != nil {
		_ = os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// fillEmpty creates an empty index in the empty directory tmp and flushes it to
// disk.
func fillEmpty(tmp string, im mapping.IndexMapping) error {
	bl, err := bleve.New(tmp, im)
	if err != nil {
		return err
	}
	if err := bl.SetInternal(versionKey, []byte(strconv.Itoa(indexVersion))); err != nil {
		_ = bl.Close()
		return err
	}
	if err := bl.Close(); err != nil {
		return err
	}
	// Bleve writes index_meta.json 0644; every file of the archive is its owner's
	// alone (the index holds the sessions' text).
	if err := os.Chmod(filepath.Join(tmp, "index_meta.json"), 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// Bleve writes index_meta.json without syncing it: after a power cut the
	// renamed directory could hold an empty one.
	return syncTree(tmp)
}

// swapIn renames the complete index tmp to dir, replacing what dir holds, and
// syncs the parent directory so the rename survives a crash. The old directory
// is renamed out of the way first and deleted once the new one is in place.
func swapIn(tmp, dir string) error {
	var old string
	if _, err := os.Lstat(dir); err == nil {
		old = dir + oldSuffix + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 10)
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return err
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// removeLeftovers deletes what earlier swaps left beside dir when they were cut
// short: indexes being built and indexes being replaced. With the index lock held
// (exclusiveLock) no other process is at work, so every one is a leftover;
// without it, only those of processes that are gone.
func removeLeftovers(dir string, log *slog.Logger) {
	for _, suffix := range []string{newSuffix, oldSuffix} {
		matches, _ := filepath.Glob(dir + suffix + "*")
		for _, m := range matches {
			pidText, _, _ := strings.Cut(strings.TrimPrefix(m, dir+suffix), "-")
			pid, err := strconv.Atoi(pidText)
			if err != nil {
				continue // not a name Open gives
			}
			if !exclusiveLock && (pid == os.Getpid() || pidAlive(pid)) {
				continue
			}
			if fi, err := os.Lstat(m); err != nil || !fi.IsDir() {
				continue
			}
			if _, err := inspectDir(m); err != nil {
				continue // not an index after all
			}
			if err := os.RemoveAll(m); err != nil {
				log.Warn("remove a leftover of an interrupted index build", "dir", m, "err", err)
			}
		}
	}
}

// syncTree flushes every file and directory of the index in dir to disk.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return syncDir(p)
		}
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// syncDir flushes a directory's entries (a rename into it) to disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some systems (Windows) cannot sync a directory; the rename itself is done.
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}
