package interp

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// Func is a Go function a script, a guard or a policy's helper can call
// as `@name(args)` (Options.Funcs). A call is an ordinary operation, as
// an exe's is: type exe, named Name, with Labels as its exe labels, so
// guards (`before op:exe`, `before @name`), policies and hooks see it
// and its arguments' labels. The result carries the union of the
// arguments' labels (and Labels) unless Call returns a Var, whose labels
// are then the result's, exactly.
//
// An error Call returns, or a panic in it, is a FunctionError of the
// script at the call; inside a guard the guard fails, and the operation
// it guards is denied (fail closed). Call runs under the run's (or the
// decision's) context and may be called from several goroutines at once
// (concurrent runs, parallel loops, a Machine's decisions).
type Func struct {
	// Name is how scripts call it: `@Name(…)`.
	Name string
	// Params are its parameters: a call must give each (a missing one is
	// an error) of its Type, and no more.
	Params []Param
	// Labels are the exe labels of its calls' operation (`net:w`,
	// `exfil`, `safe`…), which guards and policy rules read.
	Labels []string
	// Call computes the result from the arguments, in Params order, each
	// as a Go value (nil, bool, float64, string, []any, map[string]any,
	// as its JSON would decode: value.ToGo) with its labels and sources. It returns a Go value as PrepareVars
	// takes one, or a Var to give the result labels of its own.
	Call func(ctx context.Context, args []Var) (any, error)
}

// Param is one parameter of a Func.
type Param struct {
	Name string
	Type Type
}

// Type is what a Func parameter accepts.
type Type int

// Parameter types.
const (
	// Any accepts every value (undefined arrives as nil).
	Any Type = iota
	String
	Number
	Bool
	// Object accepts an object (a Go map[string]any).
	Object
	// Array accepts an array (a Go []any).
	Array
)

// String names the type as errors show it.
func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case Number:
		return "number"
	case Bool:
		return "boolean"
	case Object:
		return "object"
	case Array:
		return "array"
	}
	return "any"
}

// accepts reports whether data is of type t.
func (t Type) accepts(data any) bool {
	switch t {
	case String:
		_, ok := data.(string)
		return ok
	case Number:
		_, ok := data.(float64)
		return ok
	case Bool:
		_, ok := data.(bool)
		return ok
	case Object:
		_, ok := data.(*value.Object)
		return ok
	case Array:
		_, ok := data.([]any)
		return ok
	}
	return true
}

// goFunc is a Func as a value scripts hold (`@f`), prepared once per
// program: its operation is shared by every call, which copies it.
type goFunc struct {
	fn *Func
	op hooks.OperationContext
	// v is the variable `@name` resolves to.
	v *value.Variable
}

// CallableName implements value.Callable.
func (g *goFunc) CallableName() string { return g.fn.Name }

// Funcs is a program's table of Go functions (PrepareFuncs), shared
// read-only by every run and decision of the program.
type Funcs struct {
	m map[string]*goFunc
}

// Names are the functions' names.
func (t *Funcs) Names() []string {
	if t == nil {
		return nil
	}
	out := make([]string, 0, len(t.m))
	for n := range t.m {
		out = append(out, n)
	}
	return out
}

// lookup is the variable `@name` of function name, if there is one.
func (t *Funcs) lookup(name string) (*value.Variable, bool) {
	if t == nil {
		return nil, false
	}
	g, ok := t.m[name]
	if !ok {
		return nil, false
	}
	return g.v, true
}

// PrepareFuncs checks fs (names, parameters, Call) and makes the
// program's table of them, for Options.Funcs; nil for none.
func PrepareFuncs(fs []Func) (*Funcs, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	out := make(map[string]*goFunc, len(fs))
	for i := range fs {
		f := fs[i]
		if err := CheckEmbedderName("function", f.Name); err != nil {
			return nil, err
		}
		if _, dup := out[f.Name]; dup {
			return nil, fmt.Errorf("function @%s is registered twice", f.Name)
		}
		if f.Call == nil {
			return nil, fmt.Errorf("function @%s has no Call", f.Name)
		}
		names := make([]string, len(f.Params))
		for j, p := range f.Params {
			if !isIdent(p.Name) {
				return nil, fmt.Errorf("function @%s: parameter %d has no usable name (%q)", f.Name, j+1, p.Name)
			}
			if p.Type < Any || p.Type > Array {
				return nil, fmt.Errorf("function @%s: parameter %s has an unknown type %d", f.Name, p.Name, int(p.Type))
			}
			names[j] = p.Name
		}
		for _, l := range f.Labels {
			if err := checkExeLabel(l); err != nil {
				return nil, fmt.Errorf("function @%s: %w", f.Name, err)
			}
		}
		f.Params = slices.Clone(f.Params)
		f.Labels = slices.Clone(f.Labels)
		g := &goFunc{fn: &f}
		g.op = hooks.OperationContext{Type: "exe", Name: f.Name, Labels: f.Labels, Params: names}
		g.v = value.New(g)
		out[f.Name] = g
	}
	return &Funcs{m: out}, nil
}

