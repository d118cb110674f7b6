package oneproc

import "runtime"

func init() {
	runtime.GOMAXPROCS(1)
	// Nobody reads a hook process's heap profile, and its first sample
	// costs a stack walk and the profiler's bucket table.
	runtime.MemProfileRate = 0
}
