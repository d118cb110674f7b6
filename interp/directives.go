package interp

import (
	"context"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// execDocument runs a document's prose and directives in order.
func (in *interp) execDocument(e *env, doc *ast.Document) error {
	// Before the first directive: a module that needs a missing engine
	// must not half-run.
	if err := CheckEngines(doc); err != nil {
		return err
	}
	if e.mod.doc == nil {
		e.mod.doc = doc
	}
	// A run resolves the document's imports before its first directive,
	// so nothing runs (no output, no command) before a missing module is
	// reported. Load needs no such pass: it runs the whole top level
	// before any decision, so a missing import fails Load all the same,
	// and a hook process does not pay a stat per import.
	if !in.external {
		if err := in.checkImports(e, doc); err != nil {
			return err
		}
	}
	if doc.Frontmatter != "" {
		e.sc.vars["fm"] = value.New(parseFrontmatter(doc.Frontmatter))
	}
	for _, n := range doc.Body {
		if err := in.checkCtx(n.Position()); err != nil {
			return err
		}
		switch d := n.(type) {
		case *ast.Prose:
			in.out.prose(d.Text)
		case ast.Directive:
			in.curPos = d.Position()
			if ran, stop, err := in.topLevelReturn(e, d); ran {
				if err != nil {
					return unansweredRetry(err, d.Position())
				}
				if stop {
					return nil
				}
				continue
			}
			if err := in.execDirective(e, d); err != nil {
				return unansweredRetry(err, d.Position())
			}
		}
	}
	return nil
}

func (in *interp) checkCtx(pos ast.Pos) error {
	if err := in.ctx.Err(); err != nil {
		if context.Cause(in.ctx) == errMemoryBudget {
			return in.overBudget(pos)
		}
		return &Error{Kind: KindInterrupt, Pos: pos, Message: "run interrupted: " + err.Error(), Hint: "the run was cancelled or hit its deadline", Err: err}
	}
	return nil
}

// execDirective runs one statement. Values produced by expression
// statements are discarded.
func (in *interp) execDirective(e *env, d ast.Directive) error {
	_, err := in.execStatement(e, d)
	return err
}

// execStatement runs one statement and returns the value it yields (show
// returns the shown value, run its output, an expression statement its
// value).
func (in *interp) execStatement(e *env, d ast.Directive) (*value.Variable, error) {
	switch d := d.(type) {
	case *ast.VarDirective:
		return undefined(), in.retrying(d.Pos, replayableValue(d.Value), true, func() error {
			return in.execVar(e, d)
		})
	case *ast.ShowDirective:
		var shown *value.Variable
		err := in.retrying(d.Pos, showReplayable(d.Value), false, func() error {
			v, err := in.execShow(e, d)
			shown = v
			return err
		})
		return shown, err
	case *ast.ExeDirective:
		return undefined(), in.execExe(e, d)
	case *ast.RunDirective:
		return in.execRun(e, d)
	case *ast.WhenDirective:
		v, _, _, err := in.evalWhen(e, d.When, true)
		return v, err
	case *ast.ForDirective:
		_, err := in.evalFor(e, d.For, false)
		return undefined(), err
	case *ast.ShadowDirective:
		return undefined(), in.execShadow(e, d)
	case *ast.LoopDirective:
		_, err := in.evalLoop(e, d.Loop)
		return undefined(), err
	case *ast.IfDirective:
		v, _, err := in.execIf(e, d)
		return v, err
	case *ast.OutputDirective:
		return undefined(), in.execEffect(e, d, d.Value, d.Target, false)
	case *ast.AppendDirective:
		return undefined(), in.execEffect(e, d, d.Value, d.Target, true)
	case *ast.LogDirective:
		return undefined(), in.execLog(e, d)
	case *ast.BailDirective:
		return nil, in.execBail(e, d)
	case *ast.ImportDirective:
		return undefined(), in.execImport(e, d)
	case *ast.ExportDirective:
		e.mod.hasExport = true
		if d.All {
			e.mod.exportAll = true
		}
		e.mod.exports = append(e.mod.exports, d.Names...)
		return undefined(), nil
	case *ast.GuardDirective:
		return undefined(), in.execGuard(e, d)
	case *ast.HookDirective:
		return undefined(), in.execHook(e, d)
	case *ast.PolicyDirective:
		return undefined(), in.execPolicy(e, d)
	case *ast.LetStmt:
		if err := letMayBind(e, d); err != nil {
			return nil, err
		}
		v, err := in.evalExpr(e, d.Value)
		if err != nil {
			return nil, atPos(err, KindUnexpected, d.Pos)
		}
		if resolverName(d.Name) {
			return nil, reservedError(d.Name, d.Pos)
		}
		if e.sc.frozen {
			return nil, frozenError(d.Name, d.Pos)
		}
		e.sc.set(d.Name, v)
		if e.sc != e.mod.root {
			e.sc.set(letMark+d.Name, nil)
		}
		return undefined(), nil
	case *ast.AugmentStmt:
		return undefined(), in.execAugment(e, d)
	case *ast.ReturnStmt:
		v, err := in.returnValue(e, d.Value)
		if err != nil {
			return nil, atPos(err, KindUnexpected, d.Pos)
		}
		v, err = in.declaredLabels(v, d.Labels, d.Pos)
		if err != nil {
			return nil, err
		}
		if e.sc == e.mod.root {
			in.out.both(withNewline(in.displayText(v)))
		}
		return v, nil
	case *ast.ExprStmt:
		v, err := in.evalExpr(e, d.Value)
		if err != nil {
			return nil, atPos(err, KindUnexpected, d.Pos)
		}
		return v, nil
	}
	return nil, newError(KindUnexpected, d.Position(), "", "unsupported directive %T", d)
}

// returnValue evaluates the value of `=> value`. mlld evaluates it as an
// expression (exe-return.ts), where a reference to a variable that does
// not exist, with fields or indexes but no call or pipe, is empty text:
// `=> @result` at the top level ends the script showing nothing. Inside
// guards, and under strict references, it stays an error.
func (in *interp) returnValue(e *env, x ast.Expr) (*value.Variable, error) {
	if r, ok := x.(*ast.Ref); ok && !e.strictRefs && !e.in.mx.InGuard() && !refCalls(r) && e.unboundName(r.Name) {
		return value.New(""), nil
	}
	return in.evalExpr(e, x)
}

// refCalls reports whether a reference invokes something on its path.
func refCalls(r *ast.Ref) bool {
	for _, a := range r.Path {
		if a.Kind == ast.AccessCall {
			return true
		}
	}
	return false
}

// letMark prefixes the key under which a block scope records that it
// bound a name with let; no variable name can start with it.
const letMark = "\x00let:"

// letMayBind reports an error when a let would shadow a variable that
// was not itself bound by let: as in mlld, a block may rebind its own or
// an enclosing block's let names, and an imported name, but not a var,
// an exe's parameter or a for loop's variable, except inside a when
// expression.
func letMayBind(e *env, d *ast.LetStmt) error {
	_, owner := e.sc.lookup(d.Name)
	if owner == nil {
		return nil
	}
	for c := e.sc; c != owner; c = c.parent {
		if _, ok := c.vars[whenExprMark]; ok {
			// Inside a when expression let may shadow anything.
			return nil
		}
	}
	if owner == e.mod.root {
		if e.mod.imported[d.Name] || e.sc == e.mod.root {
			return nil
		}
		return redefinitionError(d.Name, d.Pos)
	}
	if _, isLet := owner.vars[letMark+d.Name]; isLet {
		return nil
	}
	return redefinitionError(d.Name, d.Pos)
}

func redefinitionError(name string, pos ast.Pos) error {
	return newError(KindVariable, pos,
		"Variables in mlld are immutable by design. Use a different variable name or remove one of the definitions.",
		"Variable '%s' is already defined and cannot be redefined.", name)
}

// resolverName reports whether mlld reserves name for one of its
// built-in resolvers (Environment.registerBuiltinResolvers): a script
// cannot declare a variable, exe or loop variable of that name, nor
// import one, though a parameter may have it. A directory's entry
// selected by its own name (`import { @base } from "./team"`) is named
// by the file system; mlld has no directory imports, and it is bound.
func resolverName(name string) bool {
	switch name {
	case "input", "base", "root", "now", "debug", "keychain":
		return true
	}
	return false
}

// reservedError is mlld's error for declaring a resolver's name.
func reservedError(name string, pos ast.Pos) error {
	return newError(KindVariable, pos, "choose another name: @input, @base, @root, @now, @debug and @keychain are reserved, as in mlld",
		"Cannot create variable '@%s': this name is already reserved by the system or a resolver prefix", name)
}

func (in *interp) define(e *env, name string, v *value.Variable, pos ast.Pos) error {
	if _, exists := e.sc.vars[name]; exists {
		return redefinitionError(name, pos)
	}
	if e.sc.frozen {
		return frozenError(name, pos)
	}
	if err := in.embedderName(e, name, pos); err != nil {
		return err
	}
	e.sc.set(name, v)
	return nil
}

func (in *interp) execVar(e *env, d *ast.VarDirective) error {
	if _, exists := e.sc.vars[d.Name]; exists {
		return redefinitionError(d.Name, d.Pos)
	}
	if e.sc.frozen {
		return frozenError(d.Name, d.Pos)
	}
	v, err := in.evalExpr(e, d.Value)
	if err != nil {
		return atPos(err, KindUnexpected, d.Pos)
	}
	if err := retryOutsidePipeline(v, d.Pos); err != nil {
		return err
	}
	if isSkip(v) {
		v = undefined()
	}
	deferTemplate(e, d.Value, v)
	if _, undef := v.Data.(value.Undefined); undef && isOperatorExpr(d.Value) {
		// mlld stores an operator expression's undefined result as the
		// text "undefined" (`var @x = @a && @b` with neither defined).
		v = derived("undefined", v)
	}
	labelled, err := in.declaredLabels(v, d.Labels, d.Pos)
	if err != nil {
		return err
	}
	// The variable is a value of its own, not an alias of its source.
	c := *labelled
	op := &hooks.OperationContext{Type: "var", Subtype: "var", Name: d.Name, Labels: d.Labels, Location: location(d.Pos)}
	stored, err := in.hooked(e, d, op, []*value.Variable{&c}, firstInput)
	if err != nil {
		return err
	}
	if d.Tools {
		if err := in.addToolCollection(d, stored); err != nil {
			return err
		}
	}
	if resolverName(d.Name) {
		return reservedError(d.Name, d.Pos)
	}
	return in.define(e, d.Name, stored, d.Pos)
}

// isOperatorExpr reports whether x is a unary, binary or ternary
// expression.
func isOperatorExpr(x ast.Expr) bool {
	switch x.(type) {
	case *ast.UnaryExpr, *ast.BinaryExpr, *ast.TernaryExpr:
		return true
	}
	return false
}

// firstInput is the body of an operation whose result is its (possibly
// transformed) single input.
func firstInput(inputs []*value.Variable) (*value.Variable, error) { return inputs[0], nil }

func (in *interp) execShow(e *env, d *ast.ShowDirective) (*value.Variable, error) {
	// A shown variable piped or given options is still a shown variable:
	// guards see the variable, and a replacement feeds the pipeline
	// (SPEC §10 P12). The with-clause's guard override covers the show.
	if pe, ok := d.Value.(*ast.PipelineExpr); ok {
		if r, ok := pe.Source.(*ast.Ref); ok && !isInvocation(r) {
			return in.showPiped(e, d, pe, r)
		}
		oe, err := in.withOverride(e, pe.With)
		if err != nil {
			return nil, atPos(err, KindGuard, d.Pos)
		}
		e = oe
	}
	ve := e
	// parts is allocated only for a template: its address escapes.
	var parts *[]*value.Variable
	tmpl, isTemplate := d.Value.(*ast.StringLit)
	if isTemplate {
		// The inputs of a shown template are the values it interpolates.
		parts = new([]*value.Variable)
		c := *e
		c.interpolated = parts
		ve = &c
	}
	shownExpr := d.Value
	if fl, ok := shownExpr.(*ast.FileLoad); ok && fl.As != nil && fl.Section == nil {
		// mlld's show reads `<…> as "…"` as a section's new title
		// (AsNewTitle): without a section it is ignored, and the files
		// are shown as they are.
		c := *fl
		c.As = nil
		shownExpr = &c
	}
	v, err := in.evalExpr(ve, shownExpr)
	if err != nil {
		return nil, atPos(err, KindUnexpected, d.Pos)
	}
	if err := retryOutsidePipeline(v, d.Pos); err != nil {
		return nil, err
	}
	op := &hooks.OperationContext{Type: "show", Subtype: showSubtype(d.Value), Location: location(d.Pos)}
	if r, ok := d.Value.(*ast.Ref); ok {
		op.Name = r.Name
	}
	inputs := []*value.Variable{v}
	if isTemplate && tmpl.Kind != ast.SingleQuote {
		inputs = *parts
	}
	shown := v
	_, err = in.hooked(e, d, op, inputs, func(ins []*value.Variable) (*value.Variable, error) {
		// Only a shown variable is replaced by a before-guard transform
		// (SPEC §10 P12); templates and invocations show their own value.
		if op.Subtype == "showVariable" && len(ins) == 1 {
			shown = ins[0]
		}
		return shown, nil
	})
	if err != nil {
		return nil, err
	}
	// After-guards may still refuse the value, so it is printed only once
	// they passed; their transforms do not change what is shown (§10 P6).
	in.out.both(withNewline(in.displayText(shown)))
	return shown, nil
}

// showPiped shows `@var | stages` or `@var with { … }`: the operation's
// input is the variable, and the pipeline runs on what the guards left.
func (in *interp) showPiped(e *env, d *ast.ShowDirective, pe *ast.PipelineExpr, r *ast.Ref) (*value.Variable, error) {
	oe, err := in.withOverride(e, pe.With)
	if err != nil {
		return nil, atPos(err, KindGuard, d.Pos)
	}
	src, err := in.evalExpr(oe, r)
	if err != nil {
		return nil, atPos(err, KindUnexpected, d.Pos)
	}
	op := &hooks.OperationContext{Type: "show", Subtype: "showVariable", Name: r.Name, Location: location(d.Pos)}
	var shown *value.Variable
	_, err = in.hooked(oe, d, op, []*value.Variable{src}, func(ins []*value.Variable) (*value.Variable, error) {
		v, err := in.evalPipelineFrom(e, pe, ins[0])
		if err != nil {
			return nil, err
		}
		if err := retryOutsidePipeline(v, d.Pos); err != nil {
			return nil, err
		}
		shown = v
		return v, nil
	})
	if err != nil {
		return nil, atPos(err, KindUnexpected, d.Pos)
	}
	in.out.both(withNewline(in.displayText(shown)))
	return shown, nil
}

// showReplayable reports whether a show can be re-run for an after-guard
// retry: it shows an invocation.
func showReplayable(x ast.Expr) bool {
	if pe, ok := x.(*ast.PipelineExpr); ok {
		x = pe.Source
	}
	r, ok := x.(*ast.Ref)
	return ok && isInvocation(r)
}

// showSubtype is the operation subtype of a show (SPEC §5.5).
func showSubtype(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ref:
		if n := len(x.Path); n > 0 && x.Path[n-1].Kind == ast.AccessCall {
			return "showInvocation"
		}
		return "showVariable"
	case *ast.StringLit:
		return "showTemplate"
	case *ast.PipelineExpr:
		return "showPipeline"
	}
	return "showExpression"
}

