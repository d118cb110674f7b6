package interp

import (
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

type iterItem struct {
	key any
	val any
}

// iterate lists the elements of a for source: array items, object values
// (with their keys) or the parsed form of a string holding JSON.
func iterate(v *value.Variable, pos ast.Pos) ([]iterItem, bool, error) {
	switch d := structuredData(v.Data).(type) {
	case []any:
		out := make([]iterItem, len(d))
		for i, x := range d {
			out[i] = iterItem{key: float64(i), val: x}
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
	results := make([]any, 0, len(items))
	res := derived(nil, src)
	for _, it := range items {
		if err := in.checkCtx(f.Pos); err != nil {
			return nil, err
		}
		fe := e.child()
		fe.sc.vars[f.Var] = derived(it.val, src)
		if f.Key != "" {
			fe.sc.vars[f.Key] = derived(it.key, src)
		}
		if isObj {
			fe.sc.vars[f.Var+"_key"] = value.New(it.key)
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
		case ast.Node:
			v, _, err = in.evalAction(fe, body, !collect)
		}
		if err != nil {
			return nil, err
		}
		if v == nil || isSkip(v) {
			continue
		}
		if collect {
			results = append(results, v.Data)
			res.Security = res.Security.Merge(v.Security)
		}
	}
	res.Data = results
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
