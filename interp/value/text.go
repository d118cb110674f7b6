package value

import (
	"context"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// displayCompactLimit is the longest compact JSON that /show prints on one
// line; longer structures are indented.
const displayCompactLimit = 60

// Text is the interpolation text of data inside templates and strings:
// strings as-is, structures as compact JSON, null as "null", undefined as
// the empty string and numbers the way JavaScript prints them.
func Text(data any) string {
	switch v := data.(type) {
	case nil:
		return "null"
	case Undefined:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return FormatNumber(v)
	case []any, *Object:
		return ToJSON(v, false)
	case Callable:
		return "@" + v.CallableName()
	default:
		return ToJSON(FromGo(v), false)
	}
}

// Display is the text /show prints for data. Structures (and strings that
// hold a JSON object or array) print compact when short and flat, and
// indented otherwise; see SPEC §3.9.
func Display(data any) string {
	return DisplayContext(nil, data)
}

// DisplayContext is Display stopping, with a panic of *InterruptedError,
// when ctx ends: showing a large structure is the longest rendering a
// script can ask for.
func DisplayContext(ctx context.Context, data any) string {
	switch v := data.(type) {
	case string:
		t := strings.TrimSpace(v)
		if len(t) >= 2 && (t[0] == '{' || t[0] == '[') {
			if parsed, err := ParseJSON(t); err == nil {
				return displayStructured(ctx, parsed)
			}
		}
		return v
	case []any, *Object:
		return displayStructured(ctx, v)
	default:
		return Text(data)
	}
}

func displayStructured(ctx context.Context, data any) string {
	compact := toJSON(ctx, data, false)
	if utf8.RuneCountInString(compact) <= displayCompactLimit && !isNested(data) {
		return compact
	}
	if o, ok := data.(*Object); ok && o.Len() == 1 {
		// mlld folds a one-key object with a primitive value back onto one
		// line, with a space after the colon.
		v := o.Values[o.Keys[0]]
		switch v.(type) {
		case []any, *Object:
		default:
			return "{" + quoteJSON(o.Keys[0]) + ": " + ToJSON(v, false) + "}"
		}
	}
	return toJSON(ctx, data, true)
}

// isNested reports whether /show must indent data regardless of length:
// an array with more than one element or with a structured element, or
// any non-empty object.
func isNested(data any) bool {
	switch v := data.(type) {
	case []any:
		if len(v) > 1 {
			return true
		}
		for _, e := range v {
			switch e.(type) {
			case []any, *Object:
				return true
			}
		}
	case *Object:
		return v.Len() > 0
	}
	return false
}

// FormatNumber prints f the way JavaScript's Number#toString does: the
// shortest round-tripping digits, integers without a fraction, exponent
// form below 1e-6 and from 1e21.
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	digits := strings.TrimLeft(exp[1:], "0")
	if digits == "" {
		digits = "0"
	}
	return mant + "e" + string(sign) + digits
}
