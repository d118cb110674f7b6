package js

import (
	"fmt"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// regexpMatchTimeout bounds one regular expression match of a JS block.
// goja runs patterns that Go's linear regexp package cannot (lookaround,
// backreferences) with regexp2, a backtracking engine: `/^(a+)+(?=\x00)/`
// on 30 characters runs for minutes, and rt.Interrupt is not looked at
// inside a match, so neither the block's timeout nor the run's deadline
// could stop it. regexp2 reads the bound when a pattern is compiled,
// from a package variable, which is set once here before any runtime
// exists; it is the same for every run, so concurrent runs need nothing
// of their own. A block's deadline therefore stops a runaway match at
// most this long after it passes.
//
// A match that hits the bound is reported by goja as "no match", which
// would let a guard helper's `!/bad/.test(s)` pass on hostile input; the
// exec wrapper below turns it into an exception instead.
const regexpMatchTimeout = time.Second

func init() {
	regexp2.DefaultMatchTimeout = regexpMatchTimeout
}

// guardRegexpExec replaces RegExp.prototype.exec and test (which goja
// runs without calling exec) with wrappers that throw when one call runs
// for regexpMatchTimeout, which only a match stopped by regexp2's timeout
// does. Replacing exec also makes goja take the specification's path for
// match, matchAll, replace, search and split, which then call exec, so
// every match of a block passes here. The properties are read-only, so a
// block cannot swap the originals back in.
func guardRegexpExec(rt *goja.Runtime) {
	proto := rt.Get("RegExp").ToObject(rt).Get("prototype").ToObject(rt)
	for _, name := range []string{"exec", "test"} {
		orig, ok := goja.AssertFunction(proto.Get(name))
		if !ok {
			panic("RegExp.prototype." + name + " is not a function")
		}
		wrapper := rt.ToValue(func(call goja.FunctionCall) goja.Value {
			start := time.Now()
			v, err := orig(call.This, call.Arguments...)
			if err != nil {
				panic(err)
			}
			if time.Since(start) >= regexpMatchTimeout {
				panic(rt.NewGoError(fmt.Errorf("regular expression match took longer than %s and was stopped (catastrophic backtracking?): simplify the pattern, or avoid lookaround and backreferences on long input", regexpMatchTimeout)))
			}
			return v
		}).ToObject(rt)
		must(wrapper.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE))
		must(wrapper.DefineDataProperty("length", rt.ToValue(1), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE))
		must(proto.DefineDataProperty(name, wrapper, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE))
	}
}
