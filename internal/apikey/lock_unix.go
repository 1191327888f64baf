//go:build unix

package apikey

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, waiting for another process (a CLI
// command beside a running serve) to finish its read-modify-write.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
