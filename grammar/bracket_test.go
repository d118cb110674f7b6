package grammar

import (
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/stretchr/testify/require"
)

func exeBody(t *testing.T, src string) ast.Node {
	t.Helper()
	doc := parseStrict(t, src)
	d, ok := doc.Body[0].(*ast.ExeDirective)
	require.True(t, ok, "%T", doc.Body[0])
	return d.Body
}

func TestBracketAfterEqualsIsBlockOrArray(t *testing.T) {
	tests := []struct {
		src  string
		want string // the body's type
		n    int    // its statements or items
	}{
		{"exe @f() = [let @x = 1\n=> @x]", "block", 2},
		{"exe @f() = [@a(); @b()]", "block", 2},
		{"exe @f() = [@a | @b]", "block", 1},
		{"exe @f() = []", "block", 0},
		// A block holding only plain values is the array it also spells.
		{"exe @f() = [@a\n@b]", "array", 2},
		{"exe @f() = [@a]", "array", 1},
		{"exe @f() = [@a, @b(), @c]", "array", 3},
		{"exe @f() = [@a?, @b,]", "array", 2},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			switch b := exeBody(t, tt.src).(type) {
			case *ast.BlockExpr:
				require.Equal(t, "block", tt.want)
				require.Len(t, b.Stmts, tt.n)
			case *ast.ArrayLit:
				require.Equal(t, "array", tt.want)
				require.Len(t, b.Items, tt.n)
			default:
				t.Fatalf("body is %T", b)
			}
		})
	}
}

func TestArrayBodyKeepsItsPipeline(t *testing.T) {
	pl, ok := exeBody(t, "exe @f() = [@a, @b] | @join").(*ast.PipelineExpr)
	require.True(t, ok)
	require.IsType(t, &ast.ArrayLit{}, pl.Source)
	require.Len(t, pl.Stages, 1)
}

func TestOptionalArrayItem(t *testing.T) {
	arr, ok := exeBody(t, "exe @f() = [@a?, @b]").(*ast.ArrayLit)
	require.True(t, ok)
	require.True(t, arr.Items[0].Optional)
	require.False(t, arr.Items[1].Optional)
}

// A block action ends the when or for it belongs to: what follows applies
// to the when or for, as it did when the grammar read the block first.
func TestPipeAfterBlockActionAppliesToTheWhole(t *testing.T) {
	doc := parseStrict(t, "var @x = when @c => [@y] | @f")
	pl, ok := doc.Body[0].(*ast.VarDirective).Value.(*ast.PipelineExpr)
	require.True(t, ok, "%T", doc.Body[0].(*ast.VarDirective).Value)
	require.IsType(t, &ast.WhenExpr{}, pl.Source)

	doc = parseStrict(t, "var @x = for @i in @xs => [@i] | @f")
	pl, ok = doc.Body[0].(*ast.VarDirective).Value.(*ast.PipelineExpr)
	require.True(t, ok)
	fe, ok := pl.Source.(*ast.ForExpr)
	require.True(t, ok)
	require.IsType(t, &ast.ArrayLit{}, fe.Body)
}

func TestStatementsInBlocksAreDirectives(t *testing.T) {
	blk, ok := exeBody(t, "exe @f() = [\n  when @a => show \"1\"\n  for @x in @xs => show @x\n  run @g()\n  when [ * => 1 ]\n]").(*ast.BlockExpr)
	require.True(t, ok)
	require.IsType(t, &ast.WhenDirective{}, blk.Stmts[0])
	require.IsType(t, &ast.ForDirective{}, blk.Stmts[1])
	run, ok := blk.Stmts[2].(*ast.RunDirective)
	require.True(t, ok)
	require.IsType(t, &ast.Ref{}, run.Value)
	require.IsType(t, &ast.WhenDirective{}, blk.Stmts[3])
}

func TestRunStatementKeepsItsPipeline(t *testing.T) {
	doc := parseStrict(t, "run @a | @b")
	run, ok := doc.Body[0].(*ast.RunDirective)
	require.True(t, ok)
	pl, ok := run.Value.(*ast.PipelineExpr)
	require.True(t, ok)
	require.Equal(t, "a", pl.Source.(*ast.Ref).Name)
}

// An index or call touches its reference; after a blank the bracket is a
// block, so a for or when block starting with a value is not an index.
func TestBlankSeparatesBlockFromIndex(t *testing.T) {
	doc := parseStrict(t, "for @x in @xs [ @x ]")
	fe := doc.Body[0].(*ast.ForDirective).For
	require.Empty(t, fe.Source.(*ast.Ref).Path)
	require.IsType(t, &ast.ArrayLit{}, fe.Body)

	doc = parseStrict(t, "for @x in @b [ for @y in @c [ show @y ] ]")
	require.IsType(t, &ast.BlockExpr{}, doc.Body[0].(*ast.ForDirective).For.Body)

	doc = parseStrict(t, "when @a[0] => show \"1\"")
	w := doc.Body[0].(*ast.WhenDirective).When
	require.True(t, w.Inline)
	require.Equal(t, ast.AccessIndex, w.Arms[0].Cond.(*ast.Ref).Path[0].Kind)

	doc = parseStrict(t, "when @a.b [ 1 => show \"1\" ]")
	w = doc.Body[0].(*ast.WhenDirective).When
	subject, ok := w.Subject.(*ast.Ref)
	require.True(t, ok)
	require.Equal(t, "a", subject.Name)
	require.Equal(t, "b", subject.Path[0].Name)
}

func TestBracketErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"exe @f() = [show \"1\", show \"2\"]", "a statement cannot be an array item"},
		{"exe @f() = [@a, @b; @c]", "; in an array"},
		{"exe @f() = [@a, ...@b]", "Unknown operator \"..\" in a spread expression"},
		{"var @x = [0, ...@b]", "Unknown operator \"..\" in a spread expression"},
		{"exe @f() = [show \"1\"] | @g", "unexpected text after the directive"},
		{"when [ * => 1 ] | @f", "unexpected text after the directive"},
		{"for @x in @xs => [show @x] | @f", "unexpected text after the directive"},
		{"var @x = when [ @c => [show \"1\"] | @f ]", "unexpected text after the arm's block"},
		{"when @f() [ 1 => 2 ]", "subject of a when match must be a variable"},
		{"output", "unexpected end of input"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			perr := requireParseError(t, tt.src)
			require.Contains(t, perr.Message, tt.msg)
		})
	}
}

func TestOutputOperands(t *testing.T) {
	tests := []struct {
		src          string
		value        bool
		stream, path bool
	}{
		{`output "f.txt"`, false, false, true},
		{`output to "f.txt"`, false, false, true},
		{`output @x to "f.txt"`, true, false, true},
		{`output @x "f.txt"`, true, false, true},
		{`output @x to stdout`, true, true, false},
		{`output stderr`, false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			d := parseStrict(t, tt.src).Body[0].(*ast.OutputDirective)
			require.Equal(t, tt.value, d.Value != nil)
			require.Equal(t, tt.stream, d.Target.Stream != "")
			require.Equal(t, tt.path, d.Target.Path != nil)
		})
	}
}
