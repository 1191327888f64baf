//go:build !linux

package openhands

import "os"

// readRegular reads a regular file of at most max bytes.
func readRegular(path string, max int64) ([]byte, os.FileInfo, error) {
	return readRegularPortable(path, max)
}
