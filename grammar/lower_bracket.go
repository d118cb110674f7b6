package grammar

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// A `[ … ]` after `=`, `=>` or a for head may be a statement block or an
// array. The grammar reads it once (bracketExpr) and the lowering decides,
// the way mlld does: a block when every item is a statement separated by
// line breaks or ;, otherwise an array when the items are values
// separated by commas.

// isBlockForm reports whether b reads as a statement block.
func isBlockForm(b *bracket) bool {
	for _, it := range b.Items {
		if it.Stmt == nil || it.Spread || it.Optional || it.Sep == "," {
			return false
		}
	}
	return true
}

// hasCont reports whether an operator, pipe or with-clause follows the
// bracket.
func (b *bracketExpr) hasCont() bool {
	return len(b.Rest) > 0 || b.Then != nil || len(b.Steps) > 0 || b.With != nil
}

// bracketExpr lowers a block-or-array with what follows it. A block ends
// the action or body it stands for, so a continuation after it belongs
// to the enclosing expression: it is returned as outer for the caller to
// attach (or reject). After an array it continues the array.
func (l *lowerer) bracketExpr(b *bracketExpr) (v ast.Expr, outer *bracketExpr) {
	v, block := l.bracketBody(b.Open)
	if !b.hasCont() {
		return v, nil
	}
	if block {
		return v, b
	}
	return l.continueWith(v, b), nil
}

// bracketBody lowers the bracket itself; block tells whether it read as a
// block (which may still become an array, see arrayIfValues).
func (l *lowerer) bracketBody(b *bracket) (v ast.Expr, block bool) {
	if isBlockForm(b) {
		blk := &ast.BlockExpr{Pos: l.pos(b.Pos)}
		for _, it := range b.Items {
			if d := l.blockStmt(it.Stmt); d != nil {
				blk.Stmts = append(blk.Stmts, d)
			}
		}
		return arrayIfValues(blk), true
	}
	return l.bracketArray(b), false
}

// arrayIfValues turns a block holding only plain values (no statement, no
// invocation, no pipeline) into the array `[@x]` it also spells.
func arrayIfValues(blk *ast.BlockExpr) ast.Expr {
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
		switch es.Value.(type) {
		case *ast.PipelineExpr, *ast.LoopCtlExpr:
			// A pipeline runs; done and continue are control, not items.
			return blk
		}
		arr.Items = append(arr.Items, ast.ArrayItem{Value: es.Value})
	}
	return arr
}

// bracketArray lowers a bracket that is not a block: it must be an array.
func (l *lowerer) bracketArray(b *bracket) *ast.ArrayLit {
	out := &ast.ArrayLit{Pos: l.pos(b.Pos), Items: []ast.ArrayItem{}}
	const hint = "separate array items with commas, and statements with line breaks or ;"
	for i, it := range b.Items {
		if i > 0 && b.Items[i-1].Sep != "," {
			l.fail(it.Pos, "Syntax error: expected , between array items", l.snippet(it.Pos), hint)
			return out
		}
		value := it.Value
		if !it.Spread {
			value = exprOnly(it.Stmt)
		} else {
			l.failArraySpread(it.Pos)
			return out
		}
		if value == nil {
			l.fail(it.Pos, "Syntax error: a statement cannot be an array item", l.snippet(it.Pos), hint)
			return out
		}
		if it.Sep == ";" {
			l.fail(it.Pos, "Syntax error: ; in an array", l.snippet(it.Pos), hint)
			return out
		}
		out.Items = append(out.Items, ast.ArrayItem{Value: l.expr(value), Spread: it.Spread, Optional: it.Optional})
	}
	return out
}

// exprOnly is the expression a statement consists of, if it is only one.
func exprOnly(s *stmt) *expr {
	if s == nil || s.Expr == nil {
		return nil
	}
	return s.Expr
}

// continueWith applies the operators, pipes and with-clause of c to v.
func (l *lowerer) continueWith(v ast.Expr, c *bracketExpr) ast.Expr {
	if c == nil {
		return v
	}
	v = l.binaryFrom(v, c.Rest)
	if c.Then != nil {
		v = &ast.TernaryExpr{Pos: v.Position(), Cond: v, Then: l.ternary(c.Then), Else: l.ternary(c.Else)}
	}
	return l.pipeline(v.Position(), v, c.Steps, c.With)
}

// failCont reports a continuation after a block where nothing may follow.
func (l *lowerer) failCont(c *bracketExpr, msg string) {
	p := c.Open.EndPos
	for p.Offset < len(l.text) && strings.IndexByte(" \t\r\n", l.text[p.Offset]) >= 0 {
		p.Offset++
	}
	l.fail(p, msg, l.snippet(p), "end the block here or put the rest on its own line")
}
