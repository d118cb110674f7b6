package policy

import (
	"slices"
	"testing"
)

// builtinFlow finds each built-in flow rule by its name, each is a
// defaults rule, and no name is listed twice.
func TestBuiltinFlowLookup(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range builtinFlows {
		if seen[r.name] {
			t.Errorf("%s listed twice", r.name)
		}
		seen[r.name] = true
		if got, ok := builtinFlow(r.name); !ok || got != r {
			t.Errorf("builtinFlow(%q) = %+v, %v", r.name, got, ok)
		}
		if !slices.Contains(builtinRules, r.name) {
			t.Errorf("%s is not in builtinRules", r.name)
		}
	}
	if _, ok := builtinFlow("session-taint-strict"); ok {
		t.Error("session-taint-strict is not a flow rule")
	}
}

func TestFlagSynonyms(t *testing.T) {
	for _, c := range []struct{ prog, f, want string }{
		{"rm", "--recursive", "-r"}, {"rm", "--force", "-f"}, {"rm", "-f", ""},
		{"git", "-f", "--force"}, {"git", "--force-with-lease", "--force"}, {"git", "+", "--force"},
		{"curl", "--upload-file", "-t"}, {"curl", "--force", ""}, {"cp", "--recursive", ""},
	} {
		got, ok := flagSynonyms(c.prog, c.f)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("flagSynonyms(%q, %q) = %q, %v; want %q", c.prog, c.f, got, ok, c.want)
		}
	}
}
