package js

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/guardrun/guardrun/interp/code"
	// A block's heap is sampled from its first millisecond: read it
	// without stopping the world.
	_ "github.com/guardrun/guardrun/interp/code/heapmetric"
	"github.com/guardrun/guardrun/interp/value"
)

// jsSourceName names compiled blocks in goja stack traces, so exception
// positions can be mapped back to the block body.
const jsSourceName = "guardrun-block.js"

// maxJSCallStack bounds recursion inside a block: deep recursion raises a
// RangeError instead of exhausting the Go stack.
const maxJSCallStack = 2048

// Interrupt values that tell why a block was stopped.
var (
	errJSTimeout = errors.New("timeout")
	errJSMemory  = errors.New("memory limit")
)

var jsIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })

// jsReserved are words that cannot be parameter names.
var jsReserved = map[string]bool{
	"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "else": true, "export": true,
	"extends": true, "finally": true, "for": true, "function": true, "if": true, "import": true,
	"in": true, "instanceof": true, "new": true, "return": true, "super": true, "switch": true,
	"this": true, "throw": true, "try": true, "typeof": true, "var": true, "void": true,
	"while": true, "with": true, "yield": true, "let": true, "static": true, "enum": true,
	"await": true, "implements": true, "package": true, "protected": true, "interface": true,
	"private": true, "public": true, "null": true, "true": true, "false": true, "arguments": true,
	"eval": true,
}

// runner is the goja JSRunner of one code.Engine: all its blocks share
// one runtime, so globals persist across blocks as they do in mlld.
type runner struct {
	cfg code.JSConfig

	mu sync.Mutex
	rt *goja.Runtime
	// timeout is the limit of the block being run.
	timeout time.Duration
	// console collects console.log output of the block being run.
	console *code.LimitedBuffer
	// timers are setTimeout callbacks waiting to run; they run in order
	// once the block's synchronous part and its promise jobs are done.
	timers    []*timer
	nextTimer int64
}

func newRunner(cfg code.JSConfig) code.JSRunner { return &runner{cfg: cfg} }

// Run runs one block; blocks of one runner run one at a time.
func (e *runner) Run(ctx context.Context, req code.JSRequest) (any, error) {
	return e.runJS(ctx, req)
}

