package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/numeric"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// noTime is the time of a block indexed without one. It sorts below every real
// time, so such blocks come last in "recent" order, as Bleve's sort puts them.
const noTime = math.MinInt64

// segCache holds what the planned search (plan.go) reads from one immutable
// segment, computed once per segment and kept while the segment lives:
//
//   - the time of every document and the documents in time order, for time
//     filters, "recent" order and the windows of newest matches a large result
//     set is ranked in;
//   - the values of the facet fields (facetcache.go), for counting facets
//     without visiting Bleve's doc values.
//
// Everything covers the whole segment including deleted documents; a result
// bitmap never holds deleted documents, so intersecting with it excludes them.
type segCache struct {
	seg      segment.Segment
	readOnly bool // see segCaches.readOnly

	timesOnce sync.Once
	times     []int64  // by local document number; noTime when it has none
	order     []uint32 // local document numbers, newest first (ties: lower number first)
	timesErr  error

	facetMu sync.Mutex
	facets  map[string]*facetField // see facetcache.go
}

var errNoTimesFile = errors.New("index: no valid time file")

// segCaches maps live segments to their caches. Entries of segments that left
// the index are dropped when a snapshot is planned (see prune).
type segCaches struct {
	mu       sync.Mutex
	m        map[segment.Segment]*segCache
	readOnly bool // the index was opened read-only: time files are read, never written
}

func (c *segCaches) get(seg segment.Segment) *segCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[segment.Segment]*segCache)
	}
	sc := c.m[seg]
	if sc == nil {
		sc = &segCache{seg: seg, readOnly: c.readOnly}
		c.m[seg] = sc
	}
	return sc
}

// reset drops every cache: the index they describe is gone.
func (c *segCaches) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// prune drops the caches of segments not in live once the map has grown past
// twice their number: merges replace segments, and a search on an older
// snapshot may still be using the ones it replaced, so they go lazily.
func (c *segCaches) prune(live []segment.Segment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) <= 2*len(live)+4 {
		return
	}
	keep := make(map[segment.Segment]bool, len(live))
	for _, s := range live {
		keep[s] = true
	}
	for s := range c.m {
		if !keep[s] {
			delete(c.m, s)
		}
	}
}

// loadTimes fills times and order: from the segment's time file when
// it has a valid one, else from the time field's doc values (about a
// microsecond per document), writing the time file for the next process.
func (sc *segCache) loadTimes() error {
	sc.timesOnce.Do(func() {
		path := timesFilePath(sc.seg)
		times, order, err := readTimesFile(path, sc.seg)
		if err != nil {
			if times, order, err = sc.timesFromDocValues(); err != nil {
				sc.timesErr = err
				return
			}
			if path != "" && !sc.readOnly {
				// A cache: a write that fails costs the next process a reload.
				_ = writeTimesFile(path, sc.seg, times, order)
			}
		}
		sc.times, sc.order = times, order
	})
	return sc.timesErr
}

