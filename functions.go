package guardrun

import (
	"context"

	"github.com/guardrun/guardrun/interp"
)

// Function is a Go function scripts, guards and policy helpers call as
// `@Name(args)`, registered on Compile (WithFunctions) and available to
// every Run and Load of the program. A call is an ordinary operation, as
// an exe's is (type exe, named Name, with Labels as its exe labels): a
// guard `before op:exe` or `before @Name`, a policy rule and a WithHooks
// hook see it and its arguments' labels, and may deny it before Call
// runs. Arguments are checked against Params first (count and Type);
// Call gets them as Go values with their labels. The result carries the
// union of the arguments' labels (and Labels' data labels) unless Call
// returns a Var, whose labels are then exactly the result's (a sanitizer
// may return Labelled(clean) with none).
//
// An error Call returns, or a panic inside it, is the script's
// FunctionError at the call, never a crash; inside a guard the guard
// fails and the operation it guards is denied (a GuardFailure). Call may
// run from several goroutines at once (concurrent runs, parallel loops,
// a Machine's decisions) under the run's or decision's context.
type Function = interp.Func

// Param is one typed parameter of a Function.
type Param = interp.Param

// Type is what a Function parameter accepts.
type Type = interp.Type

// Parameter types.
const (
	AnyType    = interp.Any
	StringType = interp.String
	NumberType = interp.Number
	BoolType   = interp.Bool
	ObjectType = interp.Object
	ArrayType  = interp.Array
)

// WithFunctions registers Go functions for the program's scripts. Compile
// refuses (UsageError) a name scripts cannot write, a builtin's or a
// reserved name (@mx, @input, guard and policy helpers), a name given
// twice, a Function without Call, and (VariableError at the script's
// definition) a name the script's own top level defines.
func WithFunctions(fs ...Function) CompileOption {
	return func(c *compileConfig) { c.funcs = append(c.funcs, fs...) }
}

// WithFunc registers one Go function of any arguments and no declared
// types: WithFunctions(Function{Name: name, Params: …, Call: fn}) with
// one parameter of AnyType per name in params.
func WithFunc(name string, fn func(ctx context.Context, args []Var) (any, error), params ...string) CompileOption {
	ps := make([]Param, len(params))
	for i, p := range params {
		ps[i] = Param{Name: p}
	}
	return WithFunctions(Function{Name: name, Params: ps, Call: fn})
}
