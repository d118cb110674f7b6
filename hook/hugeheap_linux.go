package hook

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// heapFill holds what hugeHeap allocated, so that it stays allocated:
// nothing ever writes to it.
var heapFill [24][]byte

// hugeHeap has the heap a hook process is about to fill backed by 2 MB
// pages (transparent huge pages) where the system grants them on
// request (/sys/kernel/mm/transparent_hugepage/enabled: madvise or
// always), and returns the start of the range it advised.
//
// A decision touches over a megabyte of fresh heap. On a virtual
// machine whose page faults are slow (the first touch of a 4 KB page
// costs 10–15 µs on the Firecracker machine CI runs on, against well
// under 1 µs on bare metal) its few hundred faults were a tenth of a
// hook call; one 2 MB fault costs what about fifteen 4 KB ones do.
//
// The Go runtime maps its heap in 4 MB chunks and never asks for huge
// pages, and the kernel gives one only to a 2 MB range nothing has
// touched yet. So hugeHeap allocates fillers of 15 pages (fresh runs of
// pages come from a per-P cache of 64, which fillers under 16 pages
// drain first) until the next free page starts a 2 MB range, and
// advises that range and the next (MADV_HUGEPAGE). The decision's
// allocations then start in an untouched range that faults in whole.
// Nothing writes to the fillers, so they cost address space, not
// memory: a fresh page is not zeroed until it is touched. The heap is
// not collected in a hook process (Main), so they are never reused;
// they count, at most 2 MB, toward its heap limit (memoryLimit).
//
// It is advice: an older kernel, a system with huge pages off, or
// memory too fragmented to find one refuse it, and the process goes on
// as before.
func hugeHeap() uintptr {
	const huge = 2 << 20
	const filler = 15 << 13 // 15 of the runtime's 8 KB pages
	var next uintptr
	for i := range heapFill {
		b := make([]byte, filler)
		heapFill[i] = b
		p := addr(b)
		if i == 0 {
			next = (p + huge - 1) &^ (huge - 1)
		}
		if p+filler >= next {
			break
		}
	}
	// A raw system call: the address is a range of the heap, not a Go
	// object, and an error is the kernel declining the advice (or part
	// of the range not mapped yet).
	unix.Syscall(unix.SYS_MADVISE, next, 2*huge, unix.MADV_HUGEPAGE)
	return next
}

// addr is where b's bytes start.
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
