package interp

import (
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/value"
)

// commandSegments is how an interpolated value enters a command (mlld's
// shell interpolation): an array of primitives expands to one word per
// element (none for an empty array), other arrays and objects to their
// compact JSON as one word, anything else to its text. Every word is
// still a value segment (an omitted `@x?` is no word at all), passed to the shell as data (see
// code.BuildCommand), never spliced in as shell text.
func commandSegments(v *value.Variable, text string, omitFalsy bool) []code.Segment {
	if omitFalsy && text == "" {
		// `@x?` that left its value out leaves no word behind.
		return nil
	}
	if v == nil {
		return []code.Segment{{Value: text, IsValue: true}}
	}
	switch d := v.Data.(type) {
	case []any:
		if !allPrimitive(d) {
			return []code.Segment{{Value: value.ToJSON(d, false), IsValue: true}}
		}
		segs := make([]code.Segment, 0, 2*len(d))
		for i, el := range d {
			if i > 0 {
				segs = append(segs, code.Segment{Literal: " "})
			}
			segs = append(segs, code.Segment{Value: primitiveWord(el), IsValue: true})
		}
		return segs
	case *value.Object:
		return []code.Segment{{Value: value.ToJSON(d, false), IsValue: true}}
	}
	return []code.Segment{{Value: text, IsValue: true}}
}

func allPrimitive(arr []any) bool {
	for _, el := range arr {
		switch el.(type) {
		case []any, *value.Object:
			return false
		}
	}
	return true
}

// primitiveWord is an array element as a command word; null is "null".
func primitiveWord(el any) string {
	if el == nil {
		return "null"
	}
	return value.Text(el)
}
