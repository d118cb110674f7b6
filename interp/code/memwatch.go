package code

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/guardrun/guardrun/interp/value"
)

// heapReader reads the heap memory occupied by objects, live or not yet
// swept. The default reads runtime.MemStats, which stops the world for a
// moment; RegisterHeapReader installs a reader that does not (package
// interp/code/heapmetric, imported by the JavaScript engine, installs
// runtime/metrics). The default exists so that a program that never
// samples (a hook process deciding one event) does not link
// runtime/metrics, whose package init alone costs ≈0.06 ms.
var heapReader atomic.Pointer[func() int64]

// RegisterHeapReader makes read the heap reader of every later watch.
// read must return the bytes occupied by heap objects, live or not yet
// swept (runtime/metrics' /memory/classes/heap/objects:bytes).
func RegisterHeapReader(read func() int64) {
	if read == nil {
		panic("code: RegisterHeapReader with a nil reader")
	}
	heapReader.Store(&read)
}

func heapInUse() int64 {
	if r := heapReader.Load(); r != nil {
		return (*r)()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// memoryCheckInterval is how often a running JS block's heap growth is
// sampled. goja has no heap cap, so a block that allocates in a loop
// would otherwise reach a fatal out-of-memory long before its timeout.
const memoryCheckInterval = 5 * time.Millisecond

// gcBackoff is the pause after a forced collection that found the heap
// back under the limit.
const gcBackoff = 100 * time.Millisecond

// heapBase is where a watch measures growth from: the heap in use at the
// start, garbage included. Starting from the heap the last collection
// found live instead counts what became live since then (other runs,
// caches) as the watched block's growth and stops innocent blocks; the
// price of this base is that growth up to the garbage present at the
// start (at most about the live heap, with GOGC=100) goes uncounted.
func heapBase() int64 {
	if heapFromZero.Load() {
		return 0
	}
	return heapInUse()
}

var heapFromZero atomic.Bool

// SetHeapFromZero makes every later watch of the process measure the
// whole heap instead of its growth since the watch started. It is for a
// process that runs one decision (a hook call): the heap before its run
// is the process's own few megabytes, so the limit holds all the same
// (a little stricter), and the process is spared reading the starting
// heap, its first heap read.
func SetHeapFromZero(on bool) { heapFromZero.Store(on) }

// WatchMemory calls exceeded (once) when the heap has grown by more than
// limit bytes since the watch started. The heap is process-wide, so this
// is an approximation: it also counts what other goroutines allocate.
// The sampling goroutine starts only after the first sampling interval,
// so that short runs (most of them) pay for a timer and not for a
// goroutine. The returned func ends the watch and waits for its
// goroutine, if any, to exit. A limit <= 0 disables the watch.
func WatchMemory(limit int64, exceeded func()) (stop func()) {
	if limit <= 0 {
		return func() {}
	}
	base := heapBase()
	var mu sync.Mutex
	stopped := false
	stopWatch := func() {}
	timer := time.AfterFunc(memoryCheckInterval, func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			stopWatch = watchFrom(base, limit, exceeded)
		}
	})
	return func() {
		timer.Stop()
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		stopWatch()
	}
}

// WatchBlockMemory is WatchMemory sampling from the start: a JS block can
// allocate its limit within the first interval.
func WatchBlockMemory(limit int64, exceeded func()) (stop func()) {
	if limit <= 0 {
		return func() {}
	}
	return watchFrom(heapBase(), limit, exceeded)
}

// watchFrom is WatchBlockMemory measuring growth from base.
func watchFrom(base, limit int64, exceeded func()) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(memoryCheckInterval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if heapInUse()-base <= limit {
				continue
			}
			// Unswept garbage counts until the next GC; collect before
			// blaming the block, so a block that only churns memory is not
			// stopped.
			runtime.GC()
			if heapInUse()-base > limit {
				exceeded()
				return
			}
			// Garbage only (or another goroutine's memory that was
			// freed): wait before the next forced collection, so a heap
			// that hovers near the limit is not collected every tick.
			select {
			case <-done:
				return
			case <-time.After(gcBackoff):
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// MemoryError builds the error for a lang block that grew the heap past
// limit.
func MemoryError(lang string, limit int64) *Error {
	return &Error{
		Lang: lang,
		Message: fmt.Sprintf("memory limit exceeded: %s block used more than %s of memory; raise the limit with the WithMemoryLimit option (--memory-limit)",
			lang, formatBytes(limit)),
		Hint:        "build less data inside the block (process it in pieces, or write it to a file), or raise the limit (the WithMemoryLimit option, --memory-limit)",
		OutOfMemory: true,
	}
}

// formatBytes writes n in the largest binary unit that divides it.
func formatBytes(n int64) string { return value.FormatBytes(n) }
