package interp

import (
	"errors"
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// evalWhen runs the first matching arm of a when. stmt is set for the
// `/when` directive (statement context). isValue reports that the matched
// action produced a value (an expression, or a block that returned), which
// inside an exe block is an early return.
func (in *interp) evalWhen(e *env, w *ast.WhenExpr, stmt bool) (v *value.Variable, matched, isValue bool, err error) {
	return in.evalWhenIn(e, w, stmt, false)
}

// whenExprMark is the key under which the scope of a when expression
// (a value: `var @r = when […]`, an exe's when body) records that it is
// one: let may shadow any variable inside it (mlld's allowLetShadowing).
const whenExprMark = "\x00when-expression"

// evalWhenExpr evaluates a when expression (see whenExprMark).
func (in *interp) evalWhenExpr(e *env, w *ast.WhenExpr) (*value.Variable, error) {
	v, _, _, err := in.evalWhenIn(e, w, false, true)
	return v, err
}

func (in *interp) evalWhenIn(e *env, w *ast.WhenExpr, stmt, expr bool) (v *value.Variable, matched, isValue bool, err error) {
	we := e.child()
	if expr {
		we.sc.vars[whenExprMark] = nil
	}
	var subject *value.Variable
	// condErrs is the first error a condition of a when expression raised
	// (see collectsCondErrors).
	var condErrs error
	// flow is what the conditions tested so far carried: the arm that
	// runs was chosen by all of them.
	var flow taint.Descriptor
	if w.Subject != nil {
		if r := rootRef(w.Subject); r != nil && !we.resolvable(r.Name) {
			// mlld looks the subject up like any value: an undefined one is
			// an error, not a value no pattern matches (its fields may be
			// missing).
			return nil, false, false, newError(KindVariable, r.Pos, "define it with var (or let inside a block) before using it",
				"Variable not found: %s", r.Name)
		}
		subject, err = in.evalExpr(we.withLenient(true), w.Subject)
		if err != nil {
			return nil, false, false, atPos(err, KindUnexpected, w.Pos)
		}
		flow = subject.Security
	}
	for _, arm := range w.Arms {
		if arm.Let {
			if d, ok := arm.Action.(ast.Directive); ok {
				if _, err := in.execStatement(we, d); err != nil {
					return nil, false, false, err
				}
			}
			continue
		}
		ok := false
		switch arm.Kind {
		case ast.ArmWildcard, ast.ArmNone:
			ok = true
		case ast.ArmCond:
			if subject != nil {
				ok, err = in.matchSubject(we, subject, arm.Cond)
			} else {
				var sec taint.Descriptor
				ok, sec, err = in.evalCondSec(we, arm.Cond)
				if !sec.IsZero() {
					flow = flow.Merge(sec)
				}
			}
			if err != nil {
				if expr && condErrs == nil && collectsCondErrors(we, err) {
					// mlld's when expressions go on to the next arm; the
					// error is reported only if no arm matches
					// (when-expression.ts).
					condErrs = atPos(err, KindUnexpected, arm.Pos)
					continue
				}
				if expr && condErrs != nil && collectsCondErrors(we, err) {
					continue
				}
				return nil, false, false, atPos(err, KindUnexpected, arm.Pos)
			}
		}
		if !ok {
			continue
		}
		if cover := in.opts.Cover; cover != nil {
			cover(arm.Pos)
		}
		ae := we
		if _, ok := arm.Action.(*ast.VarDirective); ok && stmt {
			// `when … => var @x = …` defines @x where the when stands,
			// as mlld does (the when's own scope would drop it).
			ae = e
		}
		v, isValue, err = in.evalAction(ae, arm.Action, stmt)
		if err != nil {
			return nil, true, false, atPos(err, KindUnexpected, arm.Pos)
		}
		return implicitFlow(v, flow), true, isValue, nil
	}
	if condErrs != nil {
		return nil, false, false, condErrs
	}
	return value.New(nil), false, false, nil
}

// collectsCondErrors reports whether a when expression may pass over err,
// raised by one of its conditions, to try the next arm: a script error
// outside guards. A guard's conditions never skip an error (an arm that
// failed to evaluate must not let a later `* => allow` decide), nor does
// anything stop the run (bail, a denial, an interrupt, a limit).
func collectsCondErrors(e *env, err error) bool {
	if e.strictRefs || e.in.mx.InGuard() {
		return false
	}
	var ie *Error
	if !errors.As(err, &ie) {
		return false
	}
	switch ie.Kind {
	case KindVariable, KindCall, KindCode, KindCommand, KindType, KindFile:
		return true
	}
	return false
}

// matchSubject tests one arm of the match form `when @v [ pattern => … ]`:
// a pattern is a value compared for equality, a negated pattern, or a
// comparison with its left side left out (`>= 0.3 && < 0.7`).
func (in *interp) matchSubject(e *env, subject *value.Variable, cond ast.Expr) (bool, error) {
	switch c := cond.(type) {
	case *ast.UnaryExpr:
		if c.Op == "!" {
			ok, err := in.matchSubject(e, subject, c.X)
			return !ok, err
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case "&&":
			l, err := in.matchSubject(e, subject, c.Left)
			if err != nil || !l {
				return false, err
			}
			return in.matchSubject(e, subject, c.Right)
		case "||":
			l, err := in.matchSubject(e, subject, c.Left)
			if err != nil || l {
				return l, err
			}
			return in.matchSubject(e, subject, c.Right)
		}
		if c.Left == nil {
			r, err := in.evalExpr(e.withLenient(true), c.Right)
			if err != nil {
				return false, err
			}
			res, err := in.binaryOp(c.Op, subject, r, c.Pos)
			if err != nil {
				return false, err
			}
			return value.Truthy(res.Data), nil
		}
	}
	v, err := in.evalExpr(e.withLenient(true), cond)
	if err != nil {
		return false, err
	}
	return value.Equal(subject.Data, v.Data), nil
}

// evalAction runs a when action (or a for body). Directives run as
// statements; code blocks print their output like `run`; in statement
// context an invocation prints its result too.
func (in *interp) evalAction(e *env, action ast.Node, stmt bool) (v *value.Variable, isValue bool, err error) {
	switch a := action.(type) {
	case *ast.BlockExpr:
		v, returned, err := in.runBlock(e, a, false)
		return v, returned, err
	case *ast.ReturnStmt:
		v, err := in.execStatement(e, a)
		return v, true, err
	case *ast.ExprStmt:
		return in.evalAction(e, a.Value, stmt)
	case ast.Directive:
		v, err := in.execStatement(e, a)
		return v, false, err
	case *ast.CodeExpr:
		v, err := in.evalExpr(e, a)
		if err != nil {
			return nil, false, err
		}
		if s := runText(v); s != "" {
			in.out.both(withNewline(s))
		}
		return v, true, nil
	case ast.Expr:
		v, err := in.evalExpr(e, a)
		if err != nil {
			return nil, false, err
		}
		if stmt && isInvocation(a) {
			if s := runText(v); s != "" {
				in.out.both(withNewline(s))
			}
		}
		return v, true, nil
	}
	return undefined(), false, nil
}

// isInvocation reports whether x calls something (its value is output
// when it stands as a statement).
func isInvocation(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Ref:
		for _, a := range x.Path {
			if a.Kind == ast.AccessCall {
				return true
			}
		}
	case *ast.PipelineExpr:
		return true
	case *ast.CodeExpr:
		return true
	}
	return false
}

