package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// exe is an executable defined with `exe`: its parameters, body and the
// scope it was defined in (exes are closures over their module).
type exe struct {
	name   string
	params []ast.Param
	body   ast.Expr
	labels []string
	pos    ast.Pos
	sc     *scope
	mod    *module
}

// CallableName implements value.Callable.
func (x *exe) CallableName() string { return x.name }

// maxCallDepth bounds nested exe calls so that runaway recursion in a
// `recursive` exe is an error instead of a Go stack overflow.
const maxCallDepth = 400

// callOpts describe how an exe is called.
type callOpts struct {
	pos ast.Pos
	// stageInput is set when the exe runs as a pipeline stage: it is bound
	// as @input, commands get it on stdin, and surplus arguments are
	// dropped.
	stageInput *value.Variable
	// call is the invocation node, when there is one.
	call ast.Node
	// guards are the guard settings of the call (pipeline stages); nil
	// for a plain call.
	guards *guardCall
	// stage marks a call that runs as a pipeline stage: the operation is
	// a `pipeline-stage`, and guard replacements are ignored (SPEC §10
	// P12).
	stage bool
}

// node is the syntax node hooks see for the call.
func (o callOpts) node() ast.Node { return o.call }

func hasLabel(labels []string, l string) bool {
	for _, x := range labels {
		if x == l {
			return true
		}
	}
	return false
}

func (in *interp) callExe(e *env, x *exe, args []*value.Variable, o callOpts) (*value.Variable, error) {
	if err := in.checkCtx(o.pos); err != nil {
		return nil, err
	}
	if len(args) > len(x.params) {
		if o.stageInput == nil {
			return nil, newError(KindCall, o.pos, "remove the extra arguments or add parameters to the exe",
				"@%s expects %d argument(s) but got %d", x.name, len(x.params), len(args))
		}
		args = args[:len(x.params)]
	}
	if in.active[x] > 0 && !hasLabel(x.labels, "recursive") {
		return nil, newError(KindCall, o.pos, "declare it with `exe recursive @"+x.name+"(…)` if the recursion is intended",
			"Circular reference detected: executable '@%s' calls itself recursively", x.name)
	}
	if in.depth >= maxCallDepth {
		return nil, newError(KindCall, o.pos, "make sure the recursion reaches a base case",
			"Call depth limit exceeded (%d nested calls) in @%s", maxCallDepth, x.name)
	}
	in.active[x]++
	in.depth++
	defer func() { in.active[x]--; in.depth-- }()

	op := in.exeOperation(x, o.pos)
	if o.stage {
		op.Type, op.Subtype = "pipeline-stage", x.name
	}
	bind := func(args []*value.Variable) (*env, *string) {
		sc := newScope(x.sc)
		params := make([]codeParam, 0, len(x.params)+1)
		for i, p := range x.params {
			v := undefined()
			if i < len(args) {
				v = args[i]
			}
			sc.vars[p.Name] = v
			params = append(params, codeParam{name: p.Name, val: v})
		}
		var stdin *string
		if o.stageInput != nil {
			if _, bound := sc.vars["input"]; !bound {
				sc.vars["input"] = o.stageInput
				params = append(params, codeParam{name: "input", val: o.stageInput})
			}
			s := rawText(o.stageInput)
			stdin = &s
		}
		return &env{in: in, sc: sc, mod: x.mod, pipe: e.pipe, params: params}, stdin
	}
	res, err := in.hookedWith(e, o.node(), op, args, o.guards, func(ins []*value.Variable) (*value.Variable, error) {
		if o.stage {
			ins = args
		}
		ce, stdin := bind(ins)
		return in.runExeBody(ce, x, stdin)
	})
	if err != nil {
		if ge := asGuardError(err); ge != nil {
			if h, ok := deniedHandler(x); ok {
				ce, _ := bind(args)
				return in.runDeniedHandler(ce, x, h, ge, args, o.pos)
			}
			if ge.Timing == "after" {
				in.out.writeStderr("[Guard Warning] " + ge.Reason + "\n")
			}
		}
		return nil, atPos(err, KindCall, o.pos)
	}
	return res, nil
}

// runExeBody evaluates an exe's body in its call environment.
func (in *interp) runExeBody(ce *env, x *exe, stdin *string) (*value.Variable, error) {
	switch b := x.body.(type) {
	case *ast.CodeExpr:
		if b.Lang == "js" || b.Lang == "node" || b.Lang == "javascript" {
			stdin = nil
		}
		return in.runCode(ce, b, stdin)
	case *ast.WhenExpr:
		res, _, _, err := in.evalWhen(ce, b, false)
		return res, err
	case *ast.BlockExpr:
		res, _, err := in.runBlock(ce, b, false)
		return res, err
	}
	return in.evalExpr(ce, x.body)
}

// exeOperation describes a call of x (SPEC §5.5): its labels become data
// labels of the result; its operation labels (op:cmd:git, op:js…) are for
// checking only; template and block bodies add their source taint.
func (in *interp) exeOperation(x *exe, pos ast.Pos) *hooks.OperationContext {
	op := &hooks.OperationContext{Type: "exe", Name: x.name, Labels: x.labels, Location: location(pos)}
	names := make([]any, len(x.params))
	for i, p := range x.params {
		names[i] = p.Name
	}
	op.Metadata = map[string]any{"params": names}
	switch b := x.body.(type) {
	case *ast.CodeExpr:
		op.Command = commandText(b)
		op.OpLabels = codeOpLabels(b.Lang, op.Command)
	case *ast.WhenExpr, *ast.BlockExpr:
		op.Taint = []string{taint.SrcExe}
	default:
		op.Taint = []string{taint.SrcTemplate}
	}
	return op
}

// commandText is the literal text of a command body, interpolations
// dropped (what `@mx.op.command` shows, SPEC §10 P19).
func commandText(c *ast.CodeExpr) string {
	if c.Command == nil {
		return c.Code
	}
	var b strings.Builder
	for _, p := range c.Command.Parts {
		if t, ok := p.(*ast.TextPart); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
