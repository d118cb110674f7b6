package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
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
	// op is the call description shared by every call of the exe, built
	// with the exe (exeOperation); each call copies it and sets its
	// position, so its map and slices are shared and must stay read-only.
	op *hooks.OperationContext
	// bodyFree is scopeFree(body): such a body cannot keep its call's
	// scope, so calls that are not nested in another call of the exe
	// reuse a spare variable map instead of making one.
	bodyFree bool
	// tmpl is a `template "path"` body, read when the exe was defined.
	tmpl *fileTemplate
	// id numbers the exe within its program: an evaluation keeps the
	// exe's call state at exes[id] (exeState). An exe is shared by every
	// evaluation of a loaded Machine and never written after it is made.
	id int
}

// exeRun is one evaluation's state of one exe: calls on the stack, the
// spare scope, memos.
type exeRun struct {
	// active counts the calls of the exe currently on the stack, to
	// report recursion instead of overflowing.
	active int
	// bodyMemo and taintMemo remember the last descriptor merges of a
	// template body and of its result (evalStringMemo, preTaint): calls
	// in a loop usually repeat them exactly.
	bodyMemo, taintMemo taint.Memo
	// lineageIn/Out remember the last result descriptor withToolLineage
	// extended and what it became.
	lineageIn, lineageOut taint.Descriptor
	lineageOK             bool
	// spare is the variable map of a scope-free body's outermost call.
	spare map[string]*value.Variable
}

// exeState is x's call state in this evaluation.
func (in *interp) exeState(x *exe) *exeRun {
	if x.id >= len(in.exes) {
		n := int(in.sh.exes.Load()) + 1
		if n <= x.id {
			n = x.id + 1
		}
		in.exes = append(in.exes, make([]*exeRun, n-len(in.exes))...)
	}
	r := in.exes[x.id]
	if r == nil {
		r = &exeRun{}
		in.exes[x.id] = r
	}
	return r
}

// newExe makes the exe d defines in e: its operation and numbering are
// worked out once, here.
func (in *interp) newExe(e *env, d *ast.ExeDirective) *exe {
	x := &exe{name: d.Name, params: d.Params, body: d.Body, labels: d.Labels, pos: d.Pos, sc: e.sc, mod: e.mod}
	x.id = int(in.sh.exes.Add(1)) - 1
	x.op = exeOperation(x)
	x.bodyFree = scopeFree(x.body)
	return x
}

// exeFrame is what one exe call allocates, in one piece: the hooks' view
// of the call, its operation, the body's environment and scope, and room
// for the arguments. A call used to make a dozen small
// allocations for these; anything that keeps one part (a closure over the
// scope, a guard holding the operation) keeps the frame alive, which is
// harmless.
type exeFrame struct {
	call hooks.Call
	op   hooks.OperationContext
	env  env
	sc   scope
	// args holds the evaluated arguments of a call of up to four (see
	// applyPath), so that they need no slice of their own.
	args [4]*value.Variable
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
	return in.callExeIn(e, x, args, o, nil)
}

// callExeIn is callExe in frame f, which the caller may have allocated
// early to evaluate the arguments into f.args; nil allocates one.
func (in *interp) callExeIn(e *env, x *exe, args []*value.Variable, o callOpts, f *exeFrame) (*value.Variable, error) {
	if err := in.checkCtx(o.pos); err != nil {
		return nil, err
	}
	if len(args) > len(x.params) {
		// As in mlld, surplus arguments are dropped. A stage's input
		// (args[0]) never is: the body reads it as @input and on stdin
		// even without a parameter, so the hooks, the policy and the
		// guards must see it as an input of the operation.
		keep := len(x.params)
		if o.stageInput != nil {
			keep = max(keep, 1)
		}
		args = args[:keep]
	}
	xr := in.exeState(x)
	if xr.active > 0 && !hasLabel(x.labels, "recursive") {
		return nil, newError(KindCall, o.pos, "declare it with `exe recursive @"+x.name+"(…)` if the recursion is intended",
			"Circular reference detected: executable '@%s' calls itself recursively", x.name)
	}
	if in.depth >= maxCallDepth {
		return nil, newError(KindCall, o.pos, "make sure the recursion reaches a base case",
			"Call depth limit exceeded (%d nested calls) in @%s", maxCallDepth, x.name)
	}
	xr.active++
	in.depth++
	defer func() { xr.active--; in.depth-- }()

	if f == nil {
		f = &exeFrame{}
	}
	f.op = *x.op
	f.op.Location = location(o.pos)
	if o.stage {
		f.op.Type, f.op.Subtype = "pipeline-stage", x.name
	}
	// bind makes the call environment; fr is the frame to build it in,
	// nil for a second binding (a denied handler), which allocates anew.
	bind := func(args []*value.Variable, fr *exeFrame) (*env, *value.Variable) {
		var sc *scope
		var params []codeParam
		if fr != nil {
			var vars map[string]*value.Variable
			if x.bodyFree && xr.active == 1 {
				if xr.spare == nil {
					xr.spare = make(map[string]*value.Variable, len(x.params)+1)
				}
				vars = xr.spare
				clear(vars)
			} else {
				vars = make(map[string]*value.Variable, len(x.params))
			}
			fr.sc = scope{vars: vars, parent: x.sc}
			sc = &fr.sc
			// Only code blocks read params (as language variables); a
			// scope-free body has none, and its call skips the slice.
			if !x.bodyFree {
				params = make([]codeParam, 0, len(x.params)+1)
			}
		} else {
			sc, params = newScope(x.sc), make([]codeParam, 0, len(x.params)+1)
		}
		for i, p := range x.params {
			var v *value.Variable
			if i < len(args) {
				v = args[i]
			} else {
				v = missingArg()
			}
			sc.vars[p.Name] = v
			if params != nil {
				params = append(params, codeParam{name: p.Name, val: v})
			}
		}
		if o.stageInput != nil {
			if _, bound := sc.vars["input"]; !bound {
				sc.vars["input"] = o.stageInput
				params = append(params, codeParam{name: "input", val: o.stageInput})
			}
		}
		stdin := o.stageInput
		if fr != nil {
			fr.env = env{in: in, sc: sc, mod: x.mod, pipe: e.pipe, params: params, iter: e.iter}
			return &fr.env, stdin
		}
		return &env{in: in, sc: sc, mod: x.mod, pipe: e.pipe, params: params, iter: e.iter}, stdin
	}
	node := o.node()
	f.call = hooks.Call{Node: node, Inputs: args, Env: e, Op: &f.op}
	res, err := in.runHooked(e, node, &f.call, o.guards, func(ins []*value.Variable) (*value.Variable, error) {
		if o.stage {
			ins = args
		}
		ce, stdin := bind(ins, f)
		res, err := in.runExeBody(ce, x, stdin)
		if err == nil && res != nil && freshResult(x.body) {
			preTaint(&f.call, res, &xr.taintMemo)
		}
		return res, err
	})
	in.recordToolCall(x.name)
	if err != nil {
		if ge := asGuardError(err); ge != nil {
			if h, ok := deniedHandler(x); ok {
				ce, _ := bind(args, nil)
				return in.runDeniedHandler(ce, x, h, ge, args, o.pos)
			}
			if ge.Timing == guard.After {
				in.out.writeStderr("[Guard Warning] " + ge.Reason + "\n")
			}
		}
		return nil, atPos(err, KindCall, o.pos)
	}
	if err := in.checkExeTrust(x, res, o.pos); err != nil {
		return nil, err
	}
	return in.withToolLineage(res, x), nil
}

