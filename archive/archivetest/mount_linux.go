//go:build linux

package archivetest

import (
	"os"
	"syscall"
	"testing"
)

// Tmpfs mounts a tmpfs of size (a mount option such as "6m") on a new directory,
// unmounted when the test ends. Mounting needs root: CI runs as root, so there a
// failure fails the test; elsewhere the test is skipped.
func Tmpfs(tb testing.TB, size string) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		needRoot(tb, "mount a tmpfs", err)
	}
	tb.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// Remount changes a tmpfs that Tmpfs mounted: its size, or read-only (flags
// syscall.MS_RDONLY).
func Remount(tb testing.TB, dir string, flags uintptr, size string) {
	tb.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|flags, "size="+size); err != nil {
		tb.Fatalf("remount %s: %v", dir, err)
	}
}

// ReadOnlyView bind-mounts dir read-only at a new path and returns it, unmounted
// when the test ends: the data directory a person browses on a read-only mount.
func ReadOnlyView(tb testing.TB, dir string) string {
	tb.Helper()
	ro := tb.TempDir()
	if err := syscall.Mount(dir, ro, "", syscall.MS_BIND, ""); err != nil {
		needRoot(tb, "bind-mount", err)
	}
	tb.Cleanup(func() { _ = syscall.Unmount(ro, syscall.MNT_DETACH) })
	if err := syscall.Mount("", ro, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		tb.Fatalf("remount %s read-only: %v", ro, err)
	}
	return ro
}

// needRoot fails the test under CI (which runs as root, so the mount must work)
// and skips it elsewhere.
func needRoot(tb testing.TB, what string, err error) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("CI must run this test as root: %s: %v", what, err)
	}
	tb.Skipf("%s needs root: %v", what, err)
}
