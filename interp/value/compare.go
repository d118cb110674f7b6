package value

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Truthy reports whether data counts as true in conditions: null,
// undefined, false, "", "false", "0", 0, NaN, "NaN", [] and {} are false.
func Truthy(data any) bool {
	switch v := data.(type) {
	case nil, Undefined:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		switch v {
		case "", "false", "0", "NaN":
			return false
		}
		return true
	case []any:
		return len(v) > 0
	case *Object:
		return v != nil && v.Len() > 0
	}
	return true
}

// Equal is the `==` rule: null equals undefined, arrays compare element by
// element, "true"/"false" equal the booleans, numeric strings equal
// numbers; objects compare by identity.
func Equal(a, b any) bool {
	if isNullish(a) || isNullish(b) {
		return isNullish(a) && isNullish(b)
	}
	switch x := a.(type) {
	case string:
		switch y := b.(type) {
		case string:
			return x == y
		case float64:
			n, ok := ParseNumber(x)
			return ok && n == y
		case bool:
			return strings.TrimSpace(x) == strconv.FormatBool(y)
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y
		case string:
			return Equal(y, x)
		}
	case bool:
		switch y := b.(type) {
		case bool:
			return x == y
		case string:
			return Equal(y, x)
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	case Callable:
		y, ok := b.(Callable)
		return ok && x == y
	}
	return false
}

func isNullish(v any) bool {
	switch v.(type) {
	case nil, Undefined:
		return true
	}
	return false
}

// ParseNumber parses s as a JavaScript-style numeric literal (surrounding
// space allowed, no empty string, no hex). It reports false when s is not
// a number.
func ParseNumber(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, false
	}
	switch t {
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	for _, r := range t {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// TolerantMatch is the `~=` rule: both sides become sets of strings (a
// string is one element, or its comma-separated parts; null, "null" and []
// are empty) and the actual set must be a non-empty subset of the expected
// one, comparing numerically where both elements are numbers. An empty
// expected side matches only an empty actual side.
func TolerantMatch(actual, expected any) bool {
	act, okA := tolerantSet(actual)
	exp, okE := tolerantSet(expected)
	if !okA || !okE {
		return Equal(actual, expected)
	}
	if len(exp) == 0 || len(act) == 0 {
		return len(exp) == 0 && len(act) == 0
	}
	for _, a := range act {
		found := false
		for _, e := range exp {
			if tolerantElemEqual(a, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func tolerantElemEqual(a, b string) bool {
	if a == b {
		return true
	}
	if x, ok := ParseNumber(a); ok {
		if y, ok := ParseNumber(b); ok {
			return x == y
		}
	}
	return strings.EqualFold(a, b) && (a == "true" || a == "false" || b == "true" || b == "false")
}

// tolerantSet normalises one side of `~=`; false means the value is not
// set-like (objects), so `~=` falls back to equality.
func tolerantSet(v any) ([]string, bool) {
	switch x := v.(type) {
	case nil, Undefined:
		return nil, true
	case string:
		t := strings.TrimSpace(x)
		if t == "" || t == "null" || t == "[]" {
			return nil, true
		}
		if strings.HasPrefix(t, "[") {
			if parsed, err := ParseJSON(t); err == nil {
				return tolerantSet(parsed)
			}
		}
		var out []string
		for _, part := range strings.Split(t, ",") {
			if p := strings.TrimSpace(part); p != "" {
				out = append(out, p)
			}
		}
		return out, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			switch e.(type) {
			case *Object, []any:
				out = append(out, ToJSON(e, false))
			default:
				out = append(out, strings.TrimSpace(Text(e)))
			}
		}
		return out, true
	case bool, float64:
		return []string{Text(x)}, true
	}
	return nil, false
}

// Compare orders a and b for < > <= >=: numerically when both are numbers,
// booleans, null or numeric strings, otherwise as strings when both are
// strings. It returns -1, 0 or 1; NaN compares as unordered (error).
func Compare(a, b any) (int, error) {
	if x, ok := compareNumber(a); ok {
		if y, ok := compareNumber(b); ok {
			switch {
			case math.IsNaN(x) || math.IsNaN(y):
				return 0, fmt.Errorf("cannot order NaN")
			case x < y:
				return -1, nil
			case x > y:
				return 1, nil
			}
			return 0, nil
		}
	}
	sa, okA := a.(string)
	sb, okB := b.(string)
	if okA && okB {
		return strings.Compare(sa, sb), nil
	}
	return 0, fmt.Errorf("cannot compare %s with %s", KindName(a), KindName(b))
}

func compareNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case nil:
		return 0, true
	case string:
		return ParseNumber(x)
	}
	return 0, false
}

// KindName names the kind of data for messages: "null", "undefined",
// "boolean", "number", "string", "array", "object" or "function".
func KindName(data any) string {
	switch data.(type) {
	case nil:
		return "null"
	case Undefined:
		return "undefined"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case *Object:
		return "object"
	case Callable:
		return "function"
	}
	return fmt.Sprintf("%T", data)
}
