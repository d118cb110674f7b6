package js

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A block that keeps allocating is stopped by the memory watch long
// before its timeout; the small limit keeps the test fast and harmless.
func TestRunJSMemoryLimit(t *testing.T) {
	e := NewEngine(Options{MemoryLimit: 32 << 20, Timeout: 20 * time.Second})
	_, err := e.RunJS(context.Background(), "globalThis.kept = 'old'; return 1", nil)
	require.NoError(t, err)

	start := time.Now()
	_, err = e.RunJS(context.Background(), `globalThis.hog = []; while (true) hog.push("x".repeat(1e3).repeat(1e3) + Math.random())`, nil)
	var ce *Error
	require.True(t, errors.As(err, &ce), "%T %v", err, err)
	require.True(t, ce.OutOfMemory)
	require.False(t, ce.TimedOut)
	require.Equal(t, "memory limit exceeded: js block used more than 32 MiB of memory; raise the limit with the WithMemoryLimit option (--memory-limit)", ce.Message)
	require.Contains(t, ce.Hint, "MemoryLimit")
	require.Less(t, time.Since(start), 10*time.Second)

	// The runtime was replaced, so the hog's memory is unreachable, and
	// the engine keeps working.
	got, err := e.RunJS(context.Background(), "return typeof hog + ' ' + typeof kept", nil)
	require.NoError(t, err)
	require.Equal(t, "undefined undefined", got)
}

// Memory that is only churned (garbage) does not trip the limit.
func TestRunJSMemoryChurnAllowed(t *testing.T) {
	e := NewEngine(Options{MemoryLimit: 32 << 20})
	got, err := e.RunJS(context.Background(), `
		let n = 0
		for (let i = 0; i < 200; i++) { n += ("y".repeat(1e3).repeat(1e3) + i).length }
		return n`, nil)
	require.NoError(t, err)
	require.Equal(t, float64(200*1e6+10+90*2+100*3), got)
}

func TestRunJSMemoryLimitDisabled(t *testing.T) {
	e := NewEngine(Options{MemoryLimit: -1})
	got, err := e.RunJS(context.Background(), `const a = []; for (let i = 0; i < 40; i++) a.push("x".repeat(1e6) + i); return a.length`, nil)
	require.NoError(t, err)
	require.Equal(t, 40.0, got)
}

