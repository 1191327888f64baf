//go:build unix

// Package cputime reads the CPU time this process has used, for benchmarks
// that report CPU-seconds beside wall time (the machines they run on are
// shared, so wall time moves with the load).
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time this process has used so far, user and system.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
