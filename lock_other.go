//go:build !unix

package main

// lockDataDir is a no-op where flock is unavailable (Windows builds are not
// produced yet); SQLite still serialises writers there.
func lockDataDir(dir, what string) (release func(), err error) { return func() {}, nil }

// instanceHolder is "" where flock is unavailable: no running instance is known.
func instanceHolder(dir string) string { return "" }