// After a timeout, a memory interrupt or a cancellation, nothing of the
// block keeps running: no goroutine is left behind and the JS code does
// not advance.
func TestRunJSLeavesNothingRunning(t *testing.T) {
	before := runtime.NumGoroutine()
	e := NewEngine(Options{Timeout: 50 * time.Millisecond, MemoryLimit: 32 << 20})
	for i := 0; i < 5; i++ {
		_, err := e.RunJS(context.Background(), "globalThis.n = 0; while (true) { n++ }", nil)
		require.Error(t, err)
		_, err = e.RunJS(context.Background(), "return 1", nil)
		require.NoError(t, err)
	}
	a, err := e.RunJS(context.Background(), "globalThis.n = 0; while (true) { n++ }", nil)
	require.Nil(t, a)
	require.Error(t, err)
	n1, err := e.RunJS(context.Background(), "return n", nil)
	require.NoError(t, err)
	time.Sleep(30 * time.Millisecond)
	n2, err := e.RunJS(context.Background(), "return n", nil)
	require.NoError(t, err)
	require.Equal(t, n1, n2, "the timed-out loop kept running")

	_, err = e.RunJS(context.Background(), `const a = []; while (true) a.push("x".repeat(1e3).repeat(1e3) + a.length)`, nil)
	require.Error(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = NewEngine(Options{}).RunJS(ctx, "while (true) {}", nil)
	require.Error(t, err)

	// time.AfterFunc goroutines may still be finishing; give them a moment.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before)
}

// One native call that would allocate a huge block at once is a fatal
// out-of-memory the watch cannot interrupt; the guards throw first.
func TestRunJSSizeGuards(t *testing.T) {
	e := NewEngine(Options{MemoryLimit: 32 << 20})
	refused := map[string]string{
		`"x".repeat(1e12)`:                "string length",
		`"x".repeat(1e6).repeat(1e6)`:     "string length",
		`"x".repeat(Infinity)`:            "string length",
		`"x".padEnd(1e12)`:                "string length",
		`"x".padStart(1e23, "ab")`:        "string length",
		`new Array(1e9).fill(0)`:          "array length",
		`new Array(1e9).join("x")`:        "array length",
		`Array.from({length: 1e10})`:      "array length",
		`new ArrayBuffer(1e12)`:           "array buffer length",
		`new Uint8Array(1e11)`:            "typed array length",
		`new Float64Array(8 << 20)`:       "typed array length",
		`JSON.stringify(new Array(1e9))`:  "array length",
		`Uint8Array.from({length: 1e10})`: "",
	}
	for src, what := range refused {
		t.Run(src, func(t *testing.T) {
			_, err := e.RunJS(context.Background(), "return "+src, nil)
			var ce *Error
			require.True(t, errors.As(err, &ce), "%T %v", err, err)
			require.Contains(t, ce.Message, "Invalid "+what)
			if what != "" {
				require.Equal(t, "Invalid "+what+": it would exceed the 32 MiB memory limit of js blocks", ce.Message)
			}
		})
	}
	allowed := map[string]string{
		`"ab".repeat(3)`:                                  "ababab",
		`"".repeat(1e12)`:                                 "",
		"JSON.stringify([1, {a: 2}])":                     `[1,{"a":2}]`,
		`"5".padStart(3, "0")`:                            "005",
		`"x".padEnd(1e12, "")`:                            "x",
		`[1, 2].join("-")`:                                "1-2",
		`new Array(3).fill(0).join("")`:                   "000",
		`Array.from("abc").join("")`:                      "abc",
		`Array.from({length: 3}, (_, i) => i)`:            "0,1,2",
		`String(new Uint8Array(3).length)`:                "3",
		`String(new Uint8Array(2) instanceof Uint8Array)`: "true",
		`String(Uint8Array.from([1, 2]).length)`:          "2",
		`String(new ArrayBuffer(8).byteLength)`:           "8",
		`String([].constructor === Array)`:                "true",
		`String.prototype.repeat.name`:                    "repeat",
		`String(typeof Uint8Array)`:                       "function",
	}
	for src, want := range allowed {
		got, err := e.RunJS(context.Background(), "return String("+src+")", nil)
		require.NoError(t, err, src)
		require.Equal(t, want, got, src)
	}
}

func TestRunJSGuardedConstructorsBehave(t *testing.T) {
	e := NewEngine(Options{MemoryLimit: 32 << 20})
	got, err := e.RunJS(context.Background(), `
		class Sub extends Uint8Array {}
		const s = new Sub(2)
		const b = new Uint8Array(new ArrayBuffer(4))
		return [s instanceof Sub, s instanceof Uint8Array, s.length, b.length, b.constructor === Uint8Array,
			Uint8Array.name, Uint8Array.BYTES_PER_ELEMENT, Uint8Array.of(7, 8)[1], new Uint8Array([1, 2, 3])[2]].join(",")`, nil)
	require.NoError(t, err)
	require.Equal(t, "true,true,2,4,true,Uint8Array,1,8,3", got)
	_, err = e.RunJS(context.Background(), "return Uint8Array(2)", nil)
	require.Error(t, err, "typed arrays still require new")
}

// Ways around the size guards the review found or that follow the same
// pattern: reaching an original constructor, and arguments or lengths
// that answer the check one thing and the builtin another. Sizes stay
// near 100 MB so that the old guards fail this test without taking the
// machine down.
func TestRunJSSizeGuardBypasses(t *testing.T) {
	e := NewEngine(Options{MemoryLimit: 32 << 20})
	refused := map[string]string{
		"original typed array constructor":    `new (Object.getPrototypeOf(Float64Array))(12e6).length`,
		"original constructor with newTarget": `Reflect.construct(Object.getPrototypeOf(Float64Array), [12e6], Float64Array).length`,
		"typed array from array-like":         `new Float64Array({length: 12e6}).length`,
		"nested sparse array in JSON":         `JSON.stringify([new Array(3e7)]).length`,
		"JSON of one string many times":       `(() => { const s = "x".repeat(1e6); return JSON.stringify(new Array(100).fill(s)).length })()`,
		"console.log of a sparse array":       `console.log([new Array(3e7)])`,
		"indexOf on a huge sparse array":      `(() => { const a = []; a.length = 1e8; return a.indexOf(1) })()`,
		"forEach over an array-like":          `(() => { let n = 0; Array.prototype.forEach.call({length: 1e8}, () => n++); return n })()`,
		"concat of a spreadable array-like":   `[].concat({length: 1e8, [Symbol.isConcatSpreadable]: true}).length`,
		"slice with a length getter":          `Array.prototype.slice.call({ get length() { return 1e8 } }).length`,
		"join of large parts":                 `(() => { const s = "x".repeat(1e6); return new Array(100).fill(s).join("").length })()`,
	}
	for name, src := range refused {
		t.Run(name, func(t *testing.T) {
			got, err := e.RunJS(context.Background(), "return "+src, nil)
			require.Error(t, err, "got %v", got)
		})
	}
	// Converted once: the builtin sees what the check saw.
	once := map[string]string{
		"repeat valueOf":       `(() => { let c = 0; return "xy".repeat({ valueOf() { return c++ ? 3e7 : 1 } }).length + ":" + c })()`,
		"padEnd valueOf":       `(() => { let c = 0; return "x".padEnd({ valueOf() { return c++ ? 6e7 : 2 } }).length + ":" + c })()`,
		"fill length getter":   `(() => { let c = 0; const o = { get length() { return c++ ? 1e6 : 1 } }; Array.prototype.fill.call(o, 0); return Object.keys(o).length + ":" + c })()`,
		"join length getter":   `(() => { let c = 0; return Array.prototype.join.call({ get length() { return c++ ? 1e7 : 2 } }).length + ":" + c })()`,
		"from length getter":   `(() => { let c = 0; return Array.from({ get length() { return c++ ? 1e7 : 2 } }).length + ":" + c })()`,
		"repeat this toString": `(() => { let c = 0; const o = { toString() { return c++ ? "x".repeat(1000) : "x" } }; return String.prototype.repeat.call(o, 1e4).length + ":" + c })()`,
	}
	want := map[string]string{
		"repeat valueOf": "2:1", "padEnd valueOf": "2:1", "fill length getter": "2:1",
		"join length getter": "1:1", "from length getter": "2:1", "repeat this toString": "10000:1",
	}
	for name, src := range once {
		t.Run(name, func(t *testing.T) {
			got, err := e.RunJS(context.Background(), "return "+src, nil)
			require.NoError(t, err)
			require.Equal(t, want[name], got)
		})
	}
	// No path leads from a guarded constructor back to the original.
	got, err := e.RunJS(context.Background(), `return [
		Object.getPrototypeOf(Float64Array) === Object.getPrototypeOf(Float64Array.prototype).constructor,
		new Float64Array(1).constructor === Float64Array,
		new Float64Array(1).buffer.constructor === ArrayBuffer,
		Object.getPrototypeOf(ArrayBuffer) === Function.prototype,
		typeof Float64Array.from, ArrayBuffer.isView(new Uint8Array(1)), typeof SharedArrayBuffer,
	].join(",")`, nil)
	require.NoError(t, err)
	require.Equal(t, "true,true,true,true,function,true,undefined", got)
}
