package js

import (
	"github.com/dop251/goja"

	"github.com/guardrun/guardrun/interp/code"
)

// installShadows defines shadow functions (mlld's `exe js = { helper,
// … }`) as globals of rt, replacing earlier definitions of the same
// names. The caller holds e.mu.
func (e *runner) installShadows(rt *goja.Runtime, fns []code.ShadowFunc) error {
	for _, fn := range fns {
		if !jsIdent().MatchString(fn.Name) || jsReserved[fn.Name] {
			continue
		}
		prog, err := compileBody(fn.Body, fn.Params)
		if err != nil {
			return err
		}
		v, err := rt.RunProgram(prog)
		if err != nil {
			return err
		}
		if err := rt.Set(fn.Name, v); err != nil {
			return err
		}
	}
	return nil
}