// checkExeTrust refuses the result of an exe whose labels grant trust
// (`exe known @approve(…)`) when the result is untrusted data: exe labels
// become data labels of the result, and vouching for untrusted data takes
// a privileged guard.
func (in *interp) checkExeTrust(x *exe, res *value.Variable, pos ast.Pos) error {
	for _, l := range x.labels {
		if policy.GrantsTrust(l) && in.policy.CountsUntrusted(res.Security.Taint()) {
			return labelError(trustError("", l), pos)
		}
	}
	return nil
}

// runExeBody evaluates an exe's body in its call environment.
func (in *interp) runExeBody(ce *env, x *exe, stdin *value.Variable) (*value.Variable, error) {
	switch b := x.body.(type) {
	case *ast.CodeExpr:
		if b.Lang == "js" || b.Lang == "node" || b.Lang == "javascript" {
			stdin = nil
		}
		return in.runCode(ce, b, stdin)
	case *ast.WhenExpr:
		return in.evalWhenExpr(ce, b)
	case *ast.BlockExpr:
		res, _, err := in.runBlock(ce, b, false)
		return res, err
	case *ast.TemplateFile:
		if x.tmpl != nil {
			return in.evalFileTemplate(ce, x.tmpl)
		}
	}
	if s, ok := x.body.(*ast.StringLit); ok {
		return in.evalStringMemo(ce, s, &in.exeState(x).bodyMemo)
	}
	return in.evalExpr(ce, x.body)
}

// freshResult reports whether evaluating body always makes a new Variable
// (a template or quoted string: evalString), which the call may then
// change before anyone else sees it.
func freshResult(body ast.Expr) bool {
	_, ok := body.(*ast.StringLit)
	return ok
}

// exeOperation describes a call of x (SPEC §5.5): its labels become data
// labels of the result; its operation labels (op:cmd:git, op:js…) are for
// checking only; template and block bodies add their source taint. The
// description does not depend on the call, so it is built once per exe
// (without a location: the caller sets it) and shared.
func exeOperation(x *exe) *hooks.OperationContext {
	op := &hooks.OperationContext{Type: "exe", Name: x.name, Labels: x.labels}
	op.Params = make([]string, len(x.params))
	for i, p := range x.params {
		op.Params[i] = p.Name
	}
	switch b := x.body.(type) {
	case *ast.CodeExpr:
		op.Command = commandText(b)
		codeOpLabels(op, b.Lang, commandLine(b))
	case *ast.WhenExpr, *ast.BlockExpr:
		op.Taint = []string{taint.SrcExe}
	default:
		op.Taint = []string{taint.SrcTemplate}
	}
	return op
}

// commandLine is a command body as literal text and values, the values'
// text unknown: what operation labels are derived from, so that no value
// can add, hide or rename a command.
func commandLine(c *ast.CodeExpr) []policy.CommandPart {
	if c.Command == nil {
		return []policy.CommandPart{{Text: c.Code}}
	}
	parts := make([]policy.CommandPart, 0, len(c.Command.Parts))
	for _, p := range c.Command.Parts {
		if t, ok := p.(*ast.TextPart); ok {
			parts = append(parts, policy.CommandPart{Text: t.Text})
		} else {
			parts = append(parts, policy.CommandPart{Value: true})
		}
	}
	return parts
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
