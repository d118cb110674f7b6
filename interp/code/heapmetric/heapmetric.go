package heapmetric

import (
	"runtime/metrics"

	"github.com/guardrun/guardrun/interp/code"
)

// heapObjects is the heap memory occupied by objects, live or not yet
// swept: what runtime.MemStats calls HeapAlloc.
const heapObjects = "/memory/classes/heap/objects:bytes"

func init() { code.RegisterHeapReader(Read) }

// Read returns the bytes occupied by heap objects, live or not yet swept.
func Read() int64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
