//go:build !unix

package openhands_test

import (
	"testing"
	"time"
)

// mkfifo makes nothing where FIFOs do not exist and returns 0.
func mkfifo(t *testing.T, p string) int { return 0 }

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
