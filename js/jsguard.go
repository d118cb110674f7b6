package js

import (
	"sync"

	"github.com/dop251/goja"

	"github.com/guardrun/guardrun/interp/value"
)

// jsSizeGuards replaces the JS builtins that could allocate a size given
// by an argument in one native call ("x".repeat(1e12), new
// ArrayBuffer(1e12), new Array(1e9).fill(0), JSON.stringify of a huge
// sparse array…). Such a call is a single Go allocation, or a native loop,
// that the memory watch cannot interrupt and that ends in a fatal
// out-of-memory, so the replacements throw a RangeError first. Results
// built step by step (string concatenation in a loop, push) are left to
// the memory watch.
//
// The replacements hold their own copies of everything they use, taken
// before any block runs, so a block cannot redirect them. Each argument is
// converted once and the converted value is what the original builtin
// receives: a valueOf or a length getter cannot answer one thing to the
// check and another to the allocation. The original constructors stay
// unreachable: a replacement's prototype is the original's parent
// (%TypedArray%, which refuses to construct, or Function.prototype),
// never the original itself. fill, join and Array.from on array-likes run
// as JS loops here, where the timeout and the memory watch can stop them.
//
// The arguments are the caps in string characters, array elements and
// buffer bytes, and the limit's text for the message.
const jsSizeGuards = `(function (maxChars, maxElems, maxBytes, limit) {
	"use strict";
	const { apply, construct, getPrototypeOf, setPrototypeOf, ownKeys } = Reflect;
	const { defineProperty, getOwnPropertyDescriptor } = Object;
	const toObject = Object, toNumber = Number, toStr = String, isArray = Array.isArray;
	const trunc = Math.trunc, RangeErrorC = RangeError, TypeErrorC = TypeError;
	const iteratorSym = Symbol.iterator;
	const origJoin = Array.prototype.join;
	const byteLengthOf = getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
	const isView = ArrayBuffer.isView;

	const fail = (what) => {
		throw new RangeErrorC("Invalid " + what + ": it would exceed the " + limit + " memory limit of js blocks");
	};
	const intOf = (v) => { const n = toNumber(v); return n === n ? trunc(n) + 0 : 0; };
	const lengthOf = (v) => { const n = intOf(v); return n <= 0 ? 0 : (n > 9007199254740991 ? 9007199254740991 : n); };
	const relative = (v, len, dflt) => {
		if (v === undefined) return dflt;
		const n = intOf(v);
		return n < 0 ? (len + n < 0 ? 0 : len + n) : (n > len ? len : n);
	};
	const thisObject = (v, name) => {
		if (v == null) throw new TypeErrorC("Array.prototype." + name + " called on null or undefined");
		return toObject(v);
	};
	const own = (list, i, v) => defineProperty(list, i, { value: v, writable: true, enumerable: true, configurable: true });
	const put = (obj, name, f) => {
		defineProperty(f, "name", { value: name });
		defineProperty(f, "length", { value: obj[name].length });
		defineProperty(obj, name, { value: f, writable: true, configurable: true });
	};
	const isBuffer = (v) => { try { apply(byteLengthOf, v, []); return true; } catch (e) { return false; } };
	// snapshot copies an iterable or array-like into a fresh array of at
	// most max elements, reading its length (or running its iterator)
	// once, in JS.
	const snapshot = (src, max, what) => {
		const list = [];
		let n = 0;
		const iter = src[iteratorSym];
		if (iter != null) {
			const it = apply(iter, src, []);
			const next = it.next;
			for (;;) {
				const r = apply(next, it, []);
				if (r.done) break;
				if (++n > max) fail(what);
				own(list, n - 1, r.value);
			}
			return list;
		}
		const len = lengthOf(src.length);
		if (len > max) fail(what);
		for (; n < len; n++) own(list, n, src[n]);
		return list;
	};

	const repeat = String.prototype.repeat;
	put(String.prototype, "repeat", function (count) {
		if (this == null) throw new TypeErrorC("String.prototype.repeat called on null or undefined");
		const s = toStr(this), n = intOf(count);
		if (s.length > 0 && n > 0 && s.length * n > maxChars) fail("string length");
		return apply(repeat, s, [n]);
	});
	for (const name of ["padStart", "padEnd"]) {
		const orig = String.prototype[name];
		put(String.prototype, name, function (maxLength, fill) {
			if (this == null) throw new TypeErrorC("String.prototype." + name + " called on null or undefined");
			const s = toStr(this), n = lengthOf(maxLength), f = fill === undefined ? " " : toStr(fill);
			if (f !== "" && n > maxChars) fail("string length");
			return apply(orig, s, [n, f]);
		});
	}
	put(Array.prototype, "fill", function (value, start, end) {
		const o = thisObject(this, "fill"), len = lengthOf(o.length);
		let k = relative(start, len, 0);
		const last = relative(end, len, len);
		if (last - k > maxElems) fail("array length");
		for (; k < last; k++) o[k] = value;
		return o;
	});
	put(Array.prototype, "join", function (separator) {
		const o = thisObject(this, "join"), len = lengthOf(o.length);
		const sep = separator === undefined ? "," : toStr(separator);
		if (len > maxElems) fail("array length");
		let total = len > 0 ? sep.length * (len - 1) : 0;
		if (total > maxChars) fail("string length");
		const parts = [];
		for (let i = 0; i < len; i++) {
			const e = o[i];
			const t = e == null ? "" : toStr(e);
			total += t.length;
			if (total > maxChars) fail("string length");
			own(parts, i, t);
		}
		return apply(origJoin, parts, [sep]);
	});
	// Native loops over an array's length (indexOf on a sparse array of
	// length 4e9, forEach skipping holes, slice of {length: 2 ** 40})
	// run without JS in between, so no timeout can stop them: refuse
	// lengths past the element cap. The length is read the way the
	// builtin will read it; a getter could answer differently the second
	// time, so array-likes with a length getter are refused.
	const hasOwn = Object.prototype.hasOwnProperty;
	const loopLength = (o) => {
		if (isArray(o)) return lengthOf(o.length);
		for (let p = o; p !== null; p = getPrototypeOf(p)) {
			const d = getOwnPropertyDescriptor(p, "length");
			if (d === undefined) continue;
			if (!apply(hasOwn, d, ["value"])) throw new TypeErrorC("array methods on an object whose length is a getter are not supported");
			return lengthOf(d.value);
		}
		return 0;
	};
	for (const name of ["indexOf", "lastIndexOf", "includes", "slice", "splice", "concat", "copyWithin", "reverse",
		"flat", "flatMap", "sort", "forEach", "map", "filter", "some", "every", "reduce", "reduceRight",
		"find", "findIndex", "findLast", "findLastIndex", "toLocaleString", "at", "entries", "keys", "values",
		"toReversed", "toSorted", "toSpliced", "with"]) {
		const orig = Array.prototype[name];
		if (typeof orig !== "function") continue;
		put(Array.prototype, name, function (...args) {
			const o = thisObject(this, name);
			if (loopLength(o) > maxElems) fail("array length");
			if (name === "concat") {
				for (let i = 0; i < args.length; i++) {
					const a = args[i];
					if (typeof a === "object" && a !== null && loopLength(a) > maxElems) fail("array length");
				}
			}
			return apply(orig, o, args);
		});
	}
	const from = Array.from;
	put(Array, "from", function (items, mapFn, thisArg) {
		if (items == null) return apply(from, this, [items, mapFn, thisArg]);
		const src = typeof items === "string" ? items : snapshot(toObject(items), maxElems, "array length");
		return apply(from, this, [src, mapFn, thisArg]);
	});
	const stringify = JSON.stringify;
	put(JSON, "stringify", function (value, replacer, space) {
		let gap = "";
		if (typeof space === "object" && space !== null) space = typeof space.valueOf() === "number" ? toNumber(space) : toStr(space);
		if (typeof space === "number") gap = "          ".slice(0, intOf(space) < 0 ? 0 : intOf(space));
		else if (typeof space === "string") gap = space.slice(0, 10);
		if (isArray(replacer)) {
			// A property list cannot be combined with the size check;
			// only the top level is checked.
			if (isArray(value) && lengthOf(value.length) > maxElems) fail("array length");
			return apply(stringify, JSON, [value, replacer, gap]);
		}
		const user = typeof replacer === "function" ? replacer : undefined;
		let total = 0;
		// The replacer sees every value just before it is written: count
		// what the text will hold and refuse huge arrays while there is
		// still time. Keys and values only, without indentation or a
		// user replacer, is the common case and the cheap one.
		let check = function (key, v) {
			total += key.length + 8;
			if (typeof v === "string") total += v.length;
			else if (typeof v === "object" && v !== null && isArray(v) && v.length > maxElems) fail("array length");
			if (total > maxChars) fail("string length");
			return v;
		};
		if (gap !== "" || user !== undefined) {
			// Indentation grows with depth. Values arrive depth first, so
			// the holders from the root to the current one form a stack;
			// it has no prototype, so no inherited setter can hide pushes.
			const stack = [];
			setPrototypeOf(stack, null);
			check = function (key, v) {
				if (user !== undefined) v = apply(user, this, [key, v]);
				let d = stack.length;
				while (d > 0 && stack[d - 1] !== this) d--;
				stack.length = d;
				total += key.length + gap.length * d + 8;
				if (typeof v === "string") total += v.length;
				else if (typeof v === "object" && v !== null) {
					if (isArray(v) && lengthOf(v.length) > maxElems) fail("array length");
					stack[d] = v;
				}
				if (total > maxChars) fail("string length");
				return v;
			};
		}
		return apply(stringify, JSON, [value, check, gap]);
	});

	// ctor replaces the global constructor name. args converts the
	// arguments once and returns what the original receives.
	const ctor = (name, args) => {
		const C = globalThis[name];
		if (typeof C !== "function") return;
		const W = function (...a) {
			if (new.target === undefined) return apply(C, undefined, a);
			return construct(C, args(a), new.target === W ? C : new.target);
		};
		defineProperty(W, "name", { value: name });
		defineProperty(W, "length", { value: C.length });
		for (const k of ownKeys(C)) {
			if (k !== "name" && k !== "length" && k !== "prototype") defineProperty(W, k, getOwnPropertyDescriptor(C, k));
		}
		defineProperty(W, "prototype", { value: C.prototype });
		setPrototypeOf(W, getPrototypeOf(C));
		defineProperty(C.prototype, "constructor", { value: W, writable: true, configurable: true });
		defineProperty(globalThis, name, { value: W, writable: true, configurable: true });
	};
	ctor("ArrayBuffer", (a) => {
		const n = intOf(a[0]);
		if (n > maxBytes) fail("array buffer length");
		return [n];
	});
	for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
		"Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
		const per = globalThis[name] ? globalThis[name].BYTES_PER_ELEMENT : 1;
		ctor(name, (a) => {
			const x = a[0];
			if (typeof x !== "object" || x === null) {
				if (x === undefined) return [];
				const n = intOf(x);
				if (n * per > maxBytes) fail("typed array length");
				return [n];
			}
			// Views over a buffer and copies of a typed array take no
			// more memory than exists; anything else is copied here.
			if (isBuffer(x) || isView(x)) return a;
			return [snapshot(x, trunc(maxBytes / per), "typed array length")];
		});
	}
})`

// sizeGuardsProgram is jsSizeGuards compiled once: every run's runtime
// installs it.
var sizeGuardsProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("guardrun-size-guards.js", jsSizeGuards, true)
})

// installSizeGuards applies jsSizeGuards for a heap cap of limit bytes.
// UTF-16 strings take two bytes a character and array slots at least
// sixteen, hence the divisions.
func installSizeGuards(rt *goja.Runtime, limit int64) {
	if limit <= 0 {
		return
	}
	fnVal, err := rt.RunProgram(sizeGuardsProgram())
	must(err)
	fn, ok := goja.AssertFunction(fnVal)
	if !ok {
		panic("jsSizeGuards is not a function")
	}
	_, err = fn(goja.Undefined(), rt.ToValue(limit/2), rt.ToValue(limit/16), rt.ToValue(limit), rt.ToValue(value.FormatBytes(limit)))
	must(err)
}
