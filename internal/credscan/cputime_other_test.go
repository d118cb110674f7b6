//go:build !linux

package credscan

import "time"

// timed returns f's wall time (the thread's CPU time where the system
// gives it: cputime_linux_test.go).
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
