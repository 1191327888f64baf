//go:build !unix

package index

import "os"

// pidAlive reports whether a process with this id is running. Where FindProcess
// cannot tell (it always succeeds on Unix, which has its own file), it does
// open the process, so failing means it is gone.
func pidAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
