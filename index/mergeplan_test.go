package index

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// TestMergeBudgetFloorOnlyDuringImports: the budget Bleve's planner uses (the one
// installed in mergeplan's defaults, which scorch copies) gives small segments
// Bleve's budget, except while an import is indexed along, when their floor is a
// batch; segments above both floors and the file-size budget are Bleve's.
func TestMergeBudgetFloorOnlyDuringImports(t *testing.T) {
	require.Zero(t, bulkMerging.Load())
	calc := mergeplan.DefaultMergePlanOptions.CalcBudget
	require.NotNil(t, calc, "the budget is installed where scorch takes its options from")
	o := mergeplan.DefaultMergePlanOptions
	o.FloorSegmentSize = bulkFloorDocs // as openBleve configures it

	// Ten batches of a thousand blocks: the planner raises the smallest to its floor.
	total, first := int64(10*bulkFloorDocs), o.RaiseToFloorSegmentSize(bulkFloorDocs/2)
	assert.Equal(t, 5, calc(total, first, &o), "Bleve's floor: ten batches are over budget")
	assert.Equal(t, mergeplan.CalcBudget(total, bleveFloorDocs, &mergeplan.DefaultMergePlanOptions), calc(total, first, &o))
	bulkMerging.Add(1)
	assert.Equal(t, 10, calc(total, first, &o), "during an import the floor is a batch")
	bulkMerging.Add(-1)

	// A smallest segment above both floors is its own first tier either way.
	assert.Equal(t, mergeplan.CalcBudget(100_000, 5000, &o), calc(100_000, 5000, &o))

	// Budgets in file sizes are left to Bleve.
	f := o
	f.FloorSegmentFileSize = 1 << 20
	assert.Equal(t, mergeplan.CalcBudget(10<<20, 1<<20, &f), calc(10<<20, 1<<20, &f))
}

// bulkWatching records whether a bulk merge was on each time a session's
// blocks were read.
type bulkWatching struct {
	*memSource
	reads, bulk atomic.Int32
}

func (b *bulkWatching) SessionBlocks(ctx context.Context, id string, fn func(archive.Block) error) (int64, error) {
	b.reads.Add(1)
	if bulkMerging.Load() > 0 {
		b.bulk.Add(1)
	}
	return b.memSource.SessionBlocks(ctx, id, fn)
}

// TestSyncAlongMergesInBulk: SyncAlong holds the import's merge floor while it
// indexes, and lets it go when it returns; Sync never takes it.
func TestSyncAlongMergesInBulk(t *testing.T) {
	ctx := context.Background()
	ix := openIndex(t)
	src := &bulkWatching{memSource: texts("one two")}
	_, err := ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	require.Equal(t, int32(1), src.reads.Load())
	assert.Zero(t, src.bulk.Load(), "a Sync merges as Bleve does")

	src.revs["s"] = 2
	stop, wait := startAlong(ctx, ix, src)
	close(stop)
	st, err := wait()
	require.NoError(t, err)
	require.Equal(t, 1, st.Indexed)
	assert.Equal(t, int32(1), src.bulk.Load(), "SyncAlong indexes with the import's floor")
	assert.Zero(t, bulkMerging.Load(), "and lets it go when it returns")
}

// TestBleveUsesTheMergeBudget: scorch plans with the budget installed in
// mergeplan's defaults. Six batches of 1,000 blocks indexed outside an import
// are merged down to Bleve's budget (three segments for 6,000 blocks at its
// floor of 2,000); with only the floor of 1,000 openBleve sets, the budget would
// be six and nothing would be merged.
func TestBleveUsesTheMergeBudget(t *testing.T) {
	ix := openIndex(t)
	ix.batchDocs = bulkFloorDocs
	words := make([]string, 6*bulkFloorDocs)
	for i := range words {
		words[i] = fmt.Sprintf("word%d", i)
	}
	st, err := ix.Sync(context.Background(), texts(words...), nil)
	require.NoError(t, err)
	require.Equal(t, len(words), st.Docs)
	segments := func() int {
		names, err := loadedSegments(ix.bl) // every segment is on disk once Sync returns
		require.NoError(t, err)
		return len(names)
	}
	require.Eventually(t, func() bool { return segments() <= 3 }, 20*time.Second, 20*time.Millisecond,
		"six segments of a batch each are merged to Bleve's budget")
}
