// Package teststate gives a package's tests a private XDG state
// directory, so that runs under test never write the label ledgers (or
// any other state) into the user's own. It is imported by tests only and
// imports nothing of ours.
package teststate

import (
	"os"
	"testing"
)

// Main runs m with XDG_STATE_HOME pointing at a fresh temporary
// directory, removes it afterwards and exits with m's code. Call it from
// a package's TestMain.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "guardrun-test-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
