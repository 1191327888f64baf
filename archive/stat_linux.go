//go:build linux

package archive

import (
	"os"
	"syscall"
)

// statIDs returns a file's inode and status-change time (ns); zeros when unknown.
func statIDs(fi os.FileInfo) (inode, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino), st.Ctim.Nano()
	}
	return 0, 0
}