func (sc *segCache) timesFromDocValues() ([]int64, []uint32, error) {
	dv, ok := sc.seg.(segment.DocValueVisitable)
	if !ok {
		return nil, nil, errNoDocValues
	}
	n := sc.seg.Count()
	times := make([]int64, n)
	fields := []string{fieldTime}
	var state segment.DocVisitState
	var err error
	for d := range n {
		t := int64(noTime)
		state, err = dv.VisitDocValues(d, fields, func(_ string, term []byte) {
			// Shift 0 is the value: the one term timeField indexes, beside a
			// term per precision step in blocks indexed before it.
			pc := numeric.PrefixCoded(term)
			if shift, err := pc.Shift(); err == nil && shift == 0 {
				if v, err := pc.Int64(); err == nil {
					t = v
				}
			}
		}, state)
		if err != nil {
			return nil, nil, err
		}
		times[d] = t
	}
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		switch ta, tb := times[a], times[b]; {
		case ta > tb:
			return -1
		case ta < tb:
			return 1
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
	return times, order, nil
}

// Time files. Reading a segment's times from its doc values costs about a
// second per million documents, too much for every `logbook search`, so the
// times of a segment persisted on disk are written beside it, in
// <segment>.times: a header (the magic, the segment file's size and modification time
// — a segment file is never rewritten in place, so these tell a stale time
// file — and the document count), every time, the newest-first order, and a CRC-32 of all
// that. Scorch only manages its .zap files; Index.Open removes time files whose
// segment is gone (removeStaleTimes).
const timesMagic = "LBT1"

// timesHead is the header's size: the magic, 4 bytes of padding (so the
// times that follow are 8-byte aligned), the size, the time and the count.
const timesHead = 32

// timesFilePath returns the time file of a segment persisted on disk, or ""
// for a segment only in memory.
func timesFilePath(seg segment.Segment) string {
	p, ok := seg.(interface{ Path() string })
	if !ok || p.Path() == "" {
		return ""
	}
	return strings.TrimSuffix(p.Path(), ".zap") + ".times"
}

func segmentFileStamp(seg segment.Segment) (size, mtime int64, err error) {
	fi, err := os.Stat(seg.(interface{ Path() string }).Path())
	if err != nil {
		return 0, 0, err
	}
	return fi.Size(), fi.ModTime().UnixNano(), nil
}

func readTimesFile(path string, seg segment.Segment) ([]int64, []uint32, error) {
	if path == "" {
		return nil, nil, errNoTimesFile
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	n := seg.Count()
	if uint64(len(data)) != timesHead+12*n+4 || string(data[:4]) != timesMagic {
		return nil, nil, errNoTimesFile
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	size, mtime, err := segmentFileStamp(seg)
	if err != nil {
		return nil, nil, err
	}
	le := binary.LittleEndian
	if crc32.ChecksumIEEE(body) != sum || int64(le.Uint64(data[8:])) != size ||
		int64(le.Uint64(data[16:])) != mtime || le.Uint64(data[24:]) != n {
		return nil, nil, errNoTimesFile
	}
	times, order := decodeTimes(data[timesHead:len(data)-4], n)
	for _, d := range order {
		if uint64(d) >= n {
			return nil, nil, errNoTimesFile
		}
	}
	return times, order, nil
}

// decodeTimes reads n little-endian times then n orders from b. On a
// little-endian machine, with b aligned as os.ReadFile's large buffers are,
// the slices share b's memory instead of being copied: a million documents'
// times are read in the time it takes to read the file.
func decodeTimes(b []byte, n uint64) ([]int64, []uint32) {
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0 {
		times := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(b))), n)
		order := unsafe.Slice((*uint32)(unsafe.Pointer(&b[8*n])), n)
		return times, order
	}
	times := make([]int64, n)
	order := make([]uint32, n)
	le := binary.LittleEndian
	for i := range times {
		times[i] = int64(le.Uint64(b[8*i:]))
	}
	for i := range order {
		order[i] = le.Uint32(b[8*int(n)+4*i:])
	}
	return times, order
}

// littleEndian reports whether this machine stores integers little-endian,
// as time files do.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func writeTimesFile(path string, seg segment.Segment, times []int64, order []uint32) error {
	size, mtime, err := segmentFileStamp(seg)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	buf := make([]byte, 0, timesHead+12*len(times)+4)
	buf = append(buf, timesMagic...)
	buf = append(buf, 0, 0, 0, 0)
	buf = le.AppendUint64(buf, uint64(size))
	buf = le.AppendUint64(buf, uint64(mtime))
	buf = le.AppendUint64(buf, uint64(len(times)))
	for _, t := range times {
		buf = le.AppendUint64(buf, uint64(t))
	}
	for _, d := range order {
		buf = le.AppendUint32(buf, d)
	}
	buf = le.AppendUint32(buf, crc32.ChecksumIEEE(buf))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// removeStaleTimes deletes the time files (and leftover temporary ones) of
// segments no longer in the index directory dir.
func removeStaleTimes(dir string) {
	store := filepath.Join(dir, "store")
	entries, err := os.ReadDir(store)
	if err != nil {
		return
	}
	zaps := map[string]bool{}
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".zap"); ok {
			zaps[name] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".times.tmp") || strings.HasSuffix(name, ".times") && !zaps[strings.TrimSuffix(name, ".times")] {
			_ = os.Remove(filepath.Join(store, name))
		}
	}
}

// postingsBitmap returns the documents of term in a segment's dictionary, less
// deleted ones when deleted is not nil. The postings are read in place from the
// segment's memory-mapped file, and Or shares their containers: they are copied,
// so the bitmap stays valid once the segment is closed (a merge replaced it
// while a search ran).
func postingsBitmap(d segment.TermDictionary, term string, deleted *roaring.Bitmap) (*roaring.Bitmap, error) {
	bm, err := postingsInPlace(d, term, deleted)
	if err == nil {
		bm.CloneCopyOnWriteContainers()
	}
	return bm, err
}

// postingsInPlace is postingsBitmap without the copy: valid only while the
// caller holds a snapshot that holds the segment.
func postingsInPlace(d segment.TermDictionary, term string, deleted *roaring.Bitmap) (*roaring.Bitmap, error) {
	pl, err := d.PostingsList([]byte(term), deleted, nil)
	if err != nil {
		return nil, err
	}
	bm := roaring.New()
	if pl == nil || pl.Count() == 0 {
		return bm, nil
	}
	if o, ok := pl.(interface{ OrInto(*roaring.Bitmap) }); ok {
		o.OrInto(bm)
	} else {
		it := pl.Iterator(false, false, false, nil)
		for p, err := it.Next(); p != nil || err != nil; p, err = it.Next() {
			if err != nil {
				return nil, err
			}
			bm.Add(uint32(p.Number()))
		}
	}
	if deleted != nil {
		bm.AndNot(deleted)
	}
	return bm, nil
}
