//go:build !linux

package archive

import (
	"os"
	"syscall"
)

// statIDs returns a file's inode and, where this platform's Stat_t is known to
// carry it, its status-change time (ns); zeros when unknown.
func statIDs(fi os.FileInfo) (inode, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino), 0
	}
	return 0, 0
}