func (in *interp) execExe(e *env, d *ast.ExeDirective) error {
	if _, exists := e.sc.vars[d.Name]; exists {
		return redefinitionError(d.Name, d.Pos)
	}
	if e.sc.frozen {
		return frozenError(d.Name, d.Pos)
	}
	if err := in.embedderName(e, d.Name, d.Pos); err != nil {
		return err
	}
	x := in.newExe(e, d)
	if tf, ok := d.Body.(*ast.TemplateFile); ok {
		t, err := in.readTemplateFile(e, tf)
		if err != nil {
			return err
		}
		x.tmpl = t
	}
	if resolverName(d.Name) {
		return reservedError(d.Name, d.Pos)
	}
	// Defining an exe is an operation with no inputs (SPEC §10 P11). The
	// exe exists once the definition ran, so after-guards can call it; a
	// denial takes it away again.
	op := &hooks.OperationContext{Type: "exe", Subtype: exeSubtype(d.Body), Name: d.Name, Location: location(d.Pos)}
	_, err := in.hooked(e, d, op, nil, func([]*value.Variable) (*value.Variable, error) {
		e.sc.set(d.Name, value.New(x))
		return value.New(""), nil
	})
	if err != nil {
		delete(e.sc.vars, d.Name)
		if rs := asRetrySignal(err); rs != nil {
			return guardFailure(rs.Deny("Cannot retry: "+rs.Hint()), d.Pos)
		}
		return err
	}
	return nil
}