func (e *runner) runJS(ctx context.Context, req code.JSRequest) (result any, err error) {
	lang, src, params := req.Lang, req.Src, req.Params
	if err := ctx.Err(); err != nil {
		return nil, code.InterruptedError(lang, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.timeout = req.Timeout
	rt := e.runtime()
	var shadows []code.ShadowFunc
	if req.Shadows != nil {
		shadows = req.Shadows()
	}
	if err := e.installShadows(rt, shadows); err != nil {
		return nil, compileError(lang, err)
	}
	e.console = code.NewLimitedBuffer(e.cfg.OutputLimit)
	e.timers = nil
	defer func() {
		// A panic inside goja or a conversion must not take the process
		// down; report it as a failure of the block.
		if r := recover(); r != nil {
			result, err = nil, &code.Error{Lang: lang, Message: fmt.Sprintf("%s block failed: %v", lang, r)}
		}
		e.timers = nil
	}()

	names, values := e.bindParams(rt, params)
	prog, cerr := compileBody(src, names)
	if cerr != nil {
		return nil, compileError(lang, cerr)
	}

	stop := e.armInterrupt(ctx, rt)
	v, rerr := e.execute(rt, prog, values)
	stop()
	if rerr != nil {
		jerr := e.jsError(lang, rerr, ctx)
		if jerr.OutOfMemory {
			// Globals of the block may still hold the memory; drop the
			// runtime so the collector can take it back.
			e.rt = nil
		}
		return nil, jerr
	}
	if e.console.Overflowed() {
		return nil, &code.Error{Lang: lang, Message: fmt.Sprintf("%s block console output exceeded %d bytes", lang, e.cfg.OutputLimit)}
	}
	out, cvErr := fromJS(rt, v, 0, map[*goja.Object]bool{})
	if cvErr != nil {
		return nil, &code.Error{Lang: lang, Message: fmt.Sprintf("%s block result: %v", lang, cvErr)}
	}
	if out == nil || isUndefined(out) {
		if printed := strings.TrimSpace(e.console.String()); printed != "" {
			return printed, nil
		}
	}
	return out, nil
}

// armInterrupt interrupts rt when the timeout passes, ctx ends or the
// block grows the heap past the memory limit. The returned func disarms
// it, waits for the memory watch to stop (no goroutine outlives the
// block) and clears any interrupt that raced the end.
func (e *runner) armInterrupt(ctx context.Context, rt *goja.Runtime) func() {
	var mu sync.Mutex
	active := true
	interrupt := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		if active {
			rt.Interrupt(v)
		}
	}
	timer := time.AfterFunc(e.timeout, func() { interrupt(errJSTimeout) })
	stopCtx := context.AfterFunc(ctx, func() { interrupt(ctx.Err()) })
	stopWatch := code.WatchBlockMemory(e.cfg.MemoryLimit, func() { interrupt(errJSMemory) })
	return func() {
		timer.Stop()
		stopCtx()
		stopWatch()
		mu.Lock()
		active = false
		mu.Unlock()
		rt.ClearInterrupt()
	}
}

// execute calls the compiled function and, if it returned a promise, runs
// pending timers until the promise settles.
func (e *runner) execute(rt *goja.Runtime, prog *goja.Program, args []goja.Value) (goja.Value, error) {
	fnVal, err := rt.RunProgram(prog)
	if err != nil {
		return nil, err
	}
	fn, ok := goja.AssertFunction(fnVal)
	if !ok {
		return nil, errors.New("block did not compile to a function")
	}
	v, err := fn(goja.Undefined(), args...)
	if err != nil {
		return nil, err
	}
	p, isPromise := v.Export().(*goja.Promise)
	if !isPromise {
		return v, nil
	}
	for p.State() == goja.PromiseStatePending {
		t := e.popTimer()
		if t == nil {
			return nil, errors.New("the block returned a promise that never settled")
		}
		if _, err := t.fn(goja.Undefined(), t.args...); err != nil {
			return nil, err
		}
	}
	if p.State() == goja.PromiseStateRejected {
		return nil, &rejection{reason: p.Result()}
	}
	return p.Result(), nil
}

// rejection is a promise rejected with reason.
type rejection struct{ reason goja.Value }

func (r *rejection) Error() string { return "promise rejected" }

func (e *runner) bindParams(rt *goja.Runtime, params []code.Binding) ([]string, []goja.Value) {
	index := map[string]int{}
	var names []string
	var values []goja.Value
	for _, b := range params {
		if !jsIdent().MatchString(b.Name) || jsReserved[b.Name] {
			continue
		}
		v := toJS(rt, b.Value, 0)
		if i, dup := index[b.Name]; dup {
			values[i] = v
			continue
		}
		index[b.Name] = len(names)
		names = append(names, b.Name)
		values = append(values, v)
	}
	return names, values
}

// jsError turns a goja failure into *Error.
func (e *runner) jsError(lang string, err error, ctx context.Context) *code.Error {
	var interrupted *goja.InterruptedError
	if errors.As(err, &interrupted) {
		switch interrupted.Value() {
		case errJSTimeout:
			return code.TimeoutError(lang, e.timeout)
		case errJSMemory:
			return code.MemoryError(lang, e.cfg.MemoryLimit)
		}
		cause := ctx.Err()
		if cause == nil {
			cause = fmt.Errorf("%v", interrupted.Value())
		}
		return code.InterruptedError(lang, cause)
	}
	var rej *rejection
	if errors.As(err, &rej) {
		return &code.Error{Lang: lang, Message: jsMessage(rej.reason)}
	}
	var exc *goja.Exception
	if errors.As(err, &exc) {
		out := &code.Error{Lang: lang, Message: jsMessage(exc.Value())}
		for _, f := range exc.Stack() {
			pos := f.Position()
			if f.SrcName() == jsSourceName && pos.Line > 1 {
				out.Line, out.Column = pos.Line-1, pos.Column
				break
			}
		}
		return out
	}
	var stack *goja.StackOverflowError
	if errors.As(err, &stack) {
		return &code.Error{Lang: lang, Message: "Maximum call stack size exceeded"}
	}
	return &code.Error{Lang: lang, Message: err.Error()}
}

// jsMessage is what mlld reports for a thrown value: an Error's message,
// or the value as a string.
func jsMessage(v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	if obj, ok := v.(*goja.Object); ok {
		if m := obj.Get("message"); m != nil && !goja.IsUndefined(m) {
			if msg := m.String(); msg != "" {
				return msg
			}
		}
	}
	return v.String()
}

// syntaxPos matches goja's "file: Line L:C message (and N more errors)".
var syntaxPos = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(jsSourceName) + `: Line (\d+):(\d+) (.*?)(?: \(and \d+ more errors?\))?$`)
})

