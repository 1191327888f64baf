//go:build !linux

package follow

// networkFS says no: network file systems are only told apart on Linux so far.
func networkFS(string) (string, bool) { return "", false }

// watchLimit is 0: the watch limit is inotify's, on Linux.
func watchLimit() int { return 0 }
