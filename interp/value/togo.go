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
// the data they convert to.
func Same(a, b any) bool {
	x, okA := ToGo(a)
	y, okB := ToGo(b)
	return okA == okB && reflect.DeepEqual(x, y)
}
