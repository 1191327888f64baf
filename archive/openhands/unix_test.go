//go:build unix

package openhands_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mkfifo makes a FIFO at p and returns 1 (the number of FIFOs made).
func mkfifo(t *testing.T, p string) int {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	return 1
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
