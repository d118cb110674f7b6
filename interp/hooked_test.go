package interp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

func runWithHooks(t *testing.T, src string, register func(*hooks.Manager)) (*interp.Result, error) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "t.mld")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	doc, err := grammar.Parse(file, []byte(src), ast.Strict)
	require.NoError(t, err)
	return interp.Run(context.Background(), doc, interp.Options{Dir: dir, RegisterHooks: register})
}

// opRecorder records every operation the pre-hooks see as
// "type/subtype name [inputs]".
func opRecorder(log *[]string) func(*hooks.Manager) {
	return func(m *hooks.Manager) {
		m.RegisterPre("record", func(c *hooks.Call) (hooks.Decision, error) {
			var ins []string
			for _, in := range c.Inputs {
				ins = append(ins, fmt.Sprintf("%s%v", value.Text(in.Data), in.Security.Labels()))
			}
			*log = append(*log, fmt.Sprintf("%s/%s %s %s", c.Op.Type, c.Op.Subtype, c.Op.Name, strings.Join(ins, ",")))
			return hooks.Decision{}, nil
		})
	}
}

// TestHookedOperations: directives and user exe calls are hooked with the
// inputs SPEC §5.5 names; builtin helpers, methods and control flow are
// not.
func TestHookedOperations(t *testing.T) {
	var log []string
	_, err := runWithHooks(t, `var secret @k = "s"
exe net:w @post(v) = `+"`p:@v`"+`
var @up = @k.toUpperCase() | @upper
show @post(@k)
for @x in [1] => log @x
output @k to "o.txt"
append @k to "a.txt"
run cmd {echo @k there}
`, opRecorder(&log))
	require.NoError(t, err)
	require.Equal(t, []string{
		"var/var k s[secret]",
		"exe/exeTemplate post ",
		"var/var up S[secret]",
		"exe/ post s[secret]",
		"show/showInvocation post p:s[secret net:w]",
		"log/outputStream x 1[]",
		"output/outputFile k s[secret]",
		"append/appendFile k s[secret]",
		"run/runCommand  echo s there[secret]",
	}, log)
}

func TestOperationContextFields(t *testing.T) {
	var ops []*hooks.OperationContext
	_, err := runWithHooks(t, `var @x = "hi"
exe @g(v) = cmd {printf ok @v}
var @r = @g(@x)
run cmd {echo @x there}
`, func(m *hooks.Manager) {
		m.RegisterPre("ops", func(c *hooks.Call) (hooks.Decision, error) {
			ops = append(ops, c.Op)
			return hooks.Decision{}, nil
		})
	})
	require.NoError(t, err)
	call := ops[2]
	require.Equal(t, "exe", call.Type)
	require.Equal(t, "g", call.Name)
	require.Equal(t, []string{"op:cmd", "op:cmd:printf", "op:cmd:printf:ok"}, call.OpLabels)
	require.Equal(t, []string{"v"}, call.Params)
	require.Equal(t, 3, call.Location.Line)
	run := ops[4]
	require.Equal(t, "runCommand", run.Subtype)
	require.Equal(t, "echo  there", run.Command)
	require.Equal(t, []string{"op:cmd", "op:cmd:echo", "op:cmd:echo:there"}, run.OpLabels)
}

func TestMxOpDuringExeBody(t *testing.T) {
	res, err := runWithHooks(t, `exe net:w @f(v) = `+"`@mx.op.type @mx.op.name @mx.op.labels`"+`
show @f("x")
`, nil)
	require.NoError(t, err)
	require.Equal(t, "exe f [\"net:w\"]\n", res.Document)
}

// TestDenyStopsTheEffect: a denying pre-hook fails the operation and its
// effect never happens.
func TestDenyStopsTheEffect(t *testing.T) {
	deny := func(m *hooks.Manager) {
		m.RegisterPre("no-secrets", func(c *hooks.Call) (hooks.Decision, error) {
			for _, in := range c.Inputs {
				if in.Security.HasLabel("secret") && c.Op.Type != "var" {
					return hooks.Decision{Action: hooks.Deny, Reason: "secret may not flow to " + c.Op.Type}, nil
				}
			}
			return hooks.Decision{}, nil
		})
	}
	res, err := runWithHooks(t, "var secret @k = \"s\"\nshow \"before\"\nshow `x @k`\nshow \"after\"\n", deny)
	var ie *interp.Error
	require.True(t, errors.As(err, &ie), "%v", err)
	require.Equal(t, interp.KindDenied, ie.Kind)
	require.Equal(t, 3, ie.Pos.Line)
	require.Contains(t, ie.Message, "secret may not flow to show")
	require.Equal(t, "before\n", res.Document)

	_, err = runWithHooks(t, "var secret @k = \"s\"\noutput @k to \"f.txt\"\n", deny)
	require.ErrorContains(t, err, "secret may not flow to output")
}

// TestFailingHookDenies: a hook that errors or panics fails the operation
// closed.
func TestFailingHookDenies(t *testing.T) {
	res, err := runWithHooks(t, "show \"a\"\n", func(m *hooks.Manager) {
		m.RegisterPre("broken", func(*hooks.Call) (hooks.Decision, error) { panic("nil map") })
	})
	require.ErrorContains(t, err, "hook broken failed: nil map")
	require.Equal(t, "", res.Document)
}

// TestTaintPostHookMergesExeLabels: the default post-hook gives an exe's
// result its arguments' labels and the exe's own labels, never op labels.
func TestTaintPostHookMergesExeLabels(t *testing.T) {
	res, err := runWithHooks(t, `var secret @a = "1"
var pii @b = "2"
exe net:w @f(x, y) = cmd {echo ok}
var @r = @f(@a, @b)
show `+"`@r.mx.labels @r.mx.taint`"+`
`, nil)
	require.NoError(t, err)
	// Merging puts each descriptor's labels before its taint (SPEC §4.1),
	// so the exe label precedes src:cmd once the result is stored.
	require.Equal(t, "[\"secret\",\"pii\",\"net:w\"] [\"secret\",\"pii\",\"net:w\",\"src:cmd\"]\n", res.Document)
}

// TestShowTemplateInputsAreInterpolatedValues: a shown template's inputs
// are the values it interpolates, each with its own labels (SPEC §5.5).
func TestShowTemplateInputsAreInterpolatedValues(t *testing.T) {
	var log []string
	res, err := runWithHooks(t, "var secret @a = \"A\"\nvar pii @b = \"B\"\nshow `x @a y @b`\nshow 'no @a'\n", opRecorder(&log))
	require.NoError(t, err)
	require.Equal(t, "x A y B\nno @a\n", res.Document)
	require.Equal(t, []string{
		"var/var a A[secret]",
		"var/var b B[pii]",
		"show/showTemplate  A[secret],B[pii]",
		"show/showTemplate  no @a[]",
	}, log)
}
