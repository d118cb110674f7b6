package guardrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMemoryBudget runs scripts that build more than a small budget
// allows: each must end with a positioned LimitError, quickly, instead of
// taking the memory (or, with large inputs, the process).
func TestMemoryBudget(t *testing.T) {
	const budget = 8 << 20 // strings up to 1 MiB, output up to 4 MiB
	// @a is 400 KB.
	const big = "var @x = \"abcd\"\nvar @a = @x.repeat(100000)\n"
	cases := []struct {
		name, src string
		line      int
		want      string
	}{
		{"template", big + "var @b = `@a@a@a@a`\n", 3, "the template would build a string larger than 1 MiB"},
		{"doubling template", big + "var @b = `@a@a`\nvar @c = `@b@b`\n", 4, "the template would build"},
		{"template for loop", big + "var @b = ::\n/for @i in [1,2,3,4]\n@a\n/end\n::\n", 5, "the template would build"},
		{"join", big + "var @l = [@a, @a, @a]\nvar @b = @l.join(\"\")\n", 4, ".join() would build a string larger than 1 MiB"},
		{"replaceAll", big + "var @s = \"xxx\"\nvar @b = @s.replaceAll(\"x\", @a)\n", 4, ".replaceAll() would build"},
		{"padEnd", "var @s = \"x\"\nvar @b = @s.padEnd(2000000, \"y\")\n", 2, ".padEnd() would build"},
		{"json transform", big + "var @b = [@a, @a, @a] | @json\n", 3, "@json would build"},
		{"file", "var @f = <big.txt>\n", 1, "reading big.txt would build a string larger than 1 MiB"},
		{"command", big + "run cmd { echo @a @a @a }\n", 3, "the command would build a string larger than 1 MiB"},
		{"output", big + "show @a\nshow @a\nshow @a\nshow @a\nshow @a\nshow @a\n", 8, "the run's output (document, stdout and stderr) would pass 4 MiB"},
		{"heap", heapHog(), 0, "the run grew the heap by more than 8 MiB"},
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.txt"), make([]byte, 2<<20), 0o644))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prg, err := Compile("m.mld", []byte(c.src))
			require.NoError(t, err)
			start := time.Now()
			_, err = prg.Run(context.Background(), WithMemoryLimit(budget), WithDir(dir))
			require.Less(t, time.Since(start), 2*time.Second)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, "LimitError", e.Name, e.Message)
			require.Contains(t, e.Message, "memory limit exceeded: ")
			require.Contains(t, e.Message, c.want)
			require.Contains(t, e.Hint, "WithMemoryLimit")
			if c.line > 0 {
				require.Equal(t, c.line, e.Pos.Line, e.Message)
			} else {
				require.Positive(t, e.Pos.Line)
			}
		})
	}
}

// heapHog keeps 40 distinct 900 KB strings alive (36 MB): each fits the
// string cap, together they pass the budget. The heap is sampled every
// few milliseconds, so the script then waits in a command, which the
// watch interrupts.
func heapHog() string {
	var b strings.Builder
	b.WriteString("var @s = \"abc\"\nvar @h = @s.repeat(300000)\n")
	for i := 0; i < 40; i++ {
		b.WriteString("var @h" + strings.Repeat("x", i+1) + " = `@h" + strings.Repeat("x", i) + "`\n")
	}
	b.WriteString("run cmd { sleep 3 }\n")
	return b.String()
}

// TestMemoryBudgetLeavesSmallRunsAlone checks the budget does not get in
// the way of an ordinary run.
func TestMemoryBudgetLeavesSmallRunsAlone(t *testing.T) {
	prg, err := Compile("m.mld", []byte("var @x = \"ab\"\nvar @a = @x.repeat(1000)\nvar @b = `@a@a`\nshow @b.length\n"))
	require.NoError(t, err)
	res, err := prg.Run(context.Background(), WithMemoryLimit(8<<20))
	require.NoError(t, err)
	require.Equal(t, "4000\n", res.Document)
}
