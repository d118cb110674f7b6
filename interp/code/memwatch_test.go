package code

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFormatBytes(t *testing.T) {
	require.Equal(t, "512 MiB", formatBytes(DefaultMemoryLimit))
	require.Equal(t, "2 GiB", formatBytes(2<<30))
	require.Equal(t, "3 KiB", formatBytes(3<<10))
	require.Equal(t, "1000 bytes", formatBytes(1000))
}

// From zero, a watch counts the heap the process already holds: a limit
// below it is exceeded at the first sample. Measured from its start, the
// same watch sees no growth.
func TestWatchMemoryFromZero(t *testing.T) {
	// What stays live: the watch collects before it blames.
	ballast := make([]byte, 4<<20)
	defer runtime.KeepAlive(ballast)
	runtime.GC()
	held := heapInUse()
	require.Greater(t, held, int64(4<<20))
	limit := held / 2
	watch := func() bool {
		fired := make(chan struct{}, 1)
		stop := WatchBlockMemory(limit, func() { fired <- struct{}{} })
		defer stop()
		select {
		case <-fired:
			return true
		case <-time.After(20 * memoryCheckInterval):
			return false
		}
	}
	SetHeapFromZero(true)
	defer SetHeapFromZero(false)
	require.True(t, watch(), "a watch from zero did not count the heap held before it")
	SetHeapFromZero(false)
	require.False(t, watch(), "a watch from its start counted the heap held before it")
}

// A registered heap reader is what every later watch reads; the default
// (runtime.MemStats) counts the heap the process holds.
func TestRegisterHeapReader(t *testing.T) {
	ballast := make([]byte, 4<<20)
	defer runtime.KeepAlive(ballast)
	require.GreaterOrEqual(t, heapInUse(), int64(4<<20), "the default reader misses a live 4 MiB")
	defer heapReader.Store(heapReader.Load())
	// The heap seems to grow by 1 TiB after the watch's first read.
	var reads atomic.Int64
	RegisterHeapReader(func() int64 { return min(reads.Add(1)-1, 1) << 40 })
	fired := make(chan struct{}, 1)
	stop := WatchBlockMemory(1<<30, func() { fired <- struct{}{} })
	defer stop()
	select {
	case <-fired:
	case <-time.After(20 * memoryCheckInterval):
		t.Fatal("a watch did not read the registered heap reader")
	}
	require.Panics(t, func() { RegisterHeapReader(nil) })
}
