package interp

import (
	"fmt"
	"strings"
	"time"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// loopCtl is the value of `done [value]` / `continue [value]`. Like retry
// and skip it travels out of the blocks it is in (runBlock returns it) up
// to the loop or for that consumes it.
type loopCtl struct {
	done bool
	val  *value.Variable
}

// isLoopCtl reports whether v is a done or continue signal.
func isLoopCtl(v *value.Variable) bool {
	if v == nil {
		return false
	}
	_, ok := v.Data.(loopCtl)
	return ok
}

// maxLoopIterations bounds a loop without a limit, so a script that never
// says done still ends (a loop with a limit may not go above it either).
const maxLoopIterations = 100000

// evalLoopCtl evaluates a done or continue to its signal.
func (in *interp) evalLoopCtl(e *env, x *ast.LoopCtlExpr) (*value.Variable, error) {
	c := loopCtl{done: x.Done}
	if x.Value != nil {
		v, err := in.evalExpr(e, x.Value)
		if err != nil {
			return nil, err
		}
		c.val = v
	}
	return value.New(c), nil
}

// evalLoop runs a loop expression (SPEC: mlld's loop). Each iteration runs
// the body in a fresh scope where @input is the value the previous one
// passed to continue (null at first). Until is checked before every
// iteration. The loop's value is what done carried (or `=> value`),
// else null: as in mlld, running out of iterations or meeting the until
// condition gives no value.
func (in *interp) evalLoop(e *env, x *ast.LoopExpr) (*value.Variable, error) {
	limit := maxLoopIterations
	if x.Limit != nil {
		lv, err := in.evalExpr(e, x.Limit)
		if err != nil {
			return nil, atPos(err, KindUnexpected, x.Pos)
		}
		n, ok := lv.Data.(float64)
		if !ok || n < 0 || n != float64(int(n)) {
			return nil, newError(KindType, x.Pos, "write loop(N) with a whole number N, or loop without a limit",
				"loop limit must be a non-negative whole number, got %s", value.Display(lv.Data))
		}
		if int(n) < limit {
			limit = int(n)
		}
	}
	input := value.New(nil)
	for i := 0; i < limit; i++ {
		if err := in.checkCtx(x.Pos); err != nil {
			return nil, err
		}
		le := e.child()
		le.sc.vars["input"] = input
		total := -1
		if x.Limit != nil {
			total = limit
		}
		le.iter = &iterFrame{kind: "loop", index: i + 1, total: total, parent: e.iter}
		if x.Until != nil {
			stop, err := in.evalCond(le, x.Until)
			if err != nil {
				return nil, atPos(err, KindUnexpected, x.Pos)
			}
			if stop {
				break
			}
		}
		if x.Body == nil {
			break
		}
		v, returned, err := in.runBlock(le, x.Body, true)
		if err != nil {
			return nil, err
		}
		if isRetry(v) {
			return nil, newError(KindPipeline, x.Pos, "end an iteration with continue [value], and the loop with done [value]",
				"Use 'continue' instead of 'retry' in loop bodies")
		}
		if c, ok := ctlOf(v); ok {
			next := c.val
			if next == nil {
				next = value.New(nil)
			}
			if c.done {
				return next, nil
			}
			input = next
			continue
		}
		if returned && v != nil && !isSkip(v) {
			// `=> value` ends the loop with that value.
			return v, nil
		}
	}
	// As in mlld, a loop that ends by its limit or its until condition
	// has no value (null).
	return value.New(nil), nil
}

// ctlOf returns v's loop signal.
func ctlOf(v *value.Variable) (loopCtl, bool) {
	if v == nil {
		return loopCtl{}, false
	}
	c, ok := v.Data.(loopCtl)
	return c, ok
}

// parallelIterError turns the error of one iteration of a parallel for into
// its @mx.errors entry; an interrupt (timeout, cancellation) is not
// collected.
func parallelIterError(err error, idx int, item *value.Variable) (*value.Variable, bool) {
	if ie, ok := err.(*Error); ok && ie.Kind == KindInterrupt {
		return nil, false
	}
	// The iteration failed on its element: the message may quote it, so
	// it carries the element's descriptor, as the value does.
	msg := derived(errorMessage(err), item)
	eo := value.NewRecord()
	eo.SetData("index", float64(idx))
	eo.SetData("key", float64(idx))
	eo.Set("message", msg)
	eo.Set("error", msg)
	eo.Set("value", item)
	return eo.Variable(), true
}

// checkParallelWrite refuses a += from inside a parallel for iteration on
// a variable declared outside it: iterations may run in any order, so an
// outer write would race (mlld's rule). sc is the scope holding name.
func checkParallelWrite(e *env, sc *scope, name string, pos ast.Pos) error {
	if e.parIter == nil {
		return nil
	}
	for c := e.sc; c != nil; c = c.parent {
		if c == sc {
			return nil
		}
		if c == e.parIter {
			break
		}
	}
	return newError(KindVariable, pos, "use a block-scoped let inside a parallel for, and collect results from the loop's value",
		"Parallel for block cannot mutate outer variable @%s. at line %d, column %d", name, pos.Line, pos.Col)
}

// parallelCap is the evaluated cap of `for parallel(cap)`; it only checks
// the value: iterations run one after another, which every cap allows.
func (in *interp) parallelCap(e *env, f *ast.ForExpr) error {
	if f.Cap == nil {
		return nil
	}
	v, err := in.evalExpr(e, f.Cap)
	if err != nil {
		return err
	}
	if n, ok := v.Data.(float64); !ok || n < 1 {
		return newError(KindType, f.Pos, "write for parallel(N) with N ≥ 1",
			"parallel cap must be a positive number, got %s", fmt.Sprint(value.Display(v.Data)))
	}
	return nil
}

// isJSONRecord reports whether v can be one line of a .jsonl file: data
// (an object, array, number, boolean or null) or a string holding JSON.
func isJSONRecord(v *value.Variable) bool {
	s, ok := v.Data.(string)
	if !ok {
		_, undef := v.Data.(value.Undefined)
		return !undef
	}
	_, err := value.ParseJSON(strings.TrimSpace(s))
	return err == nil
}

// runWhile runs a `while(cap[, rate]) @processor` stage (mlld's while):
// the processor is called on the state, at most cap times. `done [v]`
// ends the stage with v (the state without one), `continue [v]` carries
// v (or the state) to the next iteration, and any other value becomes
// the next state. @input is the state and @mx.while the iteration.
// Reaching the cap without done is an error.
func (in *interp) runWhile(e *env, s *ast.Stage, input *value.Variable) (*value.Variable, error) {
	w := s.While
	call := &ast.Stage{Pos: s.Pos, Kind: ast.StageCall, Call: w.Proc}
	state := input
	for it := 1; it <= w.Cap; it++ {
		if err := in.checkCtx(s.Pos); err != nil {
			return nil, err
		}
		we := e.child()
		we.sc.vars["input"] = state
		we.iter = &iterFrame{kind: "while", index: it, total: w.Cap, parent: e.iter}
		v, err := in.runCallStage(we, call, state)
		if err != nil {
			return nil, err
		}
		if isRetry(v) {
			return nil, newError(KindPipeline, s.Pos, "end an iteration with continue [value], and the stage with done [value]",
				"Use 'continue' instead of 'retry' in while processors")
		}
		if c, ok := ctlOf(v); ok {
			if c.done {
				if c.val == nil {
					return state, nil
				}
				return c.val, nil
			}
			if c.val != nil {
				state = c.val
			}
		} else if v != nil {
			state = v
		}
		if w.RateMs > 0 && it < w.Cap {
			if err := in.pause(s.Pos, time.Duration(w.RateMs)*time.Millisecond); err != nil {
				return nil, err
			}
		}
	}
	return nil, newError(KindPipeline, s.Pos, "say done in the processor before the cap, or raise the cap",
		"While loop reached cap (%d) without 'done'. Consider increasing cap or check termination logic.", w.Cap)
}

// pause waits d, or until the run is interrupted.
func (in *interp) pause(pos ast.Pos, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-in.ctx.Done():
		return in.checkCtx(pos)
	}
}
