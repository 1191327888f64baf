//go:build unix

package fsremote

import (
	"errors"
	"os"
	"syscall"
)

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// syncDir fsyncs a folder so a rename in it is durable. Errors are ignored:
// some file systems (network mounts) refuse fsync on folders, and the data
// itself was already synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
