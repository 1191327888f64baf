package index

import (
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// Bleve maps every segment file of the index into memory. The pages a merge or
// a search reads stay mapped, and count towards the process's resident memory,
// until the segment is closed: a large import's merges read hundreds of
// megabytes that way, and a long-running window's searches touch the whole
// index in time. Those pages are the kernel's page cache, shared and clean, but
// they made a 1 GB import peak well over its 300 MB budget. The page releaser
// hands them back (releasePages: MADV_DONTNEED on Linux, which drops the
// mappings' page-table entries and leaves the page cache alone) every
// pageReleaseEvery while the index is busy; the next read of a released page
// maps it again from the page cache.

// pageReleaseEvery is how often mapped segment pages are released while the
// index is busy. The merges at the end of a 1 GB import mapped up to 50 MB of
// segment pages within a quarter of a second; a release costs about half a
// millisecond (BenchmarkReleaseSegmentPages: /proc/self/maps, a snapshot and
// one madvise per segment), 0.5% of a core at this rate.
const pageReleaseEvery = 100 * time.Millisecond

// releaseAboveOpen is how far the resident file-backed memory (the binary's
// pages and the segment maps') may grow past what it was when the index
// opened before the releaser releases: below it a release would hand back
// little, and its pages would only be faulted in again. Releasing every
// 100 ms whatever the size cost 4% of an import's CPU (madvise, then the
// faults); most imports now never release at all.
const releaseAboveOpen = 24 << 20

// busyFor is how long after its last write or search the index counts as busy:
// Bleve's merges go on after the last batch of an import.
const busyFor = 30 * time.Second

// activity is when the index was last written or searched, in Unix nanoseconds.
type activity struct{ last atomic.Int64 }

func (a *activity) touch() {
	if a != nil {
		a.last.Store(time.Now().UnixNano())
	}
}

func (a *activity) busy(now time.Time) bool {
	return now.UnixNano()-a.last.Load() < int64(busyFor)
}

// startPageReleaser releases the segment pages ix maps every pageReleaseEvery
// while ix is busy, until Close.
func (ix *Index) startPageReleaser() {
	ix.releaseStop, ix.releaseDone = make(chan struct{}), make(chan struct{})
	ix.active.touch() // an index just opened may have merges to finish
	go func() {
		defer close(ix.releaseDone)
		t := time.NewTicker(pageReleaseEvery)
		defer t.Stop()
		for {
			select {
			case <-ix.releaseStop:
				return
			case now := <-t.C:
				if ix.active.busy(now) && ix.pagesOver() {
					ix.releaseSegmentPages()
				}
			}
		}
	}()
}

// pagesOver reports whether the process's resident file pages are over
// ix.releaseAbove, or cannot be read.
func (ix *Index) pagesOver() bool {
	n, ok := residentFileBytes()
	return !ok || n > ix.releaseAbove
}

// stopPageReleaser stops the releaser and waits for it; the caller must not
// hold ix.mu, which a release takes to read.
func (ix *Index) stopPageReleaser() {
	if ix.releaseStop == nil {
		return
	}
	close(ix.releaseStop)
	<-ix.releaseDone
	ix.releaseStop = nil
}

// releaseSegmentPages releases the mapped pages of the segments of the index's
// current snapshot. The snapshot reader holds a reference on each segment, so
// none is unmapped (and its address range reused) while its pages are released.
func (ix *Index) releaseSegmentPages() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	g, ok := ix.bl.(*guarded)
	if !ok || g.poisoned.Load() {
		return 0
	}
	adv, err := g.bl.Advanced()
	if err != nil {
		return 0
	}
	r, err := adv.Reader()
	if err != nil {
		return 0
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0
	}
	var mapped [][]byte
	for _, ss := range snap.Segments() {
		if d, ok := ss.Segment().(interface{ Data() []byte }); ok && len(d.Data()) > 0 {
			mapped = append(mapped, d.Data())
		}
	}
	return releasePages(ix.dir, mapped)
}
