package action

import (
	"encoding/json"
	"testing"
)

func TestWordsRoundTrip(t *testing.T) {
	for _, a := range []Action{Allow, Deny, Retry, Ask, Abort, Modify, Skip} {
		got, err := Parse(a.String())
		if err != nil || got != a {
			t.Fatalf("Parse(%q) = %v, %v; want %v", a.String(), got, err, a)
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var back Action
		if err := json.Unmarshal(b, &back); err != nil || back != a {
			t.Fatalf("json %s read back as %v, %v", b, back, err)
		}
	}
}

func TestUnknownWordsAreErrors(t *testing.T) {
	for _, s := range []string{"", "Allow", "continue", "permit", "deny "} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
	var a Action = Deny
	if err := json.Unmarshal([]byte(`"yes"`), &a); err == nil || a != Deny {
		t.Errorf("unknown word read as %v, %v", a, err)
	}
	if _, err := json.Marshal(Action(9)); err == nil {
		t.Error("an out-of-range action marshalled")
	}
	if Action(9).String() != "action(9)" {
		t.Errorf("out-of-range String = %q", Action(9).String())
	}
}
