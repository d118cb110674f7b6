package format

import "github.com/guardrun/guardrun/ast"

func (p *printer) hook(d *ast.HookDirective) string {
	s := "hook "
	if d.Name != "" {
		s += "@" + d.Name + " "
	}
	s += d.Timing + " "
	switch d.Kind {
	case ast.HookFunction:
		s += "@" + d.Filter
		if d.HasPrefix {
			s += "(" + quote(d.Prefix) + ")"
		}
	case ast.HookOperation:
		s += "op:" + d.Filter
	default:
		s += d.Filter
	}
	s += " = "
	if w, ok := d.Body.(*ast.WhenExpr); ok {
		return s + p.when(w)
	}
	return s + p.expr(d.Body)
}
