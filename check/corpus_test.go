package check_test

import (
	"github.com/guardrun/guardrun/internal/testshared"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/grammar"
)

// TestCheckCorpora runs the checker over every script of the fixtures,
// the examples and the conformance corpora: it must not panic, and the
// examples (which are meant to be clean) have no errors. An embedder's
// script (examples/toolrunner) uses the per-call variables and Go
// functions its program defines, which only the program knows: it is
// checked there (guardrun.WithStrictCheck with DeclareVars and
// WithFunctions, examples/toolrunner's tests), so here it must not
// panic and need not be clean.
func TestCheckCorpora(t *testing.T) {
	for _, root := range append([]string{"../fixtures", "../examples"}, testshared.Corpora(t)...) {
		scripts, findings := 0, 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".mld") && !(strings.HasSuffix(path, ".md") && strings.HasPrefix(d.Name(), "example")) {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			mode := ast.Markdown
			if strings.HasSuffix(path, ".mld") {
				mode = ast.Strict
			}
			doc, err := grammar.Parse(path, src, mode)
			if err != nil {
				return nil
			}
			scripts++
			fs := check.Document(doc)
			findings += len(fs)
			if root == "../examples" && !embedderScript(path) && check.HasErrors(fs) {
				t.Errorf("%s: %v", path, fs)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d scripts checked, %d findings", root, scripts, findings)
	}
}

// embedderScript reports whether path is a script of an example program
// (a directory holding a main.go), whose names that program defines.
func embedderScript(path string) bool {
	_, err := os.Stat(filepath.Join(filepath.Dir(path), "main.go"))
	return err == nil
}
