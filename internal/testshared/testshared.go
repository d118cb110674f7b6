// Package testshared locates the shared corpora (../shared beside a
// checkout: the mlld conformance cases) for the tests that also run over
// them. `make test` runs on a clone with nothing beside it, so the
// corpora are opt-in: CI's corpus step sets GUARDRUN_SHARED to the
// shared directory, and then a missing corpus is an error, never a
// skip. It is imported by tests only and imports nothing of ours.
package testshared

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names the variable holding the shared directory's path.
const Env = "GUARDRUN_SHARED"

// Roots returns the given paths under the shared directory (e.g.
// "conformance/mlld/cases") when GUARDRUN_SHARED is set, each checked
// to exist (t fails otherwise), and nil when it is not set.
func Roots(t testing.TB, rel ...string) []string {
	t.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		return nil
	}
	var out []string
	for _, r := range rel {
		p := filepath.Join(dir, filepath.FromSlash(r))
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s, but %s: %v", Env, dir, r, err)
		}
		out = append(out, p)
	}
	return out
}

// Corpora are the two mlld conformance corpora, under Roots' rules.
func Corpora(t testing.TB) []string {
	return Roots(t, "conformance/mlld/cases", "conformance/mlld-more/cases")
}
