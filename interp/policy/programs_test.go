package policy

import (
	"os"
	"strings"
	"testing"
)

// TestProgramTableDocumented: docs/reference/tools.md shows the one
// program table as it is.
func TestProgramTableDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/reference/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- programs:begin -->\n")
	doc, _, ok2 := strings.Cut(rest, "<!-- programs:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/reference/tools.md has no <!-- programs:begin --> … <!-- programs:end --> block")
	}
	if want := ProgramTable(); doc != want {
		t.Errorf("docs/reference/tools.md's program table differs from interp/policy/programs.go; replace the block with:\n%s", want)
	}
}

// TestProgramKinds: the table answers for versioned interpreters and
// nothing else, and a name it does not list is of no kind.
func TestProgramKinds(t *testing.T) {
	for _, c := range []struct {
		prog string
		k    Kind
		want bool
	}{
		{"python3", Interpreter, true}, {"python3.12", Interpreter, true}, {"node20", Interpreter, true},
		{"curl", Network, true}, {"curl7", Network, false}, {"rsync", Remote, true}, {"rsync", Network, false},
		{"rm", Deleter, true}, {"rm", TreeRemover, true}, {"cat", Reader | Local, true}, {"bash", Shell, true},
		{"env", Wrapper, true}, {"git", Subcommand, true}, {"mytool", Network | Local | Interpreter, false}, {"3", Interpreter, false},
	} {
		if got := Is(c.prog, c.k); got != c.want {
			t.Errorf("Is(%q, %v) = %v, want %v", c.prog, c.k, got, c.want)
		}
	}
}
