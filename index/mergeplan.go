package index

import (
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// Bleve's merge planner lets each tier of segments hold up to ten of them and
// merges when there are more. The first tier's size is the smallest segment's,
// raised to the planner's floor: Bleve's floor (2,000 blocks) is twice the
// largest batch (defaultBatchDocs), so every new segment counted as a 2,000-block
// one, the 9,380 blocks of BenchmarkImportSearchableRealLog's 20 copies had a
// budget of five segments, and merging began after the fifth batch and went on
// every few batches after it. During an import the two cores are both busy, so
// that merging is paid for by the import.
//
// So while an import is indexed along (SyncAlong), the floor is a batch
// (bulkFloorDocs): the budget doubles for small segments, and fewer, larger
// merges are made. At any other time the planner has Bleve's floor, and the first
// plan after the import (the next batch, or the next open of the index for
// writing) merges the small segments down to Bleve's budget. Measured on the 20
// copies, nine runs alternated with Bleve's floor: 0.2 CPU-s less (3.96 against
// 4.16) and a median of 30.9 against 30.0 MB/s. Kept at all times, a floor of
// 1,000 left 30 segments in an index of 200,000 blocks where Bleve's left 21,
// and single-term searches took 15–20% longer at the median (2.0 to 2.3 ms):
// hence only during imports.
//
// The planner takes its budget function from mergeplan.DefaultMergePlanOptions
// (scorch copies them as it opens an index and sets only what the config
// names), so budget is installed there once; every scorch index in this process
// is one of this package's.
const bulkFloorDocs = defaultBatchDocs

// bleveFloorDocs is Bleve's floor.
var bleveFloorDocs = mergeplan.DefaultMergePlanOptions.FloorSegmentSize

// bulkMerging is the number of imports being indexed along (SyncAlong) in this
// process.
var bulkMerging atomic.Int32

func init() { mergeplan.DefaultMergePlanOptions.CalcBudget = budget }

// budget is mergeplan.CalcBudget with the floor of the first tier raised from
// bulkFloorDocs (openBleve's FloorSegmentSize) to Bleve's, unless an import is
// being indexed along.
func budget(total, firstTier int64, o *mergeplan.MergePlanOptions) int {
	if o.BudgetCurrency() == mergeplan.LiveSizeBudget && bulkMerging.Load() == 0 {
		firstTier = max(firstTier, bleveFloorDocs)
	}
	return mergeplan.CalcBudget(total, firstTier, o)
}
