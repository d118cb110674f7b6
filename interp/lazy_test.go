package interp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
)

// A script without code blocks must not create the code engine at all.
func TestCodeEngineIsCreatedOnFirstCodeBlock(t *testing.T) {
	doc := &ast.Document{Body: []ast.Node{
		&ast.VarDirective{Name: "x", Value: &ast.NumberLit{Value: 1, Raw: "1"}},
		&ast.ShowDirective{Value: &ast.Ref{Name: "x"}},
	}}
	in := newInterp(context.Background(), Options{})
	mod := newModule("t.mld", t.TempDir())
	require.NoError(t, in.execDocument(in.rootEnv(mod), doc))
	require.Nil(t, in.sh.engine, "a script without code blocks created the code engine")

	code := &ast.Document{Body: []ast.Node{
		&ast.ShowDirective{Value: &ast.CodeExpr{Lang: "js", Code: "return 40 + 2"}},
	}}
	require.NoError(t, in.execDocument(in.rootEnv(mod), code))
	require.NotNil(t, in.sh.engine)
	require.Equal(t, "1\n42\n", in.out.document())
}
