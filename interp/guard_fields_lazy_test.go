package interp_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

// lazyFieldsScript runs 40 exe calls of a secret under a guard that
// calls an exe (so its context is built in full) and an earlier guard
// (so the trace is not empty); reader is the body of the exe the guard
// calls.
func lazyFieldsScript(reader string) string {
	return `exe @reader(c) = ` + reader + `
var secret @k = "v"
guard @first before secret = when [ * => allow ]
guard @second before secret = when [
  @reader(@mx.op.name) == "never" => deny "no"
  * => allow
]
exe @f(x) = ` + "`@x`" + `
var @n = for @i in [` + strings.Repeat("1,", 39) + `1] => @f(@k)
show @n.length
`
}

// @mx.guard is built when a guard (or an exe it calls) reads it, and
// then holds what it always did; a guard that never reads it does not
// pay for building it.
func TestGuardFieldsBuiltWhenRead(t *testing.T) {
	run := func(script string) (string, float64) {
		dir := t.TempDir()
		path := filepath.Join(dir, "example.mld")
		doc, err := grammar.Parse(path, []byte(script), ast.Strict)
		require.NoError(t, err)
		var out string
		allocs := testing.AllocsPerRun(3, func() {
			res, err := interp.Run(context.Background(), doc, interp.Options{Dir: dir, Parse: grammar.Parse})
			require.NoError(t, err)
			out = strings.TrimSpace(res.Document)
		})
		return out, allocs
	}
	readsName, withFields := run(lazyFieldsScript("`@c:@mx.guard.name:@mx.guard.timing:@mx.guard.trace.length`"))
	require.Equal(t, "40", readsName)
	// What the exe saw, shown once.
	seen, _ := run(`exe @reader(c) = ` + "`@c:@mx.guard.name:@mx.guard.timing:@mx.guard.trace.length`" + `
var secret @k = "v"
guard @first before secret = when [ * => allow ]
guard @second before secret = when [
  @reader(@mx.op.name) == "never" => deny "no"
  * => allow @reader(@mx.op.name)
]
exe @f(x) = ` + "`@x`" + `
show @f(@k)
`)
	// The exe the guard called read the guard's own @mx.guard.
	require.Equal(t, "f:second:before:1", seen)
	_, without := run(lazyFieldsScript("`@c`"))
	t.Logf("allocations per run: %v reading @mx.guard, %v not", withFields, without)
	// 40 calls; building @mx.guard (with a trace) takes dozens of
	// allocations each time, reading it a handful.
	require.Greater(t, withFields-without, 40*25.0, "a guard that never reads @mx.guard still builds it (%v vs %v allocations)", withFields, without)
}
