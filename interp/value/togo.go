package value

import (
	"math"
	"reflect"
)

// ToGo converts data to the Go values encoding/json decodes its JSON text
// into: objects to map[string]any, arrays to []any, and float64, string,
// bool or nil. It reads as the JSON text would read back (ToJSON) without
// writing it: undefined and functions are left out of objects and are
// null in arrays, NaN and infinities are nil. ok is false for data JSON
// leaves out entirely (undefined, a function).
func ToGo(data any) (out any, ok bool) {
	switch v := data.(type) {
	case nil:
		return nil, true
	case Undefined, Callable:
		return nil, false
	case bool, string:
		return v, true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, true
		}
		return v, true
	case []any:
		list := make([]any, len(v))
		for i, e := range v {
			list[i], _ = ToGo(e)
		}
		return list, true
	case *Object:
		if v == nil {
			return nil, true
		}
		m := make(map[string]any, len(v.Keys))
		for _, k := range v.Keys {
			if x, ok := ToGo(v.Values[k]); ok {
				m[k] = x
			}
		}
		return m, true
	}
	conv := FromGo(data)
	if reflect.TypeOf(conv) == reflect.TypeOf(data) {
		// No value kind: its text, as ToJSON's fallback gives.
		return Text(data), true
	}
	return ToGo(conv)
}

// Same reports whether a and b hold the same data, as their JSON would
// read: the same kinds (no `==` coercion), arrays element by element,
// objects key by key in any order. Go values (FromGo's inputs) compare as
// the data they convert to. The usual kinds (value data and the maps and
// slices encoding/json decodes to) compare without building anything.
func Same(a, b any) bool {
	oa, ob := omitted(a), omitted(b)
	if oa || ob {
		return oa == ob
	}
	return same(a, b)
}

// omitted reports whether JSON leaves d out (undefined, a function).
func omitted(d any) bool {
	switch d.(type) {
	case Undefined, Callable:
		return true
	}
	return false
}

// isNull reports whether d reads as JSON null.
func isNull(d any) bool {
	switch v := d.(type) {
	case nil:
		return true
	case float64:
		return math.IsNaN(v) || math.IsInf(v, 0)
	case *Object:
		return v == nil
	}
	return false
}

// same is Same of two values JSON does not leave out (elements of an
// array that JSON leaves out read as null).
func same(a, b any) bool {
	if isNull(a) || isNull(b) {
		return isNull(a) && isNull(b)
	}
	switch x := a.(type) {
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case string:
		if y, ok := b.(string); ok {
			return x == y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x == y
		}
	case []any:
		if y, ok := b.([]any); ok {
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if !same(element(x[i]), element(y[i])) {
					return false
				}
			}
			return true
		}
	case *Object, map[string]any:
		if n, ok := presentKeys(a); ok {
			if m, ok := presentKeys(b); ok {
				if n != m {
					return false
				}
				return eachPresent(a, func(k string, v any) bool {
					w, ok := member(b, k)
					return ok && same(v, w)
				})
			}
		}
	}
	if kindOf(a) != kindOf(b) {
		return false
	}
	// Other Go values: as the data they convert to.
	x, okA := ToGo(a)
	y, okB := ToGo(b)
	return okA == okB && reflect.DeepEqual(x, y)
}

// kindOf groups the value kinds same compares directly: values of two
// different groups are never the same; -1 is any other Go value.
func kindOf(d any) int {
	switch d.(type) {
	case bool:
		return 1
	case string:
		return 2
	case float64:
		return 3
	case []any:
		return 4
	case *Object, map[string]any:
		return 5
	}
	return -1
}

// element is an array element as JSON reads it: null for what JSON
// leaves out.
func element(d any) any {
	if omitted(d) {
		return nil
	}
	return d
}

// presentKeys counts the keys of an object (value or Go map) whose values
// JSON keeps; ok is false for anything else.
func presentKeys(d any) (n int, ok bool) {
	eachPresent(d, func(string, any) bool { n++; return true })
	switch d.(type) {
	case *Object, map[string]any:
		return n, true
	}
	return 0, false
}

// eachPresent calls f with each key and value of an object JSON keeps,
// until f returns false; it reports whether every call returned true.
func eachPresent(d any, f func(k string, v any) bool) bool {
	switch o := d.(type) {
	case *Object:
		for _, k := range o.Keys {
			if v := o.Values[k]; !omitted(v) && !f(k, v) {
				return false
			}
		}
	case map[string]any:
		for k, v := range o {
			if !omitted(v) && !f(k, v) {
				return false
			}
		}
	}
	return true
}

// member is the value of an object's key k, when JSON keeps it.
func member(d any, k string) (any, bool) {
	var v any
	var ok bool
	switch o := d.(type) {
	case *Object:
		v, ok = o.Values[k]
	case map[string]any:
		v, ok = o[k]
	}
	if !ok || omitted(v) {
		return nil, false
	}
	return v, true
}
