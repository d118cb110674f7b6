package agent

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDecidesThroughTheFacade: the engine decides through the facade's
// types (guardrun.Machine, Operation, OperationContext, ToolCall, Verdict,
// Action, Denial), as an embedder would, so the prepared/evaluation split
// has one interface to keep. Its code does not import the interpreter's
// own decision packages; it builds the script values it hands guards with
// interp/value and analyses command lines with interp/policy.
func TestDecidesThroughTheFacade(t *testing.T) {
	forbidden := map[string]bool{
		"github.com/guardrun/guardrun/interp":       true,
		"github.com/guardrun/guardrun/interp/guard": true,
		"github.com/guardrun/guardrun/interp/hooks": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		seen++
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if forbidden[p] {
				t.Errorf("%s imports %s: decide through package guardrun's types", f, p)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("read only %d files of the package", seen)
	}
}
