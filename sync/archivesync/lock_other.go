//go:build !unix

package archivesync

// Lock is a no-op where flock is unavailable (no Windows builds yet).
func Lock(p Paths) (release func(), err error) { return func() {}, nil }
