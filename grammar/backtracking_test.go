package grammar

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/guardrun/guardrun/ast"
	"github.com/stretchr/testify/require"
)

// nestedShape is one way of nesting directives: open is repeated n times
// (a line each), then the innermost body, then close n times.
type nestedShape struct{ name, open, close, body string }

// nestedShapes are the nestings that made participle backtrack
// exponentially: a `[` after => read as a block and again as an array,
// a when or for read as a statement and again as an expression, an
// optional operand dropped and read again by the next statement, and a
// failed call or index whose bracket was read again as a parenthesis or
// an array.
var nestedShapes = []nestedShape{
	{"when action", "when @a => [", "]", "show @a"},
	{"for action", "for @a in @b => [", "]", "show @a"},
	{"for block", "for @a in @b [", "]", "show @a"},
	{"when match", "when @a [ @b => ", "]", "1"},
	{"when block", "when [ * => ", "]", "1"},
	{"exe block", "exe @f() = [", "]", "show @a"},
	{"if block", "if @a [", "]", "show @a"},
	{"run in block", "when @a => [ run ", "]", "@a"},
	{"return", "when @a => [ => ", "]", "1"},
	{"labeled return", "when @a => [ => pii when @a => [ ", "]]", "1"},
	{"allow operand", "when [ * => allow when [ * => ", "]]", "1"},
	{"return allow operand", "when @a => [ => allow when @a => [ ", "]]", "1"},
	{"output operand", "when @a => [ output when @a => [ ", "]]", "1"},
	{"effect operand", "@a | @f | show when @a => [ ", "]", "1"},
	{"optional item", "when @a => [ @a ? ", "]", "1"},
	{"call argument", "@f(when @a => [ ", "])", "1"},
	{"index", "@a[when @a => [ ", "]]", "1"},
	{"template call", "`@a(when @a => [ ", "])`", "1"},
}

// nestedVariants are the inputs built from a shape: closed or not, with a
// syntax error inside or not.
var nestedVariants = []struct {
	name        string
	closed, bad bool
}{
	{"closed", true, false},
	{"closed, error inside", true, true},
	{"unclosed", false, false},
	{"unclosed, error inside", false, true},
}

func nestedSource(s nestedShape, n int, closed, bad bool) string {
	body := s.body
	if bad {
		body += " )"
	}
	src := "var @x = " + strings.Repeat(s.open+"\n", n) + body + "\n"
	if closed {
		src += strings.Repeat(s.close+"\n", n)
	}
	return src
}

// parseWork is the allocation count of one parse: deterministic, unlike
// time, and proportional to the work participle does.
func parseWork(src string) float64 {
	return testing.AllocsPerRun(1, func() { _, _ = Parse("t.mld", []byte(src), ast.Strict) })
}

// Doubling the nesting must about double the work: backtracking made it
// grow as 2^n or 3^n.
func TestNestedBlocksParseInLinearWork(t *testing.T) {
	for _, s := range nestedShapes {
		for _, v := range nestedVariants {
			t.Run(s.name+"/"+v.name, func(t *testing.T) {
				small := parseWork(nestedSource(s, 8, v.closed, v.bad))
				large := parseWork(nestedSource(s, 16, v.closed, v.bad))
				require.Less(t, large/small, 3.0, "work for 8 levels: %.0f allocations, for 16: %.0f", small, large)
			})
		}
	}
}

// The inputs that took seconds (×10) to minutes (×12) now parse or fail
// in milliseconds; the bound is loose so that a loaded machine does not
// fail the test.
func TestDeeplyNestedBlocksParseQuickly(t *testing.T) {
	for _, s := range nestedShapes[:2] {
		for _, n := range []int{12, 20, 50} {
			for _, v := range nestedVariants {
				src := nestedSource(s, n, v.closed, v.bad)
				start := time.Now()
				_, err := Parse("t.mld", []byte(src), ast.Strict)
				elapsed := time.Since(start)
				require.Less(t, elapsed, 5*time.Second, "%s ×%d %s", s.name, n, v.name)
				if v.closed && !v.bad {
					require.NoError(t, err, "%s ×%d", s.name, n)
				} else {
					require.Error(t, err, "%s ×%d %s", s.name, n, v.name)
				}
			}
		}
	}
}

func BenchmarkParseNested(b *testing.B) {
	for _, s := range nestedShapes[:2] {
		for _, v := range nestedVariants {
			src := []byte(nestedSource(s, 50, v.closed, v.bad))
			b.Run(fmt.Sprintf("%s/%s", s.name, v.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					_, _ = Parse("t.mld", src, ast.Strict)
				}
			})
		}
	}
}
