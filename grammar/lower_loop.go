package grammar

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// loop lowers `loop[(limit)] [until cond] [ … ]`. Its body is always a
// statement block.
func (l *lowerer) loop(x *loopX, at ast.Pos) *ast.LoopExpr {
	out := &ast.LoopExpr{Pos: at}
	if x.Limit != nil {
		out.Limit = l.expr(x.Limit)
	}
	if x.Paren && !x.Endless && x.Limit == nil {
		l.fail(x.Pos, "loop() requires a limit or endless. Expected: loop(<cap>[, <rate>])", l.snippet(x.Pos), "write loop(10), loop(endless) or loop without parentheses")
		return out
	}
	if x.Pace != nil && (x.Pace.Var != nil || !durationUnit(x.Pace.Unit)) {
		l.fail(x.Pace.Pos, "Loop pacing expects a duration like 1s or 500ms.", l.snippet(x.Pace.Pos), "write loop(10, 1s)")
		return out
	}
	if x.Until != nil {
		out.Until = l.expr(x.Until)
	}
	if !isBlockForm(x.Body) {
		l.fail(x.Body.Pos, "Syntax error: a loop body is a block of statements", l.snippet(x.Body.Pos),
			"put one statement per line inside loop [ … ] and end iterations with continue or done")
		return out
	}
	out.Body = &ast.BlockExpr{Pos: l.pos(x.Body.Pos)}
	for _, it := range x.Body.Items {
		if d := l.blockStmt(it.Stmt); d != nil {
			out.Body.Stmts = append(out.Body.Stmts, d)
		}
	}
	return out
}

// loopStmt lowers a statement that is a bare loop expression to a loop
// directive; as with when and for, nothing may follow it.
func (l *lowerer) loopStmt(e *expr, p ast.Pos) ast.Directive {
	t := e.Source
	if t.First == nil || t.First.Loop == nil {
		return nil
	}
	d := &ast.LoopDirective{Pos: p, Loop: l.loop(t.First.Loop, p)}
	if len(t.Rest) > 0 || t.Then != nil || len(e.Steps) > 0 || e.With != nil {
		end := t.First.EndPos
		for end.Offset < len(l.text) && strings.IndexByte(" \t\r\n", l.text[end.Offset]) >= 0 {
			end.Offset++
		}
		l.fail(end, "Syntax error: unexpected text after the directive", l.snippet(end), "end the directive here or put the rest on its own line")
	}
	return d
}

// blockStmt lowers a statement of a [ … ] block. `var` declares
// document-level variables and is refused there, as in mlld: a block
// binds with let.
func (l *lowerer) blockStmt(s *stmt) ast.Directive {
	if s != nil && s.Var != nil {
		l.fail(s.Pos, "`var` cannot be used inside blocks — use `let` for block-scoped bindings", "var",
			"write let "+s.Var.Name+" = … inside the block")
		return nil
	}
	return l.stmt(s)
}

// runsParam reports whether an exe's body is `run @p` for one of its own
// parameters p, which holds data rather than a command.
func runsParam(e *exeStmt) (string, bool) {
	t := e.Body.Source
	if t == nil || t.First == nil || t.First.Run == nil || len(e.Body.Steps) > 0 {
		return "", false
	}
	r := t.First.Run
	if len(r.Rest) > 0 || r.Then != nil || r.First == nil || r.First.Ref == nil || len(r.First.Ref.Path) > 0 {
		return "", false
	}
	name := strings.TrimPrefix(r.First.Ref.Name, "@")
	for _, p := range e.Params {
		if strings.TrimPrefix(p.Name, "@") == name {
			return name, true
		}
	}
	return "", false
}

// durationUnit reports whether unit is one of mlld's time units (ms, s,
// m, h, d, w, y).
func durationUnit(unit *string) bool {
	if unit == nil {
		return false
	}
	switch *unit {
	case "ms", "s", "m", "h", "d", "w", "y":
		return true
	}
	return false
}
