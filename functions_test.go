package guardrun_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
)

// lookup is a Go function of one typed parameter: a table lookup.
var lookup = guardrun.Function{
	Name:   "lookup",
	Params: []guardrun.Param{{Name: "key", Type: guardrun.StringType}},
	Call: func(ctx context.Context, args []guardrun.Var) (any, error) {
		switch args[0].Value.(string) {
		case "boom":
			return nil, errors.New("backend down")
		case "panic":
			panic("nil map")
		case "chan":
			return make(chan int), nil
		}
		return map[string]any{"key": args[0].Value, "n": 3}, nil
	},
}

// A Go function is called as @name(args) from scripts, pipelines and
// exes; its result is converted from Go and carries the labels of its
// arguments.
func TestGoFunction(t *testing.T) {
	prg, err := guardrun.Compile("t.mld", []byte("var secret @k = \"a\"\nshow @lookup(\"x\").n\nvar @r = @lookup(@k)\nshow @r.mx.labels\nshow \"y\" | @lookup\n"),
		guardrun.WithFunctions(lookup))
	require.NoError(t, err)
	doc, e := runDoc(t, prg)
	require.Nil(t, e)
	require.Equal(t, "3\n[\"secret\"]\n{\n  \"key\": \"y\",\n  \"n\": 3\n}\n", doc)
}

// A result given as a Var has exactly its labels (a sanitizer may drop
// its input's); WithFunc registers a function of untyped parameters.
func TestGoFunctionResultLabels(t *testing.T) {
	redact := guardrun.WithFunc("redact", func(ctx context.Context, args []guardrun.Var) (any, error) {
		return guardrun.Labelled(strings.Repeat("*", len(args[0].Value.(string))), "redacted"), nil
	}, "text")
	prg, err := guardrun.Compile("t.mld", []byte("var secret @k = \"abc\"\nvar @r = @redact(@k)\nshow @r\nshow @r.mx.labels\n"), redact)
	require.NoError(t, err)
	doc, e := runDoc(t, prg)
	require.Nil(t, e)
	require.Equal(t, "***\n[\"redacted\"]\n", doc)
}

// A call is an operation guards see: a guard on op:exe or on the name
// refuses it before the function runs, with the arguments' labels.
func TestGoFunctionIsGuarded(t *testing.T) {
	var calls atomic.Int32
	send := guardrun.Function{Name: "send", Labels: []string{"net:w"}, Params: []guardrun.Param{{Name: "body"}},
		Call: func(ctx context.Context, args []guardrun.Var) (any, error) { calls.Add(1); return "sent", nil }}
	for _, g := range []string{
		"guard @noexfil before op:exe = when [ @mx.op.name == \"send\" && @input.any.mx.labels.includes(\"secret\") => deny \"no secrets out\" * => allow ]",
		"guard @noexfil before @send = when [ @mx.labels.includes(\"secret\") => deny \"no secrets out\" * => allow ]",
	} {
		prg, err := guardrun.Compile("t.mld", []byte("var secret @k = \"abc\"\n"+g+"\nshow @send(\"hello\")\nshow @send(@k)\n"),
			guardrun.WithFunctions(send))
		require.NoError(t, err)
		doc, e := runDoc(t, prg)
		require.NotNil(t, e, g)
		require.Equal(t, "sent\n", doc)
		require.Equal(t, guardrun.GuardErrorName, e.Name, e.Render())
		require.Equal(t, "@noexfil", e.Denial.Guard)
		require.Equal(t, 4, e.Pos.Line)
	}
	require.EqualValues(t, 2, calls.Load(), "the refused calls never ran")

	// A policy's label-flow rule sees the function's exe labels.
	prg, err := guardrun.Compile("t.mld", []byte("policy @p = { defaults: { rules: [\"no-secret-exfil\"] }, operations: { exfil: [\"net:w\"] } }\nvar secret @k = \"abc\"\nshow @send(@k)\n"),
		guardrun.WithFunctions(send))
	require.NoError(t, err)
	_, e := runDoc(t, prg)
	require.NotNil(t, e)
	require.Equal(t, guardrun.PolicyErrorName, e.Name, e.Render())
}

