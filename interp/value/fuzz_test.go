package value

import (
	"math"
	"testing"
)

// FuzzParsers checks that no input makes the parsers or display rules
// panic, and that whatever strict JSON accepts survives a round trip.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `{a: 'x',}`, "```json\n[1]\n```", `"\ud83d\ude00"`, `[[[[`, `{"a":1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseLooseJSON(s)
		_, _, _ = Transform("parse.llm", s, nil)
		_ = Display(s)
		v, err := ParseJSON(s)
		if err != nil {
			return
		}
		again, err := ParseJSON(ToJSON(v, false))
		if err != nil {
			t.Fatalf("round trip of %q failed: %v", s, err)
		}
		if ToJSON(again, true) != ToJSON(v, true) {
			t.Fatalf("round trip of %q changed the value", s)
		}
	})
}

// FuzzCallMethod checks that no argument makes a string or array method
// panic (huge, negative, NaN and infinite numbers included).
func FuzzCallMethod(f *testing.F) {
	f.Add("héllo", 1e23, -1.0, "ab")
	f.Add("", math.Inf(1), math.NaN(), "")
	f.Fuzz(func(t *testing.T, s string, a, b float64, fill string) {
		for _, m := range []string{"padStart", "padEnd", "repeat", "slice", "substring", "substr", "charAt", "at",
			"includes", "startsWith", "endsWith", "split", "indexOf", "match"} {
			_, _ = CallMethod(s, m, []any{a, b})
			_, _ = CallMethod(s, m, []any{a, fill})
			_, _ = CallMethod(s, m, []any{fill, a})
		}
		arr := []any{s, a, []any{b}}
		for _, m := range []string{"slice", "at", "flat", "includes", "join"} {
			_, _ = CallMethod(arr, m, []any{a, b})
		}
		_, _ = CallMethod(a, "toFixed", []any{b})
	})
}
