package js

import (
	"errors"
	"math"
	"math/big"
	"strconv"

	"github.com/dop251/goja"

	"github.com/guardrun/guardrun/interp/value"
)

// maxConvertDepth bounds nesting when converting between Go and JS.
const maxConvertDepth = 512

// toJS converts a value kind into a JS value: objects become plain objects
// with the same key order, undefined stays undefined, callables become
// undefined (they cannot be called from JS).
func toJS(rt *goja.Runtime, v any, depth int) goja.Value {
	if depth > maxConvertDepth {
		return goja.Undefined()
	}
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case value.Undefined:
		return goja.Undefined()
	case bool:
		return rt.ToValue(x)
	case string:
		return rt.ToValue(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 && !(x == 0 && math.Signbit(x)) {
			return rt.ToValue(int64(x))
		}
		return rt.ToValue(x)
	case []any:
		items := make([]any, len(x))
		for i, e := range x {
			items[i] = toJS(rt, e, depth+1)
		}
		return rt.NewArray(items...)
	case *value.Object:
		if x == nil {
			return goja.Null()
		}
		o := rt.NewObject()
		for _, k := range x.Keys {
			_ = o.Set(k, toJS(rt, x.Values[k], depth+1))
		}
		return o
	case value.Callable:
		return goja.Undefined()
	case *value.Variable:
		if x == nil {
			return goja.Null()
		}
		return toJS(rt, x.Data, depth)
	}
	return toJS(rt, value.FromGo(v), depth+1)
}

// fromJS converts a JS value back into value kinds. seen holds the objects
// on the current path, to reject cycles.
func fromJS(rt *goja.Runtime, v goja.Value, depth int, seen map[*goja.Object]bool) (any, error) {
	if depth > maxConvertDepth {
		return nil, errors.New("value nested too deeply")
	}
	if v == nil || goja.IsUndefined(v) {
		return value.Undefined{}, nil
	}
	if goja.IsNull(v) {
		return nil, nil
	}
	obj, isObj := v.(*goja.Object)
	if !isObj {
		return primitive(v), nil
	}
	if _, isFn := goja.AssertFunction(obj); isFn {
		return value.Undefined{}, nil
	}
	if seen[obj] {
		return nil, errors.New("cannot convert a cyclic structure")
	}
	seen[obj] = true
	defer delete(seen, obj)

	switch obj.ClassName() {
	case "Array":
		n := int(obj.Get("length").ToInteger())
		out := make([]any, n)
		for i := 0; i < n; i++ {
			e, err := fromJS(rt, obj.Get(strconv.Itoa(i)), depth+1, seen)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case "String", "Number", "Boolean":
		return primitive(obj), nil
	case "Error":
		return v.String(), nil
	case "Promise":
		return value.Undefined{}, nil
	}
	// Honour toJSON (Date and user objects) as JSON.stringify would.
	if toJSON, ok := goja.AssertFunction(obj.Get("toJSON")); ok {
		r, err := toJSON(obj)
		if err != nil {
			return nil, err
		}
		if r2, isObj := r.(*goja.Object); !isObj || r2 != obj {
			return fromJS(rt, r, depth+1, seen)
		}
	}
	if obj.ClassName() == "RegExp" {
		return v.String(), nil
	}
	out := value.NewObject()
	for _, k := range obj.Keys() {
		e, err := fromJS(rt, obj.Get(k), depth+1, seen)
		if err != nil {
			return nil, err
		}
		out.Set(k, e)
	}
	return out, nil
}

func primitive(v goja.Value) any {
	switch x := v.Export().(type) {
	case bool:
		return x
	case string:
		return x
	case int64:
		return float64(x)
	case float64:
		return x
	case *big.Int:
		return x.String()
	}
	return v.String()
}

func isUndefined(v any) bool {
	_, ok := v.(value.Undefined)
	return ok
}