// exeSubtype is the definition subtype of an exe body (SPEC §10 P11).
func exeSubtype(body ast.Expr) string {
	switch b := body.(type) {
	case *ast.CodeExpr:
		if b.Lang == "cmd" || b.Lang == "" || b.Lang == "run" {
			return "exeCommand"
		}
		return "exeCode"
	case *ast.BlockExpr:
		return "exeBlock"
	case *ast.WhenExpr:
		return "exeWhen"
	case *ast.Ref:
		return "exeCommand"
	}
	return "exeTemplate"
}

// execRun runs a command, code block or invocation and prints its output
// to the document.
func (in *interp) execRun(e *env, d *ast.RunDirective) (*value.Variable, error) {
	quiet := e.quietRun
	if quiet {
		// Only this run is quiet, not the statements of what it calls.
		c := *e
		c.quietRun = false
		e = &c
	}
	var v *value.Variable
	var err error
	switch x := d.Value.(type) {
	case *ast.CodeExpr:
		v, err = in.runCodeDirective(e, d, x)
	case *ast.Ref:
		// The exe call inside is hooked with its arguments as inputs.
		op := &hooks.OperationContext{Type: "run", Subtype: "runExec", Name: x.Name, Location: location(d.Pos)}
		v, err = in.hooked(e, d, op, nil, func([]*value.Variable) (*value.Variable, error) {
			return in.evalInvocation(e, x)
		})
	default:
		op := &hooks.OperationContext{Type: "run", Subtype: "runPipeline", Location: location(d.Pos)}
		v, err = in.hooked(e, d, op, nil, func([]*value.Variable) (*value.Variable, error) {
			return in.evalExpr(e, d.Value)
		})
	}
	if err != nil {
		return nil, atPos(err, KindCommand, d.Pos)
	}
	if err := retryOutsidePipeline(v, d.Pos); err != nil {
		return nil, err
	}
	if s := runText(v); s != "" && !quiet {
		if err := in.checkRunOutput(v, d.Pos); err != nil {
			return nil, err
		}
		in.out.both(withNewline(s))
	}
	return v, nil
}

