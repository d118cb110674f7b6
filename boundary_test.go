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
// too, and the facade would not be doing its job.
func TestClientsUseOnlyTheFacade(t *testing.T) {
	internal := []string{"ast", "grammar", "interp"}
	for _, dir := range []string{"conformance", filepath.Join("cmd", "guardrun")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, file := range files {
			src, err := os.ReadFile(file)
			require.NoError(t, err)
			f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				require.NoError(t, err)
				for _, pkg := range internal {
					p := "github.com/guardrun/guardrun/" + pkg
					if path == p || strings.HasPrefix(path, p+"/") {
						t.Errorf("%s imports %s; use the guardrun facade instead", file, path)
					}
				}
			}
		}
	}
}
