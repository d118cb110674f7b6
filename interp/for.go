package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

type iterItem struct {
	// key is the object key; nil for array elements, whose key is idx:
	// boxing every index would cost an allocation per element of every
	// loop, and few loops read the key.
	key any
	idx int
	val any
}

// keyValue is the element's key: its object key or array index.
func (it iterItem) keyValue() any {
	if it.key != nil {
		return it.key
	}
	return float64(it.idx)
}

// iterate lists the elements of a for source: array items, object values
// (with their keys) or the parsed form of a string holding JSON.
func iterate(v *value.Variable, pos ast.Pos) ([]iterItem, bool, error) {
	switch d := structuredData(v.Data).(type) {
	case []any:
		out := make([]iterItem, len(d))
		for i, x := range d {
			out[i] = iterItem{idx: i, val: x}
		}
		return out, false, nil
	case *value.Object:
		out := make([]iterItem, len(d.Keys))
		for i, k := range d.Keys {
			out[i] = iterItem{key: k, val: d.Values[k]}
		}
		return out, true, nil
	case nil, value.Undefined:
		return nil, false, nil
	}
	return nil, false, newError(KindType, pos, "for iterates over arrays and objects",
		"Cannot iterate over %s", typeName(v.Data))
}

// forIter is the per-element state of a for loop: the body's env and
// scope and the element's value (what derived(element, source) makes).
type forIter struct {
	env   env
	sc    scope
	item  value.Variable
	frame iterFrame
	pos   value.IterPos
}

// scopeFree reports whether evaluating n cannot keep a reference to the
// scope it runs in once it is done: n is made only of expressions that
// read variables, build values and call exes (an exe runs in its own
// scope). Only definitions capture a scope (an exe defined in a block
// closes over it), and directives other than `show` (which evaluates
// its expression and writes it), blocks, code, pipelines and loops are
// not listed, so the answer errs on the side of "no". A nil node is free.
func scopeFree(n ast.Node) bool {
	free := true
	ast.Inspect(n, func(c ast.Node) bool {
		switch c.(type) {
		case nil, *ast.Ref, *ast.StringLit, *ast.TextPart, *ast.InterpPart, *ast.NumberLit, *ast.BoolLit,
			*ast.NullLit, *ast.ArrayLit, *ast.ObjectLit, *ast.BinaryExpr, *ast.UnaryExpr, *ast.TernaryExpr,
			*ast.ExprStmt, *ast.ShowDirective:
			return true
		}
		free = false
		return false
	})
	return free
}

