package rules_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// isolatedHome makes a workspace and a home of the test's own: HOME and
// XDG_CONFIG_HOME point there for the test's duration.
func isolatedHome(t *testing.T) (ws, home string) {
	t.Helper()
	ws, home = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	return ws, home
}

// seeded is a property test's generator: its seed is def, or the value
// of the environment variable env when set (failures print the seed, and
// env reruns it), and it makes n cases, or short under -short.
func seeded(env string, def int64, n, short int) (int64, int, *rand.Rand) {
	seed := def
	if s := os.Getenv(env); s != "" {
		fmt.Sscan(s, &seed)
	}
	if testing.Short() {
		n = short
	}
	return seed, n, rand.New(rand.NewSource(seed))
}
