package serve

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// serve decides nothing itself: of guardrun's packages it imports hook
// (which decides) and the command-line helper only (doc.go).
func TestImportsOnlyHook(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"github.com/guardrun/guardrun/hook": true, "github.com/guardrun/guardrun/internal/cliflags": true,
		"github.com/guardrun/guardrun/serve/client": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pf.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if strings.Contains(p, ".") && !allowed[p] {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