// runBlock runs a `[ … ]` block in a child scope. returned reports a `=>`
// (also from a nested when or if); otherwise v is the last expression
// statement's value. stmt blocks (if bodies) discard expression values.
func (in *interp) runBlock(e *env, b *ast.BlockExpr, stmt bool) (v *value.Variable, returned bool, err error) {
	be := e.child()
	last := undefined()
	for _, s := range b.Stmts {
		if err := in.checkCtx(s.Position()); err != nil {
			return nil, false, err
		}
		switch s := s.(type) {
		case *ast.ReturnStmt:
			v, err := in.returnValue(be, s.Value)
			if err != nil {
				return nil, false, atPos(err, KindUnexpected, s.Pos)
			}
			v, err = in.declaredLabels(v, s.Labels, s.Pos)
			return v, err == nil, err
		case *ast.WhenDirective:
			v, matched, isValue, err := in.evalWhen(be, s.When, false)
			if err != nil {
				return nil, false, err
			}
			if matched && isValue && !isSkip(v) {
				return v, true, nil
			}
		case *ast.IfDirective:
			v, returned, err := in.execIf(be, s)
			if err != nil {
				return nil, false, err
			}
			if returned {
				return v, true, nil
			}
		case *ast.ExprStmt:
			v, err := in.evalExpr(be, s.Value)
			if err != nil {
				return nil, false, atPos(err, KindUnexpected, s.Pos)
			}
			if isRetry(v) || isSkip(v) || isLoopCtl(v) {
				return v, true, nil
			}
			last = v
		default:
			if _, err := in.execStatement(be, s); err != nil {
				return nil, false, err
			}
		}
	}
	return last, false, nil
}
