package main

import (
	"os"
	"runtime"
	"strconv"

	// One P and no heap profile from the start, before the other
	// packages' inits (see oneproc): a hook process (`guardrun hook`, or
	// `guardrun exec` running a command it confined) keeps them; every
	// other command gets the usual ones back in main.
	_ "github.com/guardrun/guardrun/internal/oneproc"
	// The full command runs every script: link the JavaScript engine and
	// the token counter (guardrun-hook links neither).
	_ "github.com/guardrun/guardrun/js"
	_ "github.com/guardrun/guardrun/tokens"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "hook" && os.Args[1] != "exec" {
		restoreProcs()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// restoreProcs undoes oneproc for a command that is not a hook's: the
// Ps the runtime would have chosen (GOMAXPROCS from the environment when
// it is set) and the default heap profile rate.
func restoreProcs() {
	if n, err := strconv.Atoi(os.Getenv("GOMAXPROCS")); err == nil && n > 0 {
		runtime.GOMAXPROCS(n)
	} else {
		runtime.SetDefaultGOMAXPROCS()
	}
	runtime.MemProfileRate = 512 * 1024
}
