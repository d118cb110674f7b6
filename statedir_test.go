package guardrun_test

import (
	"os"
	"testing"
)

// TestMain keeps the private audit ledgers of the runs under test out of
// the user's state directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "guardrun-test-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
