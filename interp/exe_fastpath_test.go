package interp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

func runFastScript(t *testing.T, script string) string {
	t.Helper()
	doc, err := grammar.Parse("fast.mld", []byte(script), ast.Strict)
	require.NoError(t, err)
	res, err := interp.Run(context.Background(), doc, interp.Options{})
	require.NoError(t, err)
	return res.Document
}

// TestExeCallCachesFollowArguments: an exe remembers its last descriptor
// merges and reuses its variable map between calls; calls with other
// labels, calls nested in its own body's interpolations and loops over
// different elements must still see their own values and labels.
func TestExeCallCachesFollowArguments(t *testing.T) {
	got := runFastScript(t, `var secret @a = "A"
var pii @b = "B"
var @c = "C"
exe @g(y) = `+"`[@y]`"+`
exe @f(x) = `+"`@x-@g(@x)`"+`
show @f(@a).mx.labels
show @f(@b).mx.labels
show @f(@a).mx.taint
show @f(@c).mx.taint
show @f(@b)
var @out = for @v in [@a, @c] => @f(@v)
show @out
show @out.mx.labels
var @o2 = for @v in ["p", "q"] => @g(@v)
show @o2
`)
	require.Equal(t, `["secret"]
["pii"]
[
  "secret",
  "src:template"
]
["src:template"]
B-[B]
[
  "A-[A]",
  "C-[C]"
]
["secret"]
[
  "[p]",
  "[q]"
]
`, got)
}

// TestLoopIterationsKeepTheirOwnVariables: iterations whose body cannot
// capture its scope share one variable map; the key and element of each
// iteration, and nested loops, must not leak into one another.
func TestLoopIterationsKeepTheirOwnVariables(t *testing.T) {
	got := runFastScript(t, `exe @pair(a, b) = `+"`@a@b`"+`
var @xs = ["x", "y"]
var @out = for @i in [1, 2] => for @x in @xs => @pair(@i, @x)
show @out
`)
	require.Equal(t, `[
  [
    "1x",
    "1y"
  ],
  [
    "2x",
    "2y"
  ]
]
`, got)
}
