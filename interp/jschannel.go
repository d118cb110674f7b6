package interp

import (
	"sync"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// jsChannel is the taint of the run's one JS runtime. Every js block of a
// run shares the runtime, so a value one block stores in globalThis (or a
// closure, a prototype, …) can be returned by any later block: the runtime
// is a channel, and what leaves it must carry everything that entered it.
// A fresh runtime per block would close the channel too, but mlld scripts
// rely on globals persisting between blocks.
type jsChannel struct {
	mu sync.Mutex
	d  taint.Descriptor
}

// enter adds d to what the runtime has seen.
func (c *jsChannel) enter(d taint.Descriptor) {
	if d.IsZero() {
		return
	}
	c.mu.Lock()
	c.d = c.d.Merge(d)
	c.mu.Unlock()
}

// seen is the union of everything that entered the runtime so far.
func (c *jsChannel) seen() taint.Descriptor {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.d
}

// runJSChannel runs a js or node block through the run's shared runtime.
// The block's inputs enter the channel before it runs and its result
// leaves with the channel's union read after it ran, so a block running
// concurrently with another is tainted by it whichever finishes first.
func (in *interp) runJSChannel(e *env, c *ast.CodeExpr) (*value.Variable, error) {
	in.sh.js.enter(jsInputs(e))
	res, err := in.runJS(e, c)
	if err != nil {
		return nil, err
	}
	res.Security = res.Security.Merge(in.sh.js.seen())
	return res, nil
}

// jsInputs is the union of what a block's bindings carry: its parameters
// and the pipeline values its `mx` object exposes.
func jsInputs(e *env) taint.Descriptor {
	d := paramsDescriptor(e)
	if f := e.pipe; f != nil {
		if f.input != nil {
			d = d.Merge(f.input.Security)
		}
		if f.hint != nil {
			d = d.Merge(f.hint.Security)
		}
	}
	return d
}

// paramsDescriptor is the union of the innermost exe's parameters.
func paramsDescriptor(e *env) taint.Descriptor {
	var d taint.Descriptor
	for _, p := range e.params {
		if p.val != nil {
			d = d.Merge(p.val.Security)
		}
	}
	return d
}
