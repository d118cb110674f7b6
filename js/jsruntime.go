package js

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// runtime returns the Engine's JS runtime, creating it with its globals on
// first use. Callers hold e.mu.
func (e *runner) runtime() *goja.Runtime {
	if e.rt != nil {
		return e.rt
	}
	rt := goja.New()
	rt.SetMaxCallStackSize(maxJSCallStack)
	// First, so that console.log's JSON.stringify is the guarded one.
	installSizeGuards(rt, e.cfg.MemoryLimit)
	guardRegexpExec(rt)
	g := rt.GlobalObject()
	must(g.Set("global", g))

	console := rt.NewObject()
	stringify, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
	logTo := func(capture bool, w func() io.Writer) func(goja.FunctionCall) goja.Value {
		return func(call goja.FunctionCall) goja.Value {
			line := consoleLine(rt, stringify, call.Arguments) + "\n"
			if capture && e.console != nil {
				_, _ = e.console.Write([]byte(line))
			}
			if out := w(); out != nil {
				_, _ = io.WriteString(out, line)
			}
			return goja.Undefined()
		}
	}
	stdout := func() io.Writer { return e.cfg.Stdout }
	stderr := func() io.Writer { return e.cfg.Stderr }
	for _, name := range []string{"log", "info", "debug", "trace"} {
		must(console.Set(name, logTo(true, stdout)))
	}
	for _, name := range []string{"error", "warn"} {
		must(console.Set(name, logTo(false, stderr)))
	}
	must(g.Set("console", console))

	must(g.Set("require", func(call goja.FunctionCall) goja.Value {
		panic(rt.NewGoError(errors.New("require is not available: guardrun runs js and node blocks in an embedded engine without Node.js modules")))
	}))
	must(g.Set("setTimeout", e.setTimeout(rt)))
	must(g.Set("setImmediate", func(call goja.FunctionCall) goja.Value {
		args := append([]goja.Value{call.Argument(0), rt.ToValue(0)}, call.Arguments[min(1, len(call.Arguments)):]...)
		return e.setTimeout(rt)(goja.FunctionCall{This: call.This, Arguments: args})
	}))
	must(g.Set("clearTimeout", e.clearTimeout))
	must(g.Set("clearImmediate", e.clearTimeout))
	must(g.Set("mlld_now", func() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }))
	e.rt = rt
	return rt
}

// consoleLine formats console arguments as mlld does: objects as
// two-space JSON, everything else through String().
func consoleLine(rt *goja.Runtime, stringify goja.Callable, args []goja.Value) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if obj, ok := a.(*goja.Object); ok || goja.IsNull(a) {
			if ok {
				if _, isFn := goja.AssertFunction(obj); isFn {
					parts[i] = a.String()
					continue
				}
			}
			s, err := stringify(goja.Undefined(), a, goja.Null(), rt.ToValue(2))
			if err == nil && !goja.IsUndefined(s) {
				parts[i] = s.String()
				continue
			}
		}
		parts[i] = a.String()
	}
	return strings.Join(parts, " ")
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
