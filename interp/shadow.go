package interp

import (
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/code"
)

// execShadow defines a shadow environment: each named exe, which must have
// a JS body, becomes a function that later js and node blocks can call by
// name (mlld's `exe js = { helper }`). The functions run inside the JS
// runtime on the values the calling block passes them, so what they return
// is part of that block's result and carries what entered the block.
func (in *interp) execShadow(e *env, d *ast.ShadowDirective) error {
	switch d.Lang {
	case "py", "python":
		return newError(KindCode, d.Pos, "guardrun runs js, node, cmd, sh and bash blocks",
			"Python shadow environments are not supported")
	}
	fns := make([]code.ShadowFunc, 0, len(d.Names))
	for _, name := range d.Names {
		v, ok := e.lookup(name)
		if !ok {
			return newError(KindVariable, d.Pos, "define the exe before listing it in the shadow environment",
				"Variable not found: %s", name)
		}
		x, ok := v.Data.(*exe)
		if !ok {
			return newError(KindType, d.Pos, "list exes defined with a js or node body",
				"@%s is not an executable", name)
		}
		c, ok := x.body.(*ast.CodeExpr)
		if !ok || !(c.Lang == "js" || c.Lang == "node") {
			return newError(KindType, d.Pos, "a shadow function needs a js or node body: exe @"+name+"(x) = js { … }",
				"@%s has no JavaScript body", name)
		}
		params := make([]string, len(x.params))
		for i, p := range x.params {
			params[i] = p.Name
		}
		fns = append(fns, code.ShadowFunc{Name: name, Params: params, Body: c.Code})
	}
	if err := in.checkCodePolicy("js", ""); err != nil {
		return err
	}
	in.codeEngine().SetShadow(fns)
	return nil
}
