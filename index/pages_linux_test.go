package index

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// mappedRSS returns how many bytes of this process's maps of files in dir are
// resident, from /proc/self/smaps.
func mappedRSS(t *testing.T, dir string) int64 {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			in = len(fields) >= 6 && strings.HasPrefix(fields[5], real+string(filepath.Separator))
		case in && fields[0] == "Rss:":
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			require.NoError(t, err)
			total += kb << 10
		}
	}
	require.NoError(t, sc.Err())
	return total
}

// touchSegments reads a byte of every page of every segment the index maps, as
// a merge or a search over everything does.
func touchSegments(t *testing.T, ix *Index) {
	t.Helper()
	adv, err := ix.bl.(*guarded).bl.Advanced() // not through guarded, which marks the index busy
	require.NoError(t, err)
	r, err := adv.Reader()
	require.NoError(t, err)
	defer r.Close()
	var sum byte
	n := 0
	for _, ss := range r.(*scorch.IndexSnapshot).Segments() {
		d, ok := ss.Segment().(interface{ Data() []byte })
		if !ok {
			continue
		}
		n++
		b := d.Data()
		for i := 0; i < len(b); i += 4096 {
			sum += b[i]
		}
	}
	require.Positive(t, n, "no segment on disk")
	touchedSum = sum
}

// touchedSum keeps touchSegments' reads from being optimised away.
var touchedSum byte

// waitMerged waits until the index's segments stay the same for a second.
func waitMerged(t *testing.T, ix *Index) {
	t.Helper()
	var last []string
	stable := time.Now()
	for deadline := time.Now().Add(time.Minute); time.Since(stable) < time.Second; {
		require.True(t, time.Now().Before(deadline), "Bleve's merges do not end")
		segs, err := loadedSegments(ix.bl)
		require.NoError(t, err)
		if !slices.Equal(segs, last) {
			last, stable = segs, time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A merge or a search leaves the segment pages it read mapped; the releaser
// hands them back to the page cache, and the index reads them again as before.
func TestReleaseSegmentPages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, words := pagesIndex(t, dir)
	before := searchAll(t, ix, Query{Text: words[7] + " OR " + words[8]})
	require.NotEmpty(t, before)

	// Let Bleve's merges end first: a merge reads its segments again, and closes them.
	waitMerged(t, ix)
	touchSegments(t, ix)
	touched := mappedRSS(t, dir)
	require.Greater(t, touched, int64(256<<10), "reading every segment page maps it")

	require.Positive(t, ix.releaseSegmentPages())
	assert.Less(t, mappedRSS(t, dir), touched/4, "released pages stay mapped")

	assert.Equal(t, before, searchAll(t, ix, Query{Text: words[7] + " OR " + words[8]}), "a search after the release reads the same index")
}

// An open index releases what a search mapped by itself while it is busy, and
// stops when it is idle. The releaser runs all along, so the pages are touched
// and measured while the index is idle: a release falling between the two
// left 56 KB of 512 KB touched under load.
func TestPageReleaserRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, words := pagesIndex(t, dir)
	ix.releaseAbove = 0 // a small index: release whatever is resident
	ix.startPageReleaser()
	waitMerged(t, ix)
	bl := ix.bl.(*guarded).bl // not through guarded, which marks the index busy
	idle := func() {
		ix.active.last.Store(time.Now().Add(-2 * busyFor).UnixNano())
		time.Sleep(2 * pageReleaseEvery) // a release under way ends
	}
	// measure touches every segment page and returns what is mapped then, and
	// after wait what is still mapped. A merge Bleve finishes meanwhile
	// (waitMerged's quiet second can fall within a long one) unmaps the
	// segments it replaced: it measures again then.
	measure := func(wait time.Duration) (mapped, left int64) {
		for try := 0; ; try++ {
			segs, err := loadedSegments(bl)
			require.NoError(t, err)
			touchSegments(t, ix)
			mapped = mappedRSS(t, dir)
			time.Sleep(wait)
			left = mappedRSS(t, dir)
			after, err := loadedSegments(bl)
			require.NoError(t, err)
			if slices.Equal(segs, after) || try == 4 {
				return mapped, left
			}
		}
	}

	idle()
	touched, _ := measure(0)
	require.Greater(t, touched, int64(256<<10), "reading every segment page maps it")
	require.NotEmpty(t, searchAll(t, ix, Query{Text: words[3]})) // busy
	require.Eventually(t, func() bool { return mappedRSS(t, dir) < touched/4 }, 5*time.Second, 20*time.Millisecond,
		"the releaser leaves the pages a search mapped")

	idle()
	mapped, left := measure(3 * pageReleaseEvery)
	assert.Greater(t, left, mapped/2, "an idle index is left alone")
}

// Below releaseAbove the releaser leaves the pages alone: releasing them would
// only have them faulted in again.
func TestPageReleaserWaitsForResidentPages(t *testing.T) {
	n, ok := residentFileBytes()
	require.True(t, ok)
	require.Greater(t, n, int64(1<<20), "the test binary's own pages are resident")

	dir := filepath.Join(t.TempDir(), "index")
	ix, words := pagesIndex(t, dir)
	ix.releaseAbove = n + 1<<30
	ix.startPageReleaser()
	waitMerged(t, ix)
	require.NotEmpty(t, searchAll(t, ix, Query{Text: words[3]})) // busy
	touchSegments(t, ix)
	touched := mappedRSS(t, dir)
	require.Greater(t, touched, int64(256<<10))
	time.Sleep(5 * pageReleaseEvery)
	assert.Greater(t, mappedRSS(t, dir), touched/2, "pages under the threshold are left alone")
}

// BenchmarkReleaseSegmentPages is the cost of one release of an index's segments
// with nothing resident: what the releaser pays every pageReleaseEvery while
// the index is busy.
func BenchmarkReleaseSegmentPages(b *testing.B) {
	ix, _ := pagesIndex(b, filepath.Join(b.TempDir(), "index"))
	b.ResetTimer()
	for range b.N {
		ix.releaseSegmentPages()
	}
}

// pagesIndex opens an index in dir, with the releaser stopped, and fills it with
// 1,600 blocks of random words; it returns the index and the words.
func pagesIndex(t testing.TB, dir string) (*Index, []string) {
	ix, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ix.Close() })
	ix.stopPageReleaser() // the test releases by hand

	rnd := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 5000)
	for i := range words {
		words[i] = fmt.Sprintf("w%x", rnd.Uint32())
	}
	src := &memSource{revs: map[string]int64{}, blocks: map[string][]archive.Block{}}
	for s := range 8 {
		id := fmt.Sprintf("s%d", s)
		src.revs[id] = 1
		for b := range 200 {
			var text strings.Builder
			for range 120 {
				text.WriteString(words[rnd.IntN(len(words))] + " ")
			}
			src.blocks[id] = append(src.blocks[id], archive.Block{ID: fmt.Sprintf("%s-%d", id, b), SessionID: id,
				Project: "p", Agent: "dsh", Kind: archive.BlockAssistant, Role: "assistant", Seq: int64(b),
				Surface: "current", Text: text.String()})
		}
	}
	_, err = ix.Sync(context.Background(), src, nil)
	require.NoError(t, err)
	return ix, words
}

// The releaser never touches memory that is not a map of a file in the index
// directory.
func TestReleasePagesOnlyIndexMaps(t *testing.T) {
	heap := make([]byte, 1<<20)
	for i := range heap {
		heap[i] = 1
	}
	assert.Zero(t, releasePages(t.TempDir(), [][]byte{heap}))
	for _, b := range heap {
		require.Equal(t, byte(1), b)
	}
}
