package interp

import (
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// sliceOf evaluates `[start:end]` on an array or a string, as JavaScript's
// slice does: a missing bound is the start or the end, a negative one
// counts from the end, and bounds are clamped. Anything else slices to
// undefined. The result carries the container's descriptor.
func (in *interp) sliceOf(e *env, cur *value.Variable, acc ast.Accessor) (*value.Variable, error) {
	// A slice carries the labels of its bounds, as a lookup carries its
	// key's: which part of a value is taken says something about them.
	var bounds []*value.Variable
	bound := func(x ast.Expr) (int, bool, error) {
		if x == nil {
			return 0, false, nil
		}
		v, err := in.evalExpr(e.withLenient(false), x)
		if err != nil {
			return 0, false, err
		}
		bounds = append(bounds, v)
		n, ok := v.Data.(float64)
		if !ok {
			return 0, false, newError(KindType, acc.Pos, "slice bounds are numbers, as in [1:3]",
				"slice bound must be a number, got %s", typeName(v.Data))
		}
		return int(n), true, nil
	}
	from, hasFrom, err := bound(acc.Index)
	if err != nil {
		return nil, err
	}
	to, hasTo, err := bound(acc.End)
	if err != nil {
		return nil, err
	}
	span := func(n int) (int, int) {
		a, b := 0, n
		if hasFrom {
			a = clampBound(from, n)
		}
		if hasTo {
			b = clampBound(to, n)
		}
		if b < a {
			b = a
		}
		return a, b
	}
	switch d := structuredData(cur.Data).(type) {
	case []any:
		a, b := span(len(d))
		return withKeys(derived(append([]any{}, d[a:b]...), cur), bounds), nil
	case string:
		r := []rune(d)
		a, b := span(len(r))
		return withKeys(derived(string(r[a:b]), cur), bounds), nil
	}
	return withKeys(derived(value.Undefined{}, cur), bounds), nil
}

// withKeys is keyed for every key that selected res.
func withKeys(res *value.Variable, keys []*value.Variable) *value.Variable {
	for _, k := range keys {
		res = keyed(res, k)
	}
	return res
}

func clampBound(i, n int) int {
	if i < 0 {
		i += n
	}
	return max(0, min(i, n))
}
