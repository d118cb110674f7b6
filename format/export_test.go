package format

import (
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/guardrun/guardrun/ast"
)

// TreeDiff describes how two documents' trees differ ("" when equal), for
// test failures; it ignores what SameTree ignores.
func TreeDiff(a, b *ast.Document) string {
	return cmp.Diff(a, b,
		cmpopts.IgnoreTypes(ast.Pos{}),
		cmpopts.IgnoreFields(ast.StringLit{}, "Raw"),
		cmpopts.IgnoreFields(ast.Document{}, "Ends", "File"))
}
