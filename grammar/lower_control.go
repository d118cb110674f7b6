package grammar

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
)

func (l *lowerer) when(w *whenBody, at ast.Pos) *ast.WhenExpr {
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
	case w.Block != nil:
		arms = w.Block
	case w.Subject != nil:
		r := &ast.Ref{Pos: l.pos(w.Subject.Pos), Name: w.Subject.Name[1:]}
		for _, f := range w.Subject.Fields {
			r.Path = append(r.Path, ast.Accessor{Pos: r.Pos, Kind: ast.AccessField, Name: f})
		}
		out.Subject = r
		arms = w.Match
	default:
		out.Inline = true
		out.Arms = []*ast.WhenArm{{Pos: l.pos(w.Cond.Pos), Kind: ast.ArmCond, Cond: l.expr(w.Cond), Action: l.action(w.Action)}}
		return out
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
			arm.Action = l.action(a.Action)
		}
		out.Arms = append(out.Arms, arm)
	}
	return out
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

func (l *lowerer) action(a *action) ast.Node {
	p := l.pos(a.Pos)
	switch {
	case a.Show != nil:
		return &ast.ShowDirective{Pos: p, Value: l.expr(a.Show)}
	case a.Output != nil:
		v, t, f := l.output(a.Output)
		return &ast.OutputDirective{Pos: p, Value: v, Target: t, Format: f}
	case a.Append != nil:
		v, t, f := l.output(a.Append)
		return &ast.AppendDirective{Pos: p, Value: v, Target: t, Format: f}
	case a.Log != nil:
		return &ast.LogDirective{Pos: p, Value: l.expr(a.Log)}
	case a.Run != nil:
		return &ast.RunDirective{Pos: p, Value: l.expr(a.Run)}
	case a.Var != nil:
		return l.varStmt(a.Var, p)
	case a.Let != nil:
		return &ast.LetStmt{Pos: p, Name: a.Let.Name[1:], Value: l.expr(a.Let.Value)}
	case a.Return != nil:
		return l.returnStmt(a.Return, p)
	case a.Block != nil:
		return l.blockOrArray(a.Block)
	case a.Value != nil:
		v := l.expr(a.Value)
		if isRunCode(v) {
			return &ast.RunDirective{Pos: p, Value: v}
		}
		return v
	case a.Labeled != nil:
		return &ast.LabelExpr{Pos: p, Labels: l.labels(a.Labeled.Labels, true), Value: l.expr(a.Labeled.Value)}
	}
	l.fail(a.Pos, "Syntax error: expected an action after =>", l.snippet(a.Pos), "")
	return nil
}

func (l *lowerer) block(b *block) *ast.BlockExpr {
	out := &ast.BlockExpr{Pos: l.pos(b.Pos)}
	for _, s := range b.Stmts {
		if d := l.stmt(s); d != nil {
			out.Stmts = append(out.Stmts, d)
		}
	}
	return out
}

// blockOrArray lowers `[ … ]` where either a statement block or an array
// literal may be meant: a block holding only plain values (no statement,
// no invocation) is the array `[@x]`.
func (l *lowerer) blockOrArray(b *block) ast.Expr {
	blk := l.block(b)
	if len(blk.Stmts) == 0 {
		return blk
	}
	arr := &ast.ArrayLit{Pos: blk.Pos}
	for _, s := range blk.Stmts {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			return blk
		}
		if r, ok := es.Value.(*ast.Ref); ok && len(r.Path) > 0 && r.Path[len(r.Path)-1].Kind == ast.AccessCall {
			return blk
		}
		if _, ok := es.Value.(*ast.PipelineExpr); ok {
			return blk
		}
		arr.Items = append(arr.Items, ast.ArrayItem{Value: es.Value})
	}
	return arr
}

func (l *lowerer) forExpr(f *forBody, at ast.Pos) *ast.ForExpr {
	out := &ast.ForExpr{Pos: at, Var: f.First[1:], Source: l.expr(f.Source)}
	if f.Second != nil {
		out.Key, out.Var = out.Var, (*f.Second)[1:]
	}
	if f.Filter != nil {
		out.Filter = l.expr(f.Filter)
	}
	if f.Block != nil {
		out.Body = l.blockOrArray(f.Block)
	} else {
		out.Body = l.action(f.Action)
	}
	return out
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