func compileError(lang string, err error) error {
	msg := err.Error()
	var syn *goja.CompilerSyntaxError
	if errors.As(err, &syn) {
		msg = syn.Message
	}
	out := &code.Error{Lang: lang, Message: "SyntaxError: " + msg}
	if m := syntaxPos().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		out.Message = "SyntaxError: " + m[3]
		if line > 1 {
			out.Line, out.Column = line-1, col
		}
	}
	return out
}

// compileBody wraps the block body in a function taking names. A body that
// only compiles without the implicit return (a one-line statement such as
// `throw …` or `while (…) {}`) is compiled as written.
func compileBody(src string, names []string) (*goja.Program, error) {
	keyword := "function"
	if strings.Contains(src, "await") {
		keyword = "async function"
	}
	wrap := func(body string) string {
		return "(" + keyword + "(" + strings.Join(names, ", ") + ") {\n" + body + "\n})"
	}
	body := addImplicitReturn(src)
	prog, err := goja.Compile(jsSourceName, wrap(body), false)
	if err != nil && body != src {
		if plain, perr := goja.Compile(jsSourceName, wrap(src), false); perr == nil {
			return plain, nil
		}
	}
	return prog, err
}

// addImplicitReturn makes expression-style bodies return their value, as
// mlld does: a body wrapped in one pair of parentheses, or a single line
// without `;` that does not start with console.log. Any body mentioning
// `return` is left alone.
func addImplicitReturn(src string) string {
	trimmed := strings.TrimSpace(src)
	if trimmed == "" || strings.Contains(src, "return") {
		return src
	}
	if isWrappedExpression(trimmed) {
		return "return " + trimmed
	}
	if !strings.Contains(src, "\n") && !strings.Contains(src, ";") && !strings.HasPrefix(trimmed, "console.log") {
		return "return (" + trimmed + ")"
	}
	return src
}

// isWrappedExpression reports whether s is one parenthesised expression,
// skipping brackets inside string literals.
func isWrappedExpression(s string) bool {
	return strings.HasPrefix(s, "(") && value.MatchingBracket(s, 0) == len(s)-1
}

// timer is a pending setTimeout callback.
type timer struct {
	id    int64
	delay float64
	fn    goja.Callable
	args  []goja.Value
}

// popTimer removes and returns the timer due first (shortest delay, then
// creation order); time does not really pass.
func (e *runner) popTimer() *timer {
	if len(e.timers) == 0 {
		return nil
	}
	sort.SliceStable(e.timers, func(i, j int) bool {
		if e.timers[i].delay != e.timers[j].delay {
			return e.timers[i].delay < e.timers[j].delay
		}
		return e.timers[i].id < e.timers[j].id
	})
	t := e.timers[0]
	e.timers = e.timers[1:]
	return t
}

func (e *runner) setTimeout(rt *goja.Runtime) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		fn, ok := goja.AssertFunction(call.Argument(0))
		if !ok {
			panic(rt.NewTypeError("setTimeout: the callback must be a function"))
		}
		delay := call.Argument(1).ToFloat()
		if math.IsNaN(delay) || delay < 0 {
			delay = 0
		}
		var args []goja.Value
		if len(call.Arguments) > 2 {
			args = append(args, call.Arguments[2:]...)
		}
		e.nextTimer++
		e.timers = append(e.timers, &timer{id: e.nextTimer, delay: delay, fn: fn, args: args})
		return rt.ToValue(e.nextTimer)
	}
}

func (e *runner) clearTimeout(call goja.FunctionCall) goja.Value {
	id := call.Argument(0).ToInteger()
	for i, t := range e.timers {
		if t.id == id {
			e.timers = append(e.timers[:i], e.timers[i+1:]...)
			break
		}
	}
	return goja.Undefined()
}
