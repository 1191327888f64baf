//go:build !unix

package index

import "time"

// lockIndex is a no-op where flock is unavailable (Windows builds are not
// produced yet): Bleve's own lock on its root.bolt still lets one process in.
func lockIndex(path string, wait time.Duration) (release func(), err error) {
	return func() {}, nil
}

// exclusiveLock reports whether lockIndex excludes other writers on this
// platform; here it does not, so only leftovers of dead processes are removed.
const exclusiveLock = false

// boltFree cannot tell here whether another process holds Bleve's lock; Bleve's
// own open reports it when it is the reason the index cannot be opened.
func boltFree(dir string, wait time.Duration) error { return nil }
