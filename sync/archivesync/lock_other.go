//go:build !unix

package archivesync

import "errors"

// ErrBusy means another sync of this data directory is running.
var ErrBusy = errors.New("another `logbook sync` of this data directory is running; try again when it is done")

// Lock is a no-op where flock is unavailable (no Windows builds yet).
func Lock(p Paths) (release func(), err error) { return func() {}, nil }
