//go:build !unix

package fsremote

func isNotDir(err error) bool { return false }

// syncDir is a no-op where folders cannot be fsynced (Windows).
func syncDir(dir string) {}
