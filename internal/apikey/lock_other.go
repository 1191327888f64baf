//go:build !unix

package apikey

import "os"

// lockFile is a no-op where flock is unavailable (Windows builds are not produced
// yet): two processes changing keys at the same instant could then lose one change,
// never half-write the file (atomicfile).
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) {}
