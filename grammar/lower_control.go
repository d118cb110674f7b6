package grammar

import (
	"fmt"
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// when lowers a when expression. For the inline form, outer is what
// follows a block action (see bracketExpr), for the caller to attach.
func (l *lowerer) when(w *whenBody, at ast.Pos) (_ *ast.WhenExpr, outer *bracketExpr) {
	out := &ast.WhenExpr{Pos: at}
	if w.Modifier != nil {
		switch *w.Modifier {
		case "all":
			l.fail(w.Pos, "The 'all' modifier has been removed from mlld. Use the && operator instead.", "all", "combine conditions with &&, or use several if blocks to run every match")
		case "any":
			l.fail(w.Pos, "The 'any' modifier has been removed from mlld. Use the || operator instead.", "any", "combine conditions with ||")
		}
	}
	var arms *armList
	switch {
	case w.Head != nil && w.Action != nil:
		out.Inline = true
		cond := l.expr(w.Head)
		act, outer := l.action(w.Action)
		out.Arms = []*ast.WhenArm{{Pos: l.pos(w.Head.Pos), Kind: ast.ArmCond, Cond: cond, Action: act}}
		return out, outer
	case w.Head != nil && w.Match != nil:
		out.Subject = l.whenSubject(w.Head)
		arms = w.Match
	case w.Block != nil:
		arms = w.Block
	default:
		l.fail(w.Pos, "Syntax error: expected a when block or condition", l.snippet(w.Pos), "")
		return out, nil
	}
	seenStar, seenNone := false, false
	for i, a := range arms.Arms {
		if i > 0 && a.Star && bareAllowAction(arms.Arms[i-1].Action) {
			if prev := l.pos(arms.Arms[i-1].Action.Pos); prev.Line == l.posSkipSpace(a.Pos).Line {
				// mlld reads the * as allow's value and then fails at the
				// =>; say so instead of guessing which was meant.
				l.fail(a.Pos, "a bare allow followed by * on the same line: mlld takes the * as allow's value", "allow *", "end a bare allow with ; or a newline before the next rule: allow; * => …")
			}
		}
		arm := &ast.WhenArm{Pos: l.posSkipSpace(a.Pos)}
		switch {
		case a.Let != nil:
			arm.Kind, arm.Let = ast.ArmWildcard, true
			arm.Action = &ast.LetStmt{Pos: arm.Pos, Name: a.Let.Name[1:], Value: l.expr(a.Let.Value)}
		case a.Augment != nil:
			arm.Kind, arm.Let = ast.ArmWildcard, true
			arm.Action = &ast.AugmentStmt{Pos: arm.Pos, Name: a.Augment.Name[1:], Value: l.expr(a.Augment.Value)}
		case a.Star:
			arm.Kind = ast.ArmWildcard
			seenStar = true
		case a.None:
			if seenStar {
				l.fail(a.Pos, "The 'none' keyword cannot appear after a wildcard (*) condition", "none", "remove the * arm or the none arm")
			}
			arm.Kind = ast.ArmNone
			seenNone = true
		default:
			if seenNone {
				l.fail(a.Pos, "The 'none' keyword must be the last condition(s) in a when block", l.snippet(a.Pos), "move the none arm to the end")
			}
			arm.Kind = ast.ArmCond
			if a.Partial != nil {
				arm.Cond = l.partial(a.Partial)
			} else {
				arm.Cond = l.expr(a.Cond)
			}
		}
		if !arm.Let {
			var outer *bracketExpr
			arm.Action, outer = l.action(a.Action)
			if outer != nil {
				l.failCont(outer, "Syntax error: unexpected text after the arm's block")
			}
		}
		out.Arms = append(out.Arms, arm)
	}
	return out, nil
}

// whenSubject reads the head of a match-form when, which must be a
// variable or a field path on one.
func (l *lowerer) whenSubject(e *expr) *ast.Ref {
	t := e.Source
	if len(e.Steps) == 0 && e.With == nil && len(t.Rest) == 0 && t.Then == nil && t.First.Ref != nil {
		r := l.ref(t.First.Ref)
		plain := true
		for _, a := range r.Path {
			plain = plain && a.Kind == ast.AccessField && !a.Optional
		}
		if plain {
			return r
		}
	}
	l.fail(e.Pos, "Syntax error: the subject of a when match must be a variable or a field of one", l.snippet(e.Pos), "write when @value [ \"a\" => … ] or when condition => action")
	return &ast.Ref{Pos: l.pos(e.Pos)}
}

// bareAllowAction reports whether a is `allow` with nothing after it that
// the grammar took as part of it (a value or a with-clause); an allow
// ended by ; or a line break is lexed as BareKw instead.
func bareAllowAction(a *action) bool {
	if a == nil || a.Value == nil || len(a.Value.Steps) > 0 || a.Value.With != nil {
		return false
	}
	t := a.Value.Source
	if t.Then != nil || len(t.Rest) > 0 {
		return false
	}
	al := t.First.Allow
	return al != nil && al.Value == nil && al.With == nil
}

// action lowers what follows `=>`; outer is a continuation after a block
// action, which belongs to the enclosing expression (see bracketExpr).
func (l *lowerer) action(a *action) (_ ast.Node, outer *bracketExpr) {
	p := l.pos(a.Pos)
	switch {
	case a.Labeled != nil:
		return &ast.LabelExpr{Pos: p, Labels: l.labels(a.Labeled.Labels, true), Value: l.expr(a.Labeled.Value)}, nil
	case a.Value != nil:
		if v, ok := l.runValue(a.Value); ok {
			return &ast.RunDirective{Pos: p, Value: v}, nil
		}
		v := l.expr(a.Value)
		if isRunCode(v) {
			return &ast.RunDirective{Pos: p, Value: v}, nil
		}
		return v, nil
	case a.Block != nil:
		return l.bracketExpr(a.Block)
	case a.Show != nil:
		l.checkShow(a.Show)
		return &ast.ShowDirective{Pos: p, Value: l.expr(a.Show)}, nil
	case a.Output != nil:
		v, t, f := l.output(a.Output)
		return &ast.OutputDirective{Pos: p, Value: v, Target: t, Format: f}, nil
	case a.Append != nil:
		v, t, f := l.output(a.Append)
		return &ast.AppendDirective{Pos: p, Value: v, Target: t, Format: f}, nil
	case a.Log != nil:
		return &ast.LogDirective{Pos: p, Value: l.expr(a.Log)}, nil
	case a.Bail != nil:
		return &ast.BailDirective{Pos: p, Message: l.expr(a.Bail.Message)}, nil
	case a.Var != nil:
		return l.varStmt(a.Var, p), nil
	case a.Let != nil:
		return &ast.LetStmt{Pos: p, Name: a.Let.Name[1:], Value: l.expr(a.Let.Value)}, nil
	case a.Return != nil:
		return l.returnStmt(a.Return, p), nil
	}
	l.fail(a.Pos, "Syntax error: expected an action after =>", l.snippet(a.Pos), "")
	return nil, nil
}

// runValue reads `run <value>`, which the grammar parses as the run
// primary of an expression, as the value of a run statement, with the
// pipes and with-clause that follow it.
func (l *lowerer) runValue(e *expr) (ast.Expr, bool) {
	t := e.Source
	if t == nil || t.First == nil || t.First.Run == nil || len(t.Rest) > 0 || t.Then != nil {
		return nil, false
	}
	if c := l.runString(t.First.Run); c != nil {
		return l.pipeline(c.Pos, c, e.Steps, e.With), true
	}
	return l.expr(&expr{Pos: t.First.Run.Pos, Source: t.First.Run, Steps: e.Steps, With: e.With}), true
}

func (l *lowerer) block(b *block) *ast.BlockExpr {
	out := &ast.BlockExpr{Pos: l.pos(b.Pos)}
	for _, s := range b.Stmts {
		if d := l.blockStmt(s); d != nil {
			out.Stmts = append(out.Stmts, d)
		}
	}
	return out
}

// forExpr lowers a for expression; outer is what follows a block action
// (see bracketExpr), for the caller to attach.
func (l *lowerer) forExpr(f *forBody, at ast.Pos) (_ *ast.ForExpr, outer *bracketExpr) {
	out := &ast.ForExpr{Pos: at, Var: f.First[1:], Source: l.expr(f.Source), Parallel: f.Parallel}
	if f.Cap != nil {
		out.Cap = l.expr(f.Cap)
	}
	if f.Second != nil {
		out.Key, out.Var = out.Var, (*f.Second)[1:]
		if len(f.Path) > 0 {
			l.fail(f.Pos, fmt.Sprintf("Cannot access field %q on loop key \"@%s\" - keys are primitive values (strings)", f.Path[0], out.Key),
				"@"+out.Key+"."+f.Path[0], "bind the key alone: for @k, @v in @obj")
		}
	} else {
		out.VarPath = f.Path
	}
	if f.Filter != nil {
		out.Filter = l.expr(f.Filter)
	}
	switch {
	case f.Action != nil:
		out.Body, outer = l.action(f.Action)
	case f.Block != nil:
		out.Body, _ = l.bracketBody(f.Block)
	}
	return out, outer
}

// partial lowers an operator-led match condition; a nil operand (Left of
// the innermost comparisons) stands for the when subject.
func (l *lowerer) partial(p *partial) ast.Expr {
	var rest []*binRest
	for _, r := range p.Rest {
		// An ArmOp token carries the line break before the operator.
		pos := r.Pos
		pos.Offset += len(r.Op) - len(strings.TrimLeft(r.Op, " \t\r\n"))
		rest = append(rest, &binRest{Pos: pos, Op: strings.TrimSpace(r.Op), Right: r.Right})
	}
	return l.binary(nil, rest)
}
