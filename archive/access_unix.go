//go:build unix

package archive

import "syscall"

// wOK is access(2)'s W_OK.
const wOK = 2

// access asks the kernel whether this process may access path in mode. It says no
// for a read-only mount even to root.
func access(path string, mode uint32) error { return syscall.Access(path, mode) }
