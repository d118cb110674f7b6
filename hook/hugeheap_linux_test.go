package hook

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// hugeHeap advises a 2 MB-aligned range of the heap where the kernel has
// transparent huge pages at all (the advice is refused, and the range
// left as it was, where it has none), and the fillers end at or past it.
func TestHugeHeapAdvisesTheNextRange(t *testing.T) {
	next := hugeHeap()
	if next == 0 || next%(2<<20) != 0 {
		t.Fatalf("hugeHeap advised %#x, not a 2 MB boundary", next)
	}
	last := heapFill[0]
	for _, b := range heapFill {
		if b != nil {
			last = b
		}
	}
	if end := addr(last) + uintptr(len(last)); end < next {
		t.Errorf("the fillers end at %#x, before the advised range at %#x", end, next)
	}
	flags, err := vmFlags(next)
	if err != nil {
		t.Fatal(err)
	}
	_, thp := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled")
	if hg := strings.Contains(" "+flags+" ", " hg "); hg != (thp == nil) {
		t.Errorf("mapping at %#x has VmFlags %q: advised huge %v, kernel has huge pages %v", next, flags, hg, thp == nil)
	}
}

// vmFlags is the VmFlags line of the mapping holding a, from
// /proc/self/smaps.
func vmFlags(a uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if r, _, ok := strings.Cut(line, " "); ok && strings.Contains(r, "-") && !strings.HasSuffix(r, ":") {
			lo, hi, _ := strings.Cut(r, "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(a) >= l && uint64(a) < h
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	return "", fmt.Errorf("no mapping holds %#x", a)
}
