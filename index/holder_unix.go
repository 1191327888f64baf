//go:build unix

package index

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this id is running. Signal 0 checks
// without signalling; EPERM means it runs as another user.
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