// evalInvocation evaluates a ref as an invocation: a ref to an exe without
// an argument list is called with no arguments.
func (in *interp) evalInvocation(e *env, r *ast.Ref) (*value.Variable, error) {
	v, err := in.evalRef(e, r)
	if err != nil {
		return nil, err
	}
	if x, ok := v.Data.(*exe); ok {
		return in.callExe(e, x, nil, callOpts{pos: r.Pos})
	}
	return v, nil
}

func (in *interp) execIf(e *env, d *ast.IfDirective) (v *value.Variable, returned bool, err error) {
	c, err := in.evalCond(e, d.Cond)
	if err != nil {
		return nil, false, atPos(err, KindUnexpected, d.Pos)
	}
	if c {
		return in.runBlock(e, d.Then, true)
	}
	switch el := d.Else.(type) {
	case *ast.BlockExpr:
		return in.runBlock(e, el, true)
	case *ast.IfDirective:
		return in.execIf(e, el)
	}
	return undefined(), false, nil
}

func (in *interp) execAugment(e *env, d *ast.AugmentStmt) error {
	cur, sc := e.sc.lookup(d.Name)
	if cur == nil {
		return newError(KindVariable, d.Pos, "declare it first with let",
			"Cannot use += on undefined variable @%s. Use \"let @%s = ...\" first.", d.Name, d.Name)
	}
	if sc.frozen {
		return frozenError(d.Name, d.Pos)
	}
	if err := checkParallelWrite(e, sc, d.Name, d.Pos); err != nil {
		return err
	}
	add, err := in.evalExpr(e, d.Value)
	if err != nil {
		return atPos(err, KindUnexpected, d.Pos)
	}
	var data any
	switch c := cur.Data.(type) {
	case []any:
		out := append([]any(nil), c...)
		if arr, ok := add.Data.([]any); ok {
			out = append(out, arr...)
		} else {
			out = append(out, add.Data)
		}
		data = out
	case string:
		data = c + value.Text(add.Data)
	case float64:
		n, ok := add.Data.(float64)
		if !ok {
			return newError(KindType, d.Pos, "", "cannot add %s to a number with +=", typeName(add.Data))
		}
		data = c + n
	case *value.Object:
		o := value.NewObject()
		for _, k := range c.Keys {
			o.Set(k, c.Values[k])
		}
		if ao, ok := add.Data.(*value.Object); ok {
			for _, k := range ao.Keys {
				o.Set(k, ao.Values[k])
			}
		} else {
			return newError(KindType, d.Pos, "", "cannot merge %s into an object with +=", typeName(add.Data))
		}
		data = o
	case nil, value.Undefined:
		data = add.Data
	default:
		return newError(KindType, d.Pos, "", "cannot use += on a %s", typeName(cur.Data))
	}
	sc.set(d.Name, derived(data, cur, add))
	return nil
}

// retryOutsidePipeline rejects a retry that reached a statement: only a
// pipeline stage can be retried.
func retryOutsidePipeline(v *value.Variable, pos ast.Pos) error {
	if isRetry(v) {
		return newError(KindPipeline, pos, "use retry only as a when action of an exe that runs as a pipeline stage",
			"retry keyword used outside pipeline context")
	}
	return nil
}
