package interp

import "github.com/guardrun/guardrun/ast"

// codeArgsEnv binds the variables a code block names in its header
// (`run js (@name, @age) { … }`) as the block's parameters, as an exe's
// parameters are: by name in JS, as environment variables in sh.
func (in *interp) codeArgsEnv(e *env, c *ast.CodeExpr) (*env, error) {
	ne := *e
	ne.params = append([]codeParam(nil), e.params...)
	for _, name := range c.Args {
		v, ok := e.lookup(name)
		if !ok {
			return nil, newError(KindVariable, c.Pos, "define the variable before passing it to the block",
				"Variable not found: %s", name)
		}
		ne.params = append(ne.params, codeParam{name: name, val: v})
	}
	return &ne, nil
}
