//go:build unix

package credscan

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used so far, user and
// system; on a shared machine it, not the wall clock, is what a
// benchmark's own work costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
