package code

import "github.com/dop251/goja"

// ShadowFunc is a function of a JS shadow environment (mlld's `exe js = {
// helper, … }`): an exe's JS body under the exe's name, callable from
// every later JS block of the run, and from the other shadow functions.
type ShadowFunc struct {
	Name   string
	Params []string
	Body   string
}

// SetShadow queues shadow functions; they are defined as globals of the
// run's JS runtime before the next block runs, replacing earlier
// definitions of the same names.
func (e *Engine) SetShadow(fns []ShadowFunc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shadows = append(e.shadows, fns...)
}

// installShadows defines the queued shadow functions in rt. The caller
// holds e.mu.
func (e *Engine) installShadows(rt *goja.Runtime) error {
	fns := e.shadows
	e.shadows = nil
	for _, fn := range fns {
		if !jsIdent.MatchString(fn.Name) || jsReserved[fn.Name] {
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
