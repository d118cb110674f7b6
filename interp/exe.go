package interp

import (
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
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
}

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
	ce := &env{in: in, sc: sc, mod: x.mod, pipe: e.pipe, params: params}

	var res *value.Variable
	var err error
	medium := "src:template"
	switch b := x.body.(type) {
	case *ast.CodeExpr:
		if b.Lang == "js" || b.Lang == "node" || b.Lang == "javascript" {
			stdin = nil
		}
		res, err = in.runCode(ce, b, stdin)
		medium = ""
	case *ast.WhenExpr:
		res, _, _, err = in.evalWhen(ce, b, false)
		medium = "src:exe"
	case *ast.BlockExpr:
		res, _, err = in.runBlock(ce, b, false)
		medium = "src:exe"
	default:
		res, err = in.evalExpr(ce, b)
	}
	if err != nil {
		return nil, atPos(err, KindCall, o.pos)
	}
	if res == nil {
		res = undefined()
	}
	out := *res
	for _, a := range args {
		out.Security = mergeDesc(out.Security, a.Security)
	}
	out.Security = addLabels(out.Security, x.labels...)
	if medium != "" {
		out.Security = addTaint(out.Security, medium)
	}
	return &out, nil
}
