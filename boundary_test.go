package guardrun_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestClientsUseOnlyTheFacade keeps the conformance runner and the command
// on the public API: if they needed ast, grammar or interp, embedders would
// too, and the facade would not be doing its job. The agent engine decides
// through the facade's types as an embedder would (guardrun.Machine,
// Operation, OperationContext, ToolCall, Verdict, Action): its code does
// not import interp, interp/guard or interp/hooks; it builds the values it
// hands guards with interp/value and analyses command lines with
// interp/policy.
func TestClientsUseOnlyTheFacade(t *testing.T) {
	for _, c := range []struct {
		dir string
		// forbidden are packages of this module; "x/..." is x and every
		// package under it.
		forbidden []string
		// codeOnly leaves the tests out.
		codeOnly bool
	}{
		{dir: "conformance", forbidden: []string{"ast/...", "grammar/...", "interp/..."}},
		{dir: filepath.Join("cmd", "guardrun"), forbidden: []string{"ast/...", "grammar/...", "interp/..."}},
		{dir: "agent", forbidden: []string{"interp", "interp/guard", "interp/hooks"}, codeOnly: true},
	} {
		files, err := filepath.Glob(filepath.Join(c.dir, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, c.dir)
		for _, file := range files {
			if c.codeOnly && strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			require.NoError(t, err)
			f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				require.NoError(t, err)
				for _, pkg := range c.forbidden {
					base, tree := strings.CutSuffix(pkg, "/...")
					p := "github.com/guardrun/guardrun/" + base
					if path == p || tree && strings.HasPrefix(path, p+"/") {
						t.Errorf("%s imports %s; use the guardrun facade instead", file, path)
					}
				}
			}
		}
	}
}