// evalFor runs a for loop. collect makes it a for expression whose value
// is the array of body results (skip drops an element).
func (in *interp) evalFor(e *env, f *ast.ForExpr, collect bool) (*value.Variable, error) {
	src, err := in.evalExpr(e, f.Source)
	if err != nil {
		return nil, atPos(err, KindUnexpected, f.Pos)
	}
	items, isObj, err := iterate(src, f.Pos)
	if err != nil {
		return nil, err
	}
	if len(items) > 0 {
		for _, name := range [2]string{f.Var, f.Key} {
			if resolverName(name) {
				return nil, reservedError(name, f.Pos)
			}
		}
	}
	var parErrs []*value.Variable
	if f.Parallel {
		if err := in.parallelCap(e, f); err != nil {
			return nil, atPos(err, KindUnexpected, f.Pos)
		}
		parErrs = []*value.Variable{}
	}
	results := make([]any, 0, len(items))
	var metas []*value.Object
	res := derived(nil, src)
	// Each iteration needs an env, a scope and the element's value; they
	// are allocated for the whole loop at once instead of three times per
	// element. Each iteration still gets its own, so a closure over one
	// iteration's scope is unaffected by the next.
	iters := make([]forIter, len(items))
	// Every element carries the source's descriptor: what derived(element,
	// src) gives, computed once.
	itemSec := taint.Descriptor{}.Merge(src.Security)
	// When nothing in the loop can keep a reference to an iteration's
	// scope (scopeFree), the iterations share one variable map, emptied
	// each time, instead of making a map (two allocations) each.
	var shared map[string]*value.Variable
	if scopeFree(f.Body) && scopeFree(f.Filter) {
		shared = make(map[string]*value.Variable, 2)
	}
	// mlld runs a parallel loop's first iteration (the first that passes
	// the filter) alone before the others, as a canary: its error ends the
	// loop, while the others' errors are collected (for.ts,
	// findCanaryTask).
	canary := f.Parallel
	for i, it := range items {
		if err := in.checkCtx(f.Pos); err != nil {
			return nil, err
		}
		fi := &iters[i]
		vars := shared
		if vars != nil {
			clear(vars)
		} else {
			vars = make(map[string]*value.Variable, 1)
		}
		fi.sc = scope{vars: vars, parent: e.sc}
		fi.env = *e
		fi.env.sc = &fi.sc
		fe := &fi.env
		if f.Parallel {
			fe.parIter = &fi.sc
		}
		fi.item.Data = it.val
		fi.item.Security = itemSec
		fi.item.Meta = itemMetaAt(src, i)
		// The key stays unboxed for arrays (it is the index): boxing it
		// would cost an allocation per element.
		fi.pos = value.IterPos{Key: it.key, Index: i, Array: !isObj}
		fi.item.Iter = &fi.pos
		fi.frame = iterFrame{kind: "for", index: i, total: len(items), key: it.key, par: f.Parallel, parent: e.iter}
		fe.iter = &fi.frame
		fe.sc.vars[f.Var] = &fi.item
		if len(f.VarPath) > 0 {
			if err := checkBindingPath(f, it.val, it.keyValue()); err != nil {
				return nil, err
			}
		}
		if f.Key != "" {
			fe.sc.vars[f.Key] = derived(it.keyValue(), src)
		}
		if isObj {
			fe.sc.vars[f.Var+"_key"] = value.New(it.keyValue())
		}
		if f.Filter != nil {
			ok, err := in.evalCond(fe, f.Filter)
			if err != nil {
				return nil, atPos(err, KindUnexpected, f.Pos)
			}
			if !ok {
				continue
			}
		}
		var v *value.Variable
		switch body := f.Body.(type) {
		case *ast.BlockExpr:
			v, _, err = in.runBlock(fe, body, !collect)
		case *ast.ForExpr:
			v, err = in.evalFor(fe, body, collect)
		case *ast.RunDirective:
			if collect {
				// `=> run {…}` in a for expression: the run is still a
				// guarded operation, but its output is the element, not
				// printed.
				qe := *fe
				qe.quietRun = true
				v, err = in.execRun(&qe, body)
				break
			}
			v, _, err = in.evalAction(fe, body, !collect)
		case ast.Node:
			v, _, err = in.evalAction(fe, body, !collect)
		}
		first := canary
		canary = false
		if err != nil {
			if f.Parallel && !first {
				// A failed iteration is collected, not fatal: its
				// result is the error object (mlld's error marker).
				if ev, ok := parallelIterError(err, i, &fi.item); ok {
					parErrs = append(parErrs, ev)
					if collect {
						results = append(results, ev.Data)
						res.Security = res.Security.Merge(ev.Security)
					}
					continue
				}
			}
			return nil, err
		}
		if c, ok := ctlOf(v); ok {
			if c.done {
				break
			}
			continue
		}
		if v == nil || isSkip(v) {
			continue
		}
		if collect {
			metas = collectMeta(metas, len(results), v)
			results = append(results, v.Data)
			res.Security = res.Security.Merge(v.Security)
		}
	}
	if f.Parallel {
		in.lastErrors = parErrs
	}
	res.Data = results
	res.ItemMeta = metas
	return res, nil
}

// evalForeach calls an exe once per element of its array arguments (the
// cartesian product when several are arrays).
func (in *interp) evalForeach(e *env, f *ast.ForeachExpr) (*value.Variable, error) {
	if f.Call == nil {
		return undefined(), nil
	}
	var callArgs []ast.Expr
	calleeRef := *f.Call
	if n := len(calleeRef.Path); n > 0 && calleeRef.Path[n-1].Kind == ast.AccessCall {
		callArgs = calleeRef.Path[n-1].Args
		calleeRef.Path = calleeRef.Path[:n-1]
	}
	callee, err := in.evalRef(e, &calleeRef)
	if err != nil {
		return nil, err
	}
	args, err := in.evalArgs(e, callArgs, calleeRef.Name)
	if err != nil {
		return nil, err
	}
	combos := [][]*value.Variable{{}}
	for _, a := range args {
		var next [][]*value.Variable
		if arr, ok := structuredData(a.Data).([]any); ok {
			for _, c := range combos {
				for _, el := range arr {
					nc := append(append([]*value.Variable(nil), c...), derived(el, a))
					next = append(next, nc)
				}
			}
		} else {
			for _, c := range combos {
				next = append(next, append(append([]*value.Variable(nil), c...), a))
			}
		}
		combos = next
	}
	res := derived(nil, args...)
	out := make([]any, 0, len(combos))
	for _, c := range combos {
		v, err := in.callValue(e, callee, c, f.Pos, &calleeRef)
		if err != nil {
			return nil, err
		}
		out = append(out, v.Data)
		res.Security = res.Security.Merge(v.Security)
	}
	res.Data = out
	return res, nil
}

// checkBindingPath checks a dotted binding, `for @item.path in @items`:
// as in mlld, @item is the whole element, and the element must have the
// field path (an error names the binding and the element's key).
func checkBindingPath(f *ast.ForExpr, item, key any) error {
	cur := structuredData(item)
	for _, name := range f.VarPath {
		o, ok := cur.(*value.Object)
		var v any
		if ok {
			v, ok = o.Get(name)
		}
		if !ok {
			return newError(KindVariable, f.Pos, "bind the element alone (for @"+f.Var+" in …) or give every element the field",
				"Field %q not found in object in for binding @%s.%s (key %s)", name, f.Var, strings.Join(f.VarPath, "."), value.Text(key))
		}
		cur = structuredData(v)
	}
	return nil
}