// Errors and panics inside the function, results with no value in the
// language and arguments of the wrong type are positioned errors of the
// script, never a crash; inside a guard they make the guard fail, so the
// operation is denied.
func TestGoFunctionFailures(t *testing.T) {
	for _, c := range []struct{ src, name, msg string }{
		{"show @lookup(\"boom\")", guardrun.FunctionErrorName, "Go function @lookup failed: backend down"},
		{"show @lookup(\"panic\")", guardrun.FunctionErrorName, "Go function @lookup panicked: nil map"},
		{"show @lookup(\"chan\")", guardrun.FunctionErrorName, "@lookup's result: a Go chan int"},
		{"show @lookup(1)", guardrun.CallErrorName, "argument key must be a string, not a number"},
		{"show @lookup()", guardrun.CallErrorName, "missing its argument key"},
		{"show @lookup(\"a\", \"b\")", guardrun.CallErrorName, "expects 1 argument(s) but got 2"},
	} {
		prg, err := guardrun.Compile("t.mld", []byte("show \"before\"\n"+c.src+"\n"), guardrun.WithFunctions(lookup))
		require.NoError(t, err)
		doc, e := runDoc(t, prg)
		require.NotNil(t, e, c.src)
		require.False(t, e.Internal())
		require.Equal(t, c.name, e.Name, "%s: %s", c.src, e.Render())
		require.Contains(t, e.Message, c.msg)
		require.Equal(t, 2, e.Pos.Line)
		require.NotEmpty(t, e.Hint)
		require.Equal(t, "before\n", doc)
	}

	prg, err := guardrun.Compile("t.mld", []byte("var secret @k = \"a\"\nguard @g before secret = when [\n  @lookup(\"panic\").n > 1 => allow\n  * => allow\n]\nshow @k\n"),
		guardrun.WithFunctions(lookup))
	require.NoError(t, err)
	_, e := runDoc(t, prg)
	require.NotNil(t, e)
	require.Equal(t, guardrun.GuardFailureName, e.Name, e.Render())
	require.Equal(t, 3, e.Pos.Line)
	require.Contains(t, e.Message, "panicked")
}

// Compile refuses functions whose names are not allowed or that the
// script defines too.
func TestGoFunctionRefused(t *testing.T) {
	call := func(ctx context.Context, args []guardrun.Var) (any, error) { return nil, nil }
	for _, c := range []struct {
		f    guardrun.Function
		src  string
		name string
		msg  string
	}{
		{guardrun.Function{Name: "json", Call: call}, "", guardrun.UsageErrorName, "builtin"},
		{guardrun.Function{Name: "mx", Call: call}, "", guardrun.UsageErrorName, "reserved"},
		{guardrun.Function{Name: "f"}, "", guardrun.UsageErrorName, "has no Call"},
		{guardrun.Function{Name: "f", Params: []guardrun.Param{{Name: ""}}, Call: call}, "", guardrun.UsageErrorName, "parameter 1"},
		{guardrun.Function{Name: "f", Call: call}, "exe @f() = `x`\n", guardrun.VariableErrorName, "clashes with the script's own @f"},
	} {
		_, err := guardrun.Compile("t.mld", []byte(c.src+"show \"1\"\n"), guardrun.WithFunctions(c.f))
		var e *guardrun.Error
		require.True(t, errors.As(err, &e), "%+v", c.f.Name)
		require.Equal(t, c.name, e.Name, e.Render())
		require.Contains(t, e.Message, c.msg)
	}
	_, err := guardrun.Compile("t.mld", []byte("show \"1\"\n"), guardrun.WithFunctions(lookup, lookup))
	require.ErrorContains(t, err, "registered twice")
}
