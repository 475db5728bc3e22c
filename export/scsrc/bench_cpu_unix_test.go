//go:build unix

package scsrc

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far, in user and
// kernel mode. Unlike wall time it does not grow while other programs hold
// the machine's cores, so ratios built from it hold on a busy machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
