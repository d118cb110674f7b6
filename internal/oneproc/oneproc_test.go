package oneproc

import (
	"runtime"
	"testing"
)

// Importing the package leaves one P and no heap profiling.
func TestInit(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("GOMAXPROCS = %d, want 1", n)
	}
	if runtime.MemProfileRate != 0 {
		t.Errorf("MemProfileRate = %d, want 0", runtime.MemProfileRate)
	}
}
