package grammar

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/guardrun/guardrun/ast"
)

// hookStmt is `hook [@name] before|after FILTER = BODY` (mlld's user
// hooks). The filter is read like a guard's; a function filter may carry
// an argument prefix in parentheses. The body is a when or a block.
type hookStmt struct {
	Pos    lexer.Position
	Name   *string      `parser:"@AtIdent?"`
	Timing *string      `parser:"@('before'|'after')?"`
	Filter *filter      `parser:"@@?"`
	Prefix *expr        `parser:"( '(' @@ ')' )?"`
	Eq     bool         `parser:"@'='?"`
	When   *whenBody    `parser:"( 'when' @@"`
	Block  *bracketExpr `parser:"| @@ )?"`
}

const hookShape = "write hook [@name] before|after <filter> = [ … ] (or = when [ … ])"

// hook lowers a hook directive. Every part is optional in the parse tree
// so that a malformed hook gets an error that says which part is missing,
// at its position, rather than participle's generic one.
func (l *lowerer) hook(h *hookStmt, p ast.Pos) *ast.HookDirective {
	d := &ast.HookDirective{Pos: p}
	if h.Name != nil {
		d.Name = (*h.Name)[1:]
	}
	if h.Timing == nil {
		l.fail(h.Pos, "hook needs a timing: before or after", "hook "+l.snippet(h.Pos), hookShape)
		return d
	}
	d.Timing = *h.Timing
	if h.Filter == nil {
		l.fail(h.Pos, "hook needs a filter after "+d.Timing+": @function, op:<type> or a data label", l.snippet(h.Pos), hookShape)
		return d
	}
	f := h.Filter
	name := l.filter(f)
	switch {
	case strings.HasPrefix(f.Head, "@"):
		d.Kind, d.Filter = ast.HookFunction, name[1:]
		for _, s := range f.Rest {
			if s.Sep == ":" {
				l.fail(f.Pos, "a hook's function filter names an exe: @name or @module.name", name, "remove the ':' part, or use op:<type> for operations")
				return d
			}
		}
	case f.Head == "op" && len(f.Rest) > 0 && f.Rest[0].Sep == ":":
		d.Kind, d.Filter = ast.HookOperation, name[len("op:"):]
	default:
		d.Kind, d.Filter = ast.HookData, name
	}
	if h.Prefix != nil {
		s, ok := l.expr(h.Prefix).(*ast.StringLit)
		if d.Kind != ast.HookFunction {
			l.fail(h.Prefix.Pos, "only a function filter takes an argument prefix", name+"(…)", `write hook before @fn("prefix") = …`)
			return d
		}
		text := ""
		if ok {
			text, ok = s.PlainText()
		}
		if !ok {
			l.fail(h.Prefix.Pos, "a hook's argument prefix must be a plain quoted string", name+"(…)", `write hook before @fn("src/") = …`)
			return d
		}
		d.Prefix, d.HasPrefix = text, true
	}
	if !h.Eq {
		l.fail(f.Pos, "hook needs '=' and a body after its filter", name, hookShape)
		return d
	}
	switch {
	case h.When != nil:
		var outer *bracketExpr
		d.Body, outer = l.when(h.When, l.pos(h.When.Pos))
		if outer != nil {
			l.failCont(outer, "Syntax error: unexpected text after the hook's block")
		}
	case h.Block != nil:
		v, outer := l.bracketExpr(h.Block)
		if outer != nil {
			l.failCont(outer, "Syntax error: unexpected text after the hook's block")
		}
		d.Body = hookBlock(v)
	default:
		l.fail(f.Pos, "hook body must be a [ … ] block or a when [ … ]", name+" =", hookShape)
	}
	return d
}

// hookBlock keeps a hook's `[ … ]` body a block: one holding only values
// (`[ @log(@input) ]`) lowers as an array, but as a hook body its items
// are statements.
func hookBlock(v ast.Expr) ast.Expr {
	arr, ok := v.(*ast.ArrayLit)
	if !ok {
		return v
	}
	blk := &ast.BlockExpr{Pos: arr.Pos}
	for _, it := range arr.Items {
		blk.Stmts = append(blk.Stmts, &ast.ExprStmt{Pos: it.Value.Position(), Value: it.Value})
	}
	return blk
}
