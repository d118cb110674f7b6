package policy

import (
	"os"
	"testing"
)

// benchLines are lines an agent sends every day.
var benchLines = []string{"git status", "npm test -- --watch=false", "ls -la src/*.go", "cat README.md | head -20",
	"f=README.md; grep -n TODO \"$f\"", "rm -rf build{,}", "curl -s https://example.org/api | jq .items"}

// BenchmarkCommandLineFacts compares the analysis of a line as written
// with the analysis of the line as bash will expand it (in this
// package's directory, with the process environment), side by side.
func BenchmarkCommandLineFacts(b *testing.B) {
	dir, _ := os.Getwd()
	env := &ShellEnv{Dir: dir, Getenv: os.LookupEnv}
	b.Run("as-written", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			CommandLineFacts(benchLines[i%len(benchLines)])
		}
	})
	b.Run("expanded", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			CommandLineFactsIn(benchLines[i%len(benchLines)], env)
		}
	})
}
