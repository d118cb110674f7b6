package main

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"

	"github.com/guardrun/guardrun/internal/teststate"
)

// runArgsEnv makes the test binary be guardrun: TestMain runs run with
// the JSON-encoded arguments it holds, for the commands that replace
// their process (guardrun exec).
const runArgsEnv = "GUARDRUN_CMD_TEST_RUN"

// TestMain keeps the private audit ledgers of the runs under test out of
// the user's state directory.
func TestMain(m *testing.M) {
	if s := os.Getenv(runArgsEnv); s != "" {
		var args []string
		if err := json.Unmarshal([]byte(s), &args); err != nil {
			panic(err)
		}
		if len(args) == 0 || args[0] != "hook" && args[0] != "exec" {
			restoreProcs()
		}
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	// The tests are no hook process: the Ps and the heap profile main
	// gives every other command (oneproc took them at init).
	restoreProcs()
	teststate.Main(m)
}

// TestRestoreProcs: a command that is not a hook's gets back the Ps
// oneproc took at init (GOMAXPROCS from the environment when set) and
// heap profiling.
func TestRestoreProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
	t.Setenv("GOMAXPROCS", "3")
	runtime.GOMAXPROCS(1)
	runtime.MemProfileRate = 0
	restoreProcs()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("GOMAXPROCS = %d, want 3 (the environment's)", n)
	}
	if runtime.MemProfileRate != 512*1024 {
		t.Errorf("MemProfileRate = %d, want the default", runtime.MemProfileRate)
	}
	t.Setenv("GOMAXPROCS", "")
	runtime.SetDefaultGOMAXPROCS()
	want := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(1)
	restoreProcs()
	if n := runtime.GOMAXPROCS(0); n != want {
		t.Errorf("GOMAXPROCS = %d, want the runtime's default %d", n, want)
	}
}
