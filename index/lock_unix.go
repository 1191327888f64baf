//go:build unix

package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockIndex takes the exclusive lock on the file at path (created if needed),
// trying again until wait has passed. A writer holds it from Open to Close, so
// no other writer opens the index while this one swaps in a rebuilt directory
// (Reindex) or creates a missing one. It is an flock: the kernel drops it when
// the process dies, so a crash never leaves the index locked.
func lockIndex(path string, wait time.Duration) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open index lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("take index lock %s: %w", path, err)
		}
		if !time.Now().Before(deadline) {
			_ = f.Close()
			return nil, errLocked
		}
		time.Sleep(lockPoll)
	}
}

// exclusiveLock reports whether lockIndex excludes other writers on this
// platform, so leftovers found while holding it are nobody's work in progress.
const exclusiveLock = true

// boltFree returns errBoltLocked if a process holds Bleve's lock on the store's
// root.bolt in dir, waiting up to wait for it to let go. Open checks before it
// replaces an index it cannot use: a reader that holds only that lock (a
// read-only Logbook, or one from before the lock file) must never lose its index.
func boltFree(dir string, wait time.Duration) error {
	f, err := os.Open(filepath.Join(dir, storeDir, rootBolt))
	if err != nil {
		return nil // no root.bolt, or not one anybody could have open
	}
	defer f.Close()
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || !time.Now().Before(deadline) {
			return errBoltLocked
		}
		time.Sleep(lockPoll)
	}
}
