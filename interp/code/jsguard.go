package code

import (
	"github.com/dop251/goja"
)

// jsSizeGuards wraps the JS builtins that allocate a size given by an
// argument in one native call ("x".repeat(1e12), new ArrayBuffer(1e12),
// new Array(1e9).fill(0)…). Such a call is a single Go allocation, or a
// native loop, that the memory watch cannot interrupt and that ends in a
// fatal out-of-memory, so these throw a RangeError first. Results built
// step by step (string concatenation in a loop, push) are left to the
// memory watch. This is best effort: a huge sparse array nested inside
// the value given to JSON.stringify, for one, is not caught. The arguments are the caps in string characters, array
// elements and buffer bytes, and the limit's text for the message.
const jsSizeGuards = `(function (maxChars, maxElems, maxBytes, limit) {
	"use strict";
	const fail = (what) => {
		throw new RangeError("Invalid " + what + ": it would exceed the " + limit + " memory limit of js blocks");
	};
	const num = (v) => { const n = Number(v); return n === n ? n : 0; };
	const method = (obj, name, tooBig, what) => {
		const orig = obj[name];
		const f = { [name](...args) { if (tooBig(this, args)) fail(what); return orig.apply(this, args); } }[name];
		Object.defineProperty(obj, name, { value: f, writable: true, configurable: true });
	};
	// A plain function, not a Proxy: goja's instanceof rejects proxies.
	// It shares C's prototype and inherits C's statics, so instanceof,
	// .constructor, subclassing and Uint8Array.from keep working.
	const ctor = (name, tooBig, what) => {
		const C = globalThis[name];
		if (typeof C !== "function") return;
		const W = function (...args) {
			if (tooBig(args)) fail(what);
			if (new.target === undefined) return C(...args);
			return Reflect.construct(C, args, new.target === W ? C : new.target);
		};
		Object.defineProperty(W, "name", { value: name });
		Object.defineProperty(W, "prototype", { value: C.prototype });
		Object.setPrototypeOf(W, C);
		Object.defineProperty(C.prototype, "constructor", { value: W, writable: true, configurable: true });
		Object.defineProperty(globalThis, name, { value: W, writable: true, configurable: true });
	};
	method(String.prototype, "repeat", (s, a) => String(s).length * num(a[0]) > maxChars, "string length");
	for (const name of ["padStart", "padEnd"]) {
		method(String.prototype, name, (s, a) => a[1] !== "" && num(a[0]) > maxChars, "string length");
	}
	for (const name of ["fill", "join"]) {
		method(Array.prototype, name, (arr) => num(arr.length) > maxElems, "array length");
	}
	method(JSON, "stringify", (J, a) => Array.isArray(a[0]) && num(a[0].length) > maxElems, "array length");
	method(Array, "from", (C, a) => a[0] != null && typeof a[0] !== "string" && num(a[0].length) > maxElems, "array length");
	ctor("ArrayBuffer", (a) => num(a[0]) > maxBytes, "array buffer length");
	ctor("SharedArrayBuffer", (a) => num(a[0]) > maxBytes, "array buffer length");
	for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
		"Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
		const per = globalThis[name] ? globalThis[name].BYTES_PER_ELEMENT : 1;
		ctor(name, (a) => typeof a[0] === "number" && a[0] * per > maxBytes, "typed array length");
	}
})`

// installSizeGuards applies jsSizeGuards for a heap cap of limit bytes.
// UTF-16 strings take two bytes a character and array slots at least
// sixteen, hence the divisions.
func installSizeGuards(rt *goja.Runtime, limit int64) {
	if limit <= 0 {
		return
	}
	fnVal, err := rt.RunString(jsSizeGuards)
	must(err)
	fn, ok := goja.AssertFunction(fnVal)
	if !ok {
		panic("jsSizeGuards is not a function")
	}
	_, err = fn(goja.Undefined(), rt.ToValue(limit/2), rt.ToValue(limit/16), rt.ToValue(limit), rt.ToValue(formatBytes(limit)))
	must(err)
}
