package value

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Property reads `.name` on data: object fields, and `.length` of strings
// (in characters) and arrays. A numeric name indexes an array. Field
// access on an array of objects does not project (that needs `[*]`), so it
// reports false like any missing property.
func Property(data any, name string) (any, bool) {
	switch v := data.(type) {
	case *Object:
		if v == nil {
			return nil, false
		}
		return v.Get(name)
	case []any:
		if name == "length" {
			return float64(len(v)), true
		}
		if i, err := strconv.Atoi(name); err == nil {
			return Index(v, float64(i))
		}
	case string:
		if name == "length" {
			return float64(utf8.RuneCountInString(v)), true
		}
	}
	return nil, false
}

// Index reads `[idx]` on data: arrays by number (negative counts from the
// end), objects by key (numbers are converted to their text) and strings
// by character position.
func Index(data any, idx any) (any, bool) {
	switch v := data.(type) {
	case []any:
		i, ok := intIndex(idx)
		if !ok {
			if s, isStr := idx.(string); isStr {
				return Property(v, s)
			}
			return nil, false
		}
		if i < 0 {
			i += len(v)
		}
		if i < 0 || i >= len(v) {
			return nil, false
		}
		return v[i], true
	case *Object:
		if v == nil {
			return nil, false
		}
		return v.Get(Text(idx))
	case string:
		i, ok := intIndex(idx)
		if !ok {
			if s, isStr := idx.(string); isStr {
				return Property(v, s)
			}
			return nil, false
		}
		rs := []rune(v)
		if i < 0 {
			i += len(rs)
		}
		if i < 0 || i >= len(rs) {
			return nil, false
		}
		return string(rs[i]), true
	}
	return nil, false
}

func intIndex(idx any) (int, bool) {
	var f float64
	switch x := idx.(type) {
	case float64:
		f = x
	case string:
		n, ok := ParseNumber(x)
		if !ok {
			return 0, false
		}
		f = n
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, false
	}
	return int(f), true
}

// Tokens estimates the token count of s as ceil(length/4) (SPEC §10 P8),
// with length counted in UTF-16 units as JavaScript does.
func Tokens(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return (n + 3) / 4
}
