package guardrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/stretchr/testify/require"
)

// frozenMsg is the error a decision gets when it changes a module
// variable of a loaded Machine (docs/embedding.md "The loaded program is
// frozen").
const frozenMsg = "cannot change @seen: module variables are frozen after load"

// A loaded program is frozen: 200 concurrent decisions whose guards reach
// a module variable through `+=` or `let` (in an exe block, a for, a when
// branch, a hook, an imported module's exe) each fail closed with the
// frozen error, and the loaded state is what the top level left. Each
// decision's own writes (block lets) are its own: a guard that
// accumulates the tool's name in a local sees exactly that. Run with
// -race: on a program whose decisions write the shared scope, the race
// detector reports it and the loaded @seen grows.
func TestFrozenModuleStateConcurrent(t *testing.T) {
	lib := `var @seen = []
exe @remember(x) = [
  @seen += [@x]
  => @seen
]
export { @remember, @seen }
`
	cases := []struct{ name, src string }{
		{"exe block", `var @seen = []
exe @remember(x) = [
  @seen += [@x]
  => @seen
]
guard @g before op:exe = when [
  @remember(@mx.op.name).length == 1 => allow
  * => deny "saw another decision's write"
]
`},
		{"let augment", `var @seen = []
exe @remember(x) = [
  let @seen += [@x]
  => @seen
]
guard @g before op:exe = when [
  @remember(@mx.op.name).length == 1 => allow
  * => deny "saw another decision's write"
]
`},
		{"for", `var @seen = []
exe @remember(x) = [
  for @i in [1, 2] [
    @seen += [@x]
  ]
  => @seen
]
guard @g before op:exe = when [
  @remember(@mx.op.name).length == 2 => allow
  * => deny "saw another decision's write"
]
`},
		{"when", `var @seen = []
exe @remember(x) = when [
  @x != "" => [
    @seen += [@x]
    => @seen
  ]
  * => @seen
]
guard @g before op:exe = when [
  @remember(@mx.op.name).length == 1 => allow
  * => deny "saw another decision's write"
]
`},
		// A hook's error is the hook's (it goes to @mx.hooks.errors of
		// the hooks after it), not the operation's: the decision allows,
		// and the loaded @seen stays empty.
		{"hook", `var @seen = []
hook before op:exe = [
  @seen += ["hooked"]
]
guard @g before op:exe = when [
  @seen.length == 0 => allow
  * => deny "saw another decision's write"
]
`},
		{"import", `import { @remember, @seen } from "./lib.mld"
guard @g before op:exe = when [
  @remember(@mx.op.name).length == 1 => allow
  * => deny "saw another decision's write"
]
`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "lib.mld"), []byte(lib), 0o644))
			prg, err := Compile(filepath.Join(dir, "p.guard"), []byte(tc.src))
			require.NoError(t, err)
			m, err := prg.Load(context.Background(), WithDir(dir), WithStateDir(t.TempDir()))
			require.NoError(t, err)
			defer m.Close()

			verdicts := make([]Verdict, 200)
			var wg sync.WaitGroup
			for i := range verdicts {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					verdicts[i] = m.Before(context.Background(), exeOp(fmt.Sprintf("tool%d", i)))
				}(i)
			}
			wg.Wait()
			for i, v := range verdicts {
				if tc.name == "hook" {
					require.Equal(t, guard.Allow, v.Action, "decision %d: %q", i, v.Reason)
					continue
				}
				if v.Action != guard.Deny || v.Class != interp.ClassError || !strings.Contains(v.Reason, frozenMsg) {
					t.Fatalf("decision %d: %s (%s) %q, want an error denial with %q", i, v.Action, v.Class, v.Reason, frozenMsg)
				}
			}
			seen, ok := m.Var("seen")
			require.True(t, ok)
			list, _ := seen.Data.([]any)
			require.Empty(t, list, "the loaded @seen changed: %s", value.Text(seen.Data))
		})
	}
}

// What a decision writes in its own frames (block lets, a for's
// accumulator) is its own: 200 concurrent decisions each see exactly
// their own writes, and the module variable they started from is as
// loaded.
func TestOwnWritesConcurrent(t *testing.T) {
	src := `var @orig = ["loaded"]
exe @collect(x) = [
  let @acc = @orig
  for @i in [1, 2, 3] [
    @acc += ["@x"]
  ]
  => @acc
]
guard @g before op:exe = when [
  @collect(@mx.op.name).join(",") == "loaded,@mx.op.name,@mx.op.name,@mx.op.name" => allow
  * => deny "saw another decision's write"
]
`
	prg, err := Compile("p.guard", []byte(src))
	require.NoError(t, err)
	m, err := prg.Load(context.Background(), WithStateDir(t.TempDir()))
	require.NoError(t, err)
	defer m.Close()

	verdicts := make([]Verdict, 200)
	var wg sync.WaitGroup
	for i := range verdicts {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			verdicts[i] = m.Before(context.Background(), exeOp(fmt.Sprintf("tool%d", i)))
		}(i)
	}
	wg.Wait()
	for i, v := range verdicts {
		require.Equal(t, guard.Allow, v.Action, "decision %d: %q", i, v.Reason)
	}
	base, ok := m.Var("orig")
	require.True(t, ok)
	require.Equal(t, []any{"loaded"}, base.Data)
}
