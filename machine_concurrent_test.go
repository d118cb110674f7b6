package guardrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/guardrun/guardrun/interp/guard"
	"github.com/stretchr/testify/require"
)

// A loaded Machine decides from many goroutines at once, each decision in
// its own evaluation: guards calling helper exes (a template file, a
// when-exe calling another exe, JavaScript) give every goroutine the
// answer they give one alone, and no call of a shared exe is taken for
// recursion. Run with -race.
func TestMachineDecidesConcurrently(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "why.att"), []byte("no @name here"), 0o644))
	src := `exe @why(name) = template "why.att"
exe @bad(name) = js { return name.startsWith("Bad") }
exe @judge(name) = when [
  @bad(@name) && @why(@name) == "no @name here" => @why(@name)
  * => "fine"
]
guard @g before op:exe = when [
  @judge(@mx.op.name) != "fine" => deny "refused"
  * => allow
]
`
	prg, err := Compile("p.guard", []byte(src))
	require.NoError(t, err)
	m, err := prg.Load(context.Background(), WithDir(dir), WithStateDir(t.TempDir()))
	require.NoError(t, err)
	defer m.Close()

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				name := fmt.Sprintf("Good%d_%d", g, i)
				want := guard.Allow
				if i%2 == 0 {
					name, want = fmt.Sprintf("Bad%d_%d", g, i), guard.Deny
				}
				v := m.Before(context.Background(), exeOp(name))
				if v.Action != want {
					errs <- fmt.Errorf("%s: %s %q, want %s", name, v.Action, v.Reason, want)
					return
				}
				if want == guard.Deny && v.Reason != "refused" {
					errs <- fmt.Errorf("%s: reason %q", name, v.Reason)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
