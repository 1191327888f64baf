//go:build !linux

package openhands

import (
	"os"
	"path/filepath"
)

// readRegular reads a regular file of at most max bytes.
func readRegular(path string, max int64) ([]byte, os.FileInfo, error) {
	return readRegularPortable(path, max)
}

// folder is a folder whose files readRegularAt reads by name.
type folder struct{ path string }

func openFolder(dir string) folder { return folder{path: dir} }

func (folder) close() {}

// readRegularAt is readRegular for the file name (slash-separated, relative)
// inside the folder d.
func readRegularAt(d folder, name string, max int64) ([]byte, os.FileInfo, error) {
	return readRegularPortable(filepath.Join(d.path, filepath.FromSlash(name)), max)
}
