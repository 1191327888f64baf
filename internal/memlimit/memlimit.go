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
// largest lines and frames a log may hold.
const Go = 128 << 20

// Apply sets the Go heap's soft limit to Go, unless GOMEMLIMIT sets it.
func Apply() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(Go)
	}
}
