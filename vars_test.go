package guardrun_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
)

func runDoc(t *testing.T, prg *guardrun.Program, opts ...guardrun.RunOption) (string, *guardrun.Error) {
	t.Helper()
	res, err := prg.Run(context.Background(), opts...)
	if err != nil {
		var ge *guardrun.Error
		require.True(t, errors.As(err, &ge))
		return res.Document, ge
	}
	return res.Document, nil
}

// Per-call variables are read as @name, converted from Go (maps, slices,
// numbers, bools, nil), with the labels a Labelled value gives, which
// guards see as they see `var secret @x`.
func TestWithVars(t *testing.T) {
	prg, err := guardrun.Compile("t.mld", []byte("show `@req.user asks for @req.items.length() items (@req.urgent, @req.note)`\nshow @token.mx.labels\n"))
	require.NoError(t, err)
	doc, e := runDoc(t, prg, guardrun.WithVars(map[string]any{
		"req":   map[string]any{"user": "ada", "items": []int{1, 2, 3}, "urgent": true, "note": nil},
		"token": guardrun.Labelled("s3cr3t", "secret"),
	}))
	require.Nil(t, e)
	require.Equal(t, "ada asks for 3 items (true, null)\n[\"secret\"]\n", doc)

	// A guard sees the labels.
	prg, err = guardrun.Compile("t.mld", []byte("guard @nosecret before secret = when [ * => deny \"no secrets shown\" ]\nshow @token\n"))
	require.NoError(t, err)
	_, e = runDoc(t, prg, guardrun.WithVars(map[string]any{"token": guardrun.Labelled("s3cr3t", "secret")}))
	require.NotNil(t, e)
	require.Equal(t, guardrun.GuardErrorName, e.Name)
	require.Equal(t, []string{"secret"}, e.Denial.Labels)
	_, e = runDoc(t, prg, guardrun.WithVars(map[string]any{"token": "plain"}))
	require.Nil(t, e, "an unlabelled value passes")
}

// The variables are the run's own: one Program runs from many goroutines
// with different inputs. Run with -race.
func TestWithVarsConcurrent(t *testing.T) {
	prg, err := guardrun.Compile("t.mld", []byte("exe @greet(x) = `hi @x.name #@n`\nshow @greet(@req)\n"))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				res, err := prg.Run(context.Background(), guardrun.WithVars(map[string]any{
					"req": map[string]string{"name": fmt.Sprint("user", g)}, "n": i}))
				if err != nil {
					errs <- err
					return
				}
				if want := fmt.Sprintf("hi user%d #%d\n", g, i); res.Document != want {
					errs <- fmt.Errorf("got %q, want %q", res.Document, want)
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

// Names scripts cannot write or the language reserves, values with no
// meaning in the language and labels that are not data labels are
// refused at the call, naming what is wrong; a name the script defines
// too is refused at the script's definition.
func TestWithVarsRefused(t *testing.T) {
	prg, err := guardrun.Compile("t.mld", []byte("var @req = 1\nshow \"ran\"\n"))
	require.NoError(t, err)
	for _, c := range []struct {
		vars map[string]any
		name string
		msg  string
	}{
		{map[string]any{"mx": 1}, guardrun.UsageErrorName, "@mx is reserved"},
		{map[string]any{"input": 1}, guardrun.UsageErrorName, "@input is reserved"},
		{map[string]any{"opIs": 1}, guardrun.UsageErrorName, "guard helper"},
		{map[string]any{"json": 1}, guardrun.UsageErrorName, "builtin"},
		{map[string]any{"2x": 1}, guardrun.UsageErrorName, "not a name"},
		{map[string]any{"x": map[string]any{"ch": make(chan int)}}, guardrun.UsageErrorName, "@x.ch: a Go chan int"},
		{map[string]any{"x": []any{1, func() {}}}, guardrun.UsageErrorName, "@x[1]: a Go func()"},
		{map[string]any{"x": guardrun.Labelled(1, "!secret")}, guardrun.UsageErrorName, "label modification"},
		{map[string]any{"x": guardrun.Labelled(1, "op:cmd")}, guardrun.UsageErrorName, "operation label"},
		{map[string]any{"req": 2}, guardrun.VariableErrorName, "clashes with the script's own @req"},
	} {
		doc, e := runDoc(t, prg, guardrun.WithVars(c.vars))
		require.NotNil(t, e, "%v", c.vars)
		require.Equal(t, c.name, e.Name, "%v: %s", c.vars, e.Render())
		require.Contains(t, e.Message, c.msg)
		require.NotEmpty(t, e.Hint)
		require.Empty(t, doc, "nothing ran")
		if c.name == guardrun.VariableErrorName {
			require.Equal(t, 1, e.Pos.Line, "at the script's own definition")
		}
	}
}

// Imported modules do not see per-call variables: they are the main
// script's.
func TestWithVarsMainScriptOnly(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "m.mld", "exe @peek() = `@req`\nexport { @peek }\n")
	prg, err := guardrun.Compile("t.mld", []byte("import { @peek } from \"./m.mld\"\nshow @peek()\n"))
	require.NoError(t, err)
	doc, e := runDoc(t, prg, guardrun.WithDir(dir), guardrun.WithVars(map[string]any{"req": "secret-x"}))
	require.Nil(t, e)
	require.Equal(t, "@req\n", doc, "the module's template keeps the unknown reference as text")
}

// A loaded Machine's decisions each take their own per-call variables
// (Operation.Vars), read by its guards; the loaded state is not written,
// so concurrent decisions with different variables each see theirs.
// Load itself takes none.
func TestMachineDecisionVarsConcurrent(t *testing.T) {
	prg, err := guardrun.Compile("p.guard", []byte(`guard @limit before op:exe = when [
  @mx.op.name == "pay" && @amount > @budget => deny "over budget"
  * => allow
]
`))
	require.NoError(t, err)
	_, err = prg.Load(context.Background(), guardrun.WithVars(map[string]any{"budget": 1}))
	require.ErrorContains(t, err, "WithVars is given to Run, not to Load")

	m, err := prg.Load(context.Background())
	require.NoError(t, err)
	defer m.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				op := guardrun.Operation{Op: &hooks.OperationContext{Type: "exe", Name: "pay"},
					Vars: map[string]any{"amount": g * 10, "budget": 35}}
				want := guard.Allow
				if g*10 > 35 {
					want = guard.Deny
				}
				if v := m.Before(context.Background(), op); v.Action != want {
					errs <- fmt.Errorf("amount %d: %s %q, want %s", g*10, v.Action, v.Reason, want)
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
	_, ok := m.Var("amount")
	require.False(t, ok, "no decision wrote its variables into the loaded state")

	// A guard reading a variable the decision did not give fails closed.
	v := m.Before(context.Background(), guardrun.Operation{Op: &hooks.OperationContext{Type: "exe", Name: "pay"}})
	require.Equal(t, guard.Deny, v.Action)
	// Bad variables deny, naming the problem.
	v = m.Before(context.Background(), guardrun.Operation{Op: &hooks.OperationContext{Type: "exe", Name: "pay"},
		Vars: map[string]any{"mx": 1}})
	require.Equal(t, guard.Deny, v.Action)
	require.Contains(t, v.Reason, "@mx is reserved")
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
}
