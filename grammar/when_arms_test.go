package grammar

import (
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/stretchr/testify/require"
)

// firstVarWhen returns the when expression of the first var in a strict
// script.
func firstVarWhen(t *testing.T, src string) *ast.WhenExpr {
	t.Helper()
	doc := parseStrict(t, src)
	w, ok := doc.Body[0].(*ast.VarDirective).Value.(*ast.WhenExpr)
	require.True(t, ok, "value is %T", doc.Body[0].(*ast.VarDirective).Value)
	return w
}

func TestOperatorLedMatchArms(t *testing.T) {
	w := firstVarWhen(t, "var @t = when @s [\n  >= 0.7 => \"R\"\n  >= 0.3 && < 0.7 => \"O\"\n  * => \"S\"\n]")
	require.Len(t, w.Arms, 3)
	// The first arm's action is only the string: the next line's >= opens
	// an arm instead of continuing the action.
	require.IsType(t, &ast.StringLit{}, w.Arms[0].Action)
	and, ok := w.Arms[1].Cond.(*ast.BinaryExpr)
	require.True(t, ok)
	require.Equal(t, "&&", and.Op)
	for _, side := range []ast.Expr{and.Left, and.Right} {
		cmp, ok := side.(*ast.BinaryExpr)
		require.True(t, ok, "%T", side)
		require.Nil(t, cmp.Left, "operand stands for the subject")
	}
	require.Equal(t, ">=", and.Left.(*ast.BinaryExpr).Op)
	require.Equal(t, "<", and.Right.(*ast.BinaryExpr).Op)
	require.Equal(t, 3, w.Arms[1].Pos.Line)
	require.Equal(t, 3, w.Arms[1].Pos.Col)
	require.Equal(t, ast.ArmWildcard, w.Arms[2].Kind)
}

func TestLineLeadingFileLoadIsNotAnArmOperator(t *testing.T) {
	doc := parseStrict(t, "var @a = [\n<a.md>,\n<b.md>\n]")
	arr := doc.Body[0].(*ast.VarDirective).Value.(*ast.ArrayLit)
	require.Len(t, arr.Items, 2)
	require.IsType(t, &ast.FileLoad{}, arr.Items[0].Value)
}

func TestBareAllowAtLineEndStillAllowsStar(t *testing.T) {
	doc := parseStrict(t, "guard @g before secret = when [\n  @x => allow\n  * => deny \"x\"\n]")
	g := doc.Body[0].(*ast.GuardDirective)
	require.Len(t, g.Body.Arms, 2)
	require.IsType(t, &ast.AllowExpr{}, g.Body.Arms[0].Action)
}
