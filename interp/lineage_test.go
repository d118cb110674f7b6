package interp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

// TestLineageRuntime checks the interpreter's own lineage (the facade's
// static fallback is not involved here): the chain the run took, not
// every path the label may take.
func TestLineageRuntime(t *testing.T) {
	const exfil = `policy @prod = { defaults: { rules: ["no-secret-exfil"] }, operations: { exfil: ["net:w"] } }
exe net:w @post(body) = ` + "`posted @body`" + `
`
	for _, tc := range []struct{ name, script, want string }{
		{"only the branch taken", exfil + `var secret @a = "sk-a"
var secret @b = "sk-b"
var @mode = "b"
var @pick = when [
  @mode == "a" => @a
  * => @b
]
show @post(@pick)
`, "secret from @b (line 4) → @pick → @post"},
		{"the argument that carried it", exfil + `var secret @k = "sk"
var @plain = "hello"
exe @join(x, y) = ` + "`@x/@y`" + `
var @both = @join(@plain, @k)
show @post(@both)
`, "secret from @k (line 3) → @join(y) → @both → @post"},
		{"nested calls", exfil + `var secret @k = "sk"
exe @inner(v) = ` + "`<@v>`" + `
exe @outer(w) = @inner(@w)
var @r = @outer(@k)
show @post(@r)
`, "secret from @k (line 3) → @outer(w) → @inner(v) → @r → @post"},
		{"a file written and read back", exfil + `var secret @k = "sk"
output @k to "k.txt"
show @post(<k.txt>)
`, `secret from @k (line 3) → file "k.txt" (written line 4) → <k.txt> → @post`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := grammar.Parse("t.mld", []byte(tc.script), ast.Strict)
			require.NoError(t, err)
			var got [][]string
			_, err = interp.Run(context.Background(), doc, interp.Options{Dir: t.TempDir(),
				Explain: func(x interp.Explanation) { got = append(got, x.Lineage) }})
			require.Error(t, err)
			require.Equal(t, [][]string{{tc.want}}, got)
		})
	}
}

// TestLineageOffCostsNothing: the recorder exists only with an Explain
// callback (TestLineageRecorderOnlyWithExplain); here, per guarded exe
// call (the slope between runs of 100 and 200 calls, so the run's fixed
// cost cancels), a run with Explain pays for recording and one without
// stays within issue 4's budget of 20 allocations per guarded call. On
// the commit before the recorder, this script allocated 5.01 per call
// and 783 per run of 100 calls, the same as now without Explain.
func TestLineageOffCostsNothing(t *testing.T) {
	perCall := func(opts interp.Options) float64 {
		allocs := func(calls int) float64 {
			doc, err := grammar.Parse("bench.mld", []byte(guardedCallScript(fiveGuards, 3, calls)), ast.Strict)
			require.NoError(t, err)
			return testing.AllocsPerRun(5, func() {
				res, err := interp.Run(context.Background(), doc, opts)
				require.NoError(t, err)
				require.Equal(t, guardedCallWant(3, calls), res.Document)
			})
		}
		return (allocs(200) - allocs(100)) / 100
	}
	off := perCall(interp.Options{})
	on := perCall(interp.Options{Explain: func(interp.Explanation) {}})
	t.Logf("allocs per guarded exe call: %.2f without Explain, %.2f with", off, on)
	require.Greater(t, on, off, "the recorder should be recording with Explain set")
	require.LessOrEqual(t, off, 20.0)
}
