//go:build unix

package pipeline

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process and its
// finished children (TLC's JVMs) have used.
func processCPU() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
