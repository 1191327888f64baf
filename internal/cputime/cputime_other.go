//go:build !unix

// Package cputime reads the CPU time this process has used, for benchmarks
// that report CPU-seconds beside wall time (the machines they run on are
// shared, so wall time moves with the load).
package cputime

import "time"

// Process is not measured here: 0, and benchmarks report wall time only.
func Process() time.Duration { return 0 }
