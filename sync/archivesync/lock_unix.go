//go:build unix

package archivesync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock takes the data directory's sync lock (an flock on DATA/sync/lock,
// dropped by the kernel if the process dies), so two syncs of one data
// directory never interleave their state. Other machines need no lock.
func Lock(p Paths) (release func(), err error) {
	if err := os.MkdirAll(p.Work(), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(p.Work(), "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, fmt.Errorf("sync lock: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
