//go:build !unix

package scsrc

import "time"

// processCPU falls back to wall time where getrusage is not available.
func processCPU() time.Duration { return time.Duration(time.Now().UnixNano()) }
