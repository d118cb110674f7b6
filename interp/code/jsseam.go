package code

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"
)

// ErrNotLinked is wrapped by every error saying that a script needs an
// engine the program was built without: the JavaScript engine (package
// github.com/guardrun/guardrun/js) or the token counter (package
// github.com/guardrun/guardrun/tokens). Callers that can hand the
// work to a program that has it (guardrun-hook delegating to guardrun)
// test for it with errors.Is.
var ErrNotLinked = errors.New("engine not linked into this program")

// JSImport is the import that links the JavaScript engine, for hints.
const JSImport = `import _ "github.com/guardrun/guardrun/js"`

// JSConfig is what a JSRunner is made with: the limits and streams of the
// Engine that owns it.
type JSConfig struct {
	// OutputLimit caps the console output one block captures.
	OutputLimit int
	// Stdout and Stderr receive console output; nil discards it.
	Stdout, Stderr io.Writer
	// MemoryLimit caps how much one block may grow the heap (negative:
	// no cap). See Options.MemoryLimit.
	MemoryLimit int64
}

// JSRequest is one `js {…}` or `node {…}` block to run.
type JSRequest struct {
	// Lang is "js" or "node", for messages.
	Lang string
	// Src is the block body; Params become its parameters.
	Src    string
	Params []Binding
	// Timeout bounds the block.
	Timeout time.Duration
	// Shadows returns the shadow functions queued since the previous
	// block. The runner calls it once it holds its runtime, so blocks
	// started concurrently still define them in the order they were
	// queued.
	Shadows func() []ShadowFunc
}

// JSRunner runs the JS blocks of one Engine in one runtime. Errors caused
// by the script are *Error.
type JSRunner interface {
	Run(ctx context.Context, req JSRequest) (any, error)
}

// jsFactory is the registered JavaScript engine; nil when none is linked.
var jsFactory atomic.Pointer[func(JSConfig) JSRunner]

// RegisterJS makes newRunner the JavaScript engine of every later Engine.
// The engine package calls it from its init (as database/sql drivers
// do), so a program that does not import it links no JavaScript engine
// and pays nothing for one; a js block then fails with ErrNotLinked.
func RegisterJS(newRunner func(JSConfig) JSRunner) {
	if newRunner == nil {
		panic("code: RegisterJS with a nil factory")
	}
	jsFactory.Store(&newRunner)
}

// HasJS reports whether a JavaScript engine is registered.
func HasJS() bool { return jsFactory.Load() != nil }

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

// takeShadows hands the queued shadow functions to the runner.
func (e *Engine) takeShadows() []ShadowFunc {
	e.mu.Lock()
	defer e.mu.Unlock()
	fns := e.shadows
	e.shadows = nil
	return fns
}

// RunJS runs a `js {…}` block body. Each binding becomes a parameter of
// the body; names that are not JavaScript identifiers are skipped. The
// body is a function body: `return` gives the result, and a single-line
// expression without `return` (e.g. `js { 1 + 2 }`) returns its value. A
// returned promise is awaited. When the block returns undefined or null
// but printed with console.log, the printed text (trimmed) is the result,
// as in mlld. The result is converted to value kinds: objects keep key
// order, functions become undefined, Dates become ISO strings. Without a
// registered engine it fails with an *Error wrapping ErrNotLinked.
func (e *Engine) RunJS(ctx context.Context, src string, params []Binding) (any, error) {
	return e.runJS(ctx, "js", src, params)
}

// RunNode runs a `node {…}` block. There is no real Node.js: it is RunJS
// with "node" in messages, so `require` and Node's modules are missing.
func (e *Engine) RunNode(ctx context.Context, src string, params []Binding) (any, error) {
	return e.runJS(ctx, "node", src, params)
}

func (e *Engine) runJS(ctx context.Context, lang, src string, params []Binding) (any, error) {
	r, err := e.jsRunner(lang)
	if err != nil {
		return nil, err
	}
	return r.Run(ctx, JSRequest{Lang: lang, Src: src, Params: params, Timeout: e.timeout(), Shadows: e.takeShadows})
}

// jsRunner returns the Engine's runner, making it on first use.
func (e *Engine) jsRunner(lang string) (JSRunner, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.js != nil {
		return e.js, nil
	}
	f := jsFactory.Load()
	if f == nil {
		return nil, NotLinkedError(lang)
	}
	e.js = (*f)(JSConfig{OutputLimit: e.opts.OutputLimit, Stdout: e.opts.Stdout, Stderr: e.opts.Stderr, MemoryLimit: e.opts.MemoryLimit})
	return e.js, nil
}

// NotLinkedError is the error for a lang ("js", "node") block in a
// program built without the JavaScript engine.
func NotLinkedError(lang string) *Error {
	return &Error{
		Lang:    lang,
		Message: lang + " block cannot run: this program was built without the JavaScript engine",
		Hint:    "the guardrun command has it; a Go program embedding guardrun adds " + JSImport,
		Err:     ErrNotLinked,
	}
}