// checkExeLabel refuses an empty label or one with spaces.
func checkExeLabel(l string) error {
	if l == "" || strings.ContainsAny(l, " \t\n") {
		return fmt.Errorf("label %q is empty or has spaces", l)
	}
	return nil
}

// callGoFunc calls g at pos with args: a hooked operation like an exe
// call. The arguments are checked against the parameters first; the
// function runs once the pre-hooks (policy, guards, the embedder's)
// allowed the call.
func (in *interp) callGoFunc(e *env, g *goFunc, args []*value.Variable, pos ast.Pos) (*value.Variable, error) {
	if err := in.checkCtx(pos); err != nil {
		return nil, err
	}
	f := g.fn
	if len(args) > len(f.Params) {
		return nil, newError(KindCall, pos, "remove the extra arguments",
			"@%s expects %d argument(s) but got %d", f.Name, len(f.Params), len(args))
	}
	for i, p := range f.Params {
		if i >= len(args) {
			return nil, newError(KindCall, pos, "pass every parameter: @"+f.Name+signature(f),
				"@%s is missing its argument %s (%s)", f.Name, p.Name, p.Type)
		}
		if !p.Type.accepts(args[i].Data) {
			return nil, newError(KindCall, pos, "pass a "+p.Type.String()+": @"+f.Name+signature(f),
				"@%s: argument %s must be a %s, not a %s", f.Name, p.Name, p.Type, typeName(args[i].Data))
		}
	}
	if in.depth >= maxCallDepth {
		return nil, newError(KindCall, pos, "make sure the recursion reaches a base case",
			"Call depth limit exceeded (%d nested calls) in @%s", maxCallDepth, f.Name)
	}
	in.depth++
	defer func() { in.depth-- }()
	op := g.op
	op.Location = location(pos)
	call := &hooks.Call{Inputs: args, Env: e, Op: &op}
	res, err := in.runHooked(e, nil, call, nil, func(ins []*value.Variable) (*value.Variable, error) {
		res, explicit, err := in.runGoFunc(f, ins, pos)
		if err != nil {
			return nil, err
		}
		if explicit {
			// The function said which labels its result has: the taint
			// post-hook keeps them rather than adding the inputs'.
			call.Tainted = res
		}
		return res, nil
	})
	if err != nil {
		return nil, atPos(err, KindCall, pos)
	}
	in.recordToolCall(f.Name)
	return res, nil
}

// runGoFunc runs f's Call on args; explicit reports a result that is a
// Var. An error or a panic is the script's FunctionError at pos.
func (in *interp) runGoFunc(f *Func, args []*value.Variable, pos ast.Pos) (res *value.Variable, explicit bool, err error) {
	gargs := make([]Var, len(args))
	for i, a := range args {
		data, _ := value.ToGo(a.Data) // undefined is nil
		gargs[i] = Var{Value: data, Labels: a.Security.Labels(), Sources: a.Security.Sources()}
	}
	defer func() {
		if r := recover(); r != nil {
			res, explicit = nil, false
			err = &Error{Kind: KindFunction, Pos: pos, Message: fmt.Sprintf("Go function @%s panicked: %v", f.Name, r),
				Hint: "the embedder's function failed; the call (and a guard that made it) fails closed",
				// Not a PanicError: the embedder's code panicked, not
				// guardrun's.
				Err: fmt.Errorf("panic in Go function @%s: %v\n%s", f.Name, r, debug.Stack())}
		}
	}()
	out, cerr := f.Call(in.ctx, gargs)
	if cerr != nil {
		return nil, false, &Error{Kind: KindFunction, Pos: pos, Message: fmt.Sprintf("Go function @%s failed: %v", f.Name, cerr),
			Hint: "the embedder's function returned an error; the call (and a guard that made it) fails closed", Err: cerr}
	}
	switch r := out.(type) {
	case Var:
		explicit = true
	case *Var:
		explicit = r != nil
	}
	v, cerr := GoVariable(out, "@"+f.Name+"'s result")
	if cerr != nil {
		return nil, false, &Error{Kind: KindFunction, Pos: pos, Message: cerr.Error(),
			Hint: "the embedder's function must return nil, bool, numbers, strings, slices, maps with string keys, or a Var", Err: cerr}
	}
	if s, ok := v.Data.(string); ok {
		if err := in.stringFits(pos, "@"+f.Name, 0, len(s)); err != nil {
			return nil, false, err
		}
	}
	return v, explicit, nil
}

// signature is "(name: type, …)".
func signature(f *Func) string {
	s := "("
	for i, p := range f.Params {
		if i > 0 {
			s += ", "
		}
		s += p.Name + ": " + p.Type.String()
	}
	return s + ")"
}
