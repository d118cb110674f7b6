package interp

import (
	"errors"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp/code"
)

// checkEngines reports the first construct, in source order, that needs
// an engine the program lacks, and nothing for an engine it has.
func TestCheckEnginesReportsTheFirstMissing(t *testing.T) {
	src := "var @s = \"abc\"\nshow `n=@s.mx.tokens`\nexe @f(s) = js { return s }\nexe js = { f }\n"
	doc, err := grammar.Parse("m.mld", []byte(src), ast.Strict)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		needJS, needTokens bool
		line, col          int
	}{
		{true, true, 2, 9},
		{false, true, 2, 9},
		{true, false, 3, 13},
		{false, false, 0, 0},
	}
	for _, tt := range tests {
		err := checkEngines(doc, tt.needJS, tt.needTokens)
		if tt.line == 0 {
			if err != nil {
				t.Errorf("js %v tokens %v: %v, want nil", tt.needJS, tt.needTokens, err)
			}
			continue
		}
		var ie *Error
		if !errors.As(err, &ie) || !errors.Is(err, code.ErrNotLinked) {
			t.Fatalf("js %v tokens %v: %v, want a not-linked *Error", tt.needJS, tt.needTokens, err)
		}
		if ie.Pos.Line != tt.line || ie.Pos.Col != tt.col {
			t.Errorf("js %v tokens %v: at %v, want %d:%d", tt.needJS, tt.needTokens, ie.Pos, tt.line, tt.col)
		}
	}
}
