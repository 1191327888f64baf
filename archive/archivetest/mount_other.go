//go:build !linux

package archivetest

import "testing"

// Tmpfs skips: mounting a tmpfs is a Linux test.
func Tmpfs(tb testing.TB, size string) string { tb.Skip("tmpfs mounts are Linux only"); return "" }

// Remount skips, as Tmpfs does.
func Remount(tb testing.TB, dir string, flags uintptr, size string) { tb.Skip("Linux only") }

// ReadOnlyView skips: bind mounts are a Linux test.
func ReadOnlyView(tb testing.TB, dir string) string { tb.Skip("bind mounts are Linux only"); return "" }
