package value

import "testing"

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
