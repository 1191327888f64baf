//go:build !linux

package index

// releasePages does nothing where the segment maps' resident pages cannot be
// released as on Linux.
func releasePages(string, [][]byte) int { return 0 }

// residentFileBytes is unknown here.
func residentFileBytes() (int64, bool) { return 0, false }
