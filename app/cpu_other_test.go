//go:build !unix

package app

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
