//go:build linux

package sim

import (
	"syscall"
	"time"
	"unsafe"
)

// threadTime is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID): on a shared machine it leaves out the time
// the thread waited for a core, which wall time counts. Callers lock the
// goroutine to its thread.
func threadTime() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(e)
	}
	return time.Duration(ts.Nano())
}
