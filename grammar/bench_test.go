package grammar

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
)

// benchScript builds a markdown script of about n lines mixing prose and
// the common directive shapes.
func benchScript(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, "## Section %d\n", i)
		fmt.Fprintf(&b, "/var secret @v%d = \"value %d\"\n", i, i)
		fmt.Fprintf(&b, "/exe @f%d(x) = `f%d:@x and @v%d.length`\n", i, i, i)
		fmt.Fprintf(&b, "/exe @g%d(x) = when [\n  @x == \"a\" => show \"a\"\n  * => js { return x + 1 }\n]\n", i)
		fmt.Fprintf(&b, "/show @f%d(@v%d) | @upper\n\n", i, i)
	}
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	src := benchScript(1000)
	if _, err := Parse("bench.md", src, ast.Markdown); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("bench.md", src, ast.Markdown); err != nil {
			b.Fatal(err)
		}
	}
}

// longLine is one directive adding terms ones on a single line: every
// node's position lies on that line, so position lookup must not count
// from the line start each time.
func longLine(terms int) []byte {
	return []byte("/var @x = 1" + strings.Repeat(" + 1", terms-1) + "\n")
}

func BenchmarkParseLongLine(b *testing.B) {
	for _, terms := range []int{10000, 40000} {
		src := longLine(terms)
		b.Run(fmt.Sprint(terms), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for i := 0; i < b.N; i++ {
				if _, err := Parse("long.md", src, ast.Markdown); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
