// Package memlimit holds the soft limit of the Go heap of every Logbook process
// that imports: `logbook import`, watch, sync, serve and the window, and the
// benchmarks that measure them.
package memlimit

import (
	"os"
	"runtime/debug"
)

// Go is the Go heap's soft limit. An import's heap is mostly garbage between
// records (decoded lines, blocks on their way to SQLite, analysed text on its
// way to the index): the limit makes the collector reclaim it before the
// process grows. With SQLite's page caches (outside the Go heap) and the index
// pages Bleve maps, a whole import, index included, stays under 300 MB on the
// largest lines and frames a log may hold (see the README for the figures).
//
// Under the limit, how often the collector runs is set by the room between
// it and what is live (about 55 MB while a batch is indexed). At 128 MiB the
// collector, with the write barriers it turns on, held the index back: 20
// copies of the real log became searchable at 29.4 MB/s (median of five) in
// 4.23 CPU-s, against 31.1 MB/s and 3.96 CPU-s at 144 MiB, for 18 MB more at
// the peak; 160 MiB gained little more (31.4 MB/s) for as much again.
const Go = 144 << 20

// GCPercent is the collector's target while the heap is well under Go: the
// heap may grow to three times what is live, not twice, before a collection.
// An import of small sessions has little live and makes garbage fast:
// indexing 10,000 of them took 12% more CPU at the default (100). The limit
// still bounds the heap as it nears Go, whatever this says.
const GCPercent = 200

// Apply sets the Go heap's soft limit to Go, unless GOMEMLIMIT sets it, and the
// collector's target to GCPercent, unless GOGC sets it.
func Apply() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(Go)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
