//go:build !linux

package hook

// hugeHeap is Linux's (transparent huge pages); elsewhere the heap is
// left as the runtime maps it.
func hugeHeap() uintptr { return 0 }
