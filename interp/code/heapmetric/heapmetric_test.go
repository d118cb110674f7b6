package heapmetric

import (
	"runtime"
	"testing"
)

// Read and runtime.MemStats measure the same thing: the bytes of heap
// objects, live or not yet swept.
func TestReadAgreesWithMemStats(t *testing.T) {
	ballast := make([]byte, 8<<20)
	defer runtime.KeepAlive(ballast)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	got := Read()
	if got < 8<<20 {
		t.Fatalf("Read = %d, below a live 8 MiB", got)
	}
	if d := got - int64(m.HeapAlloc); d < -1<<20 || d > 1<<20 {
		t.Fatalf("Read = %d, MemStats.HeapAlloc = %d: more than 1 MiB apart", got, m.HeapAlloc)
	}
}
