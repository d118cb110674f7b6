package credscan

import (
	"runtime"
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD: the calling thread's usage.
const rusageThread = 1

// timed runs f on a locked thread and returns the CPU time that thread
// spent: what a scan costs, whatever else the machine runs meanwhile
// (wall time counts the time the thread waited for a CPU).
func timed(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(rusageThread, &ru); err != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, wall := cpu(), time.Now()
	f()
	if d := cpu() - start; d > 0 || start > 0 {
		return d
	}
	return time.Since(wall)
}
