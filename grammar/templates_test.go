package grammar

import (
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/stretchr/testify/require"
)

func TestTemplateForBlock(t *testing.T) {
	doc := parseStrict(t, "var @m = ::\n/for @k, @v in @items\n- @k: @v\n/end\n::")
	lit := doc.Body[0].(*ast.VarDirective).Value.(*ast.StringLit)
	require.Len(t, lit.Parts, 1, "the formatting line breaks around the block are dropped")
	f, ok := lit.Parts[0].(*ast.TemplateFor)
	require.True(t, ok, "%T", lit.Parts[0])
	require.Equal(t, "k", f.Key)
	require.Equal(t, "v", f.Var)
	require.Equal(t, "items", f.Source.(*ast.Ref).Name)
	require.Len(t, f.Body, 5)
	require.Equal(t, "- ", f.Body[0].(*ast.TextPart).Text)
	require.Equal(t, ": ", f.Body[2].(*ast.TextPart).Text)
	require.Equal(t, "\n", f.Body[4].(*ast.TextPart).Text)

	var refs []string
	ast.Inspect(doc, func(n ast.Node) bool {
		if r, ok := n.(*ast.Ref); ok {
			refs = append(refs, r.Name)
		}
		return true
	})
	require.Equal(t, []string{"items", "k", "v"}, refs)
}

func TestTemplateForOnlyAtLineStart(t *testing.T) {
	doc := parseStrict(t, "var @m = ::a /for @x in @y /end::")
	lit := doc.Body[0].(*ast.VarDirective).Value.(*ast.StringLit)
	require.Len(t, lit.Parts, 5)
	require.Equal(t, "a /for ", lit.Parts[0].(*ast.TextPart).Text)
	require.Equal(t, " /end", lit.Parts[4].(*ast.TextPart).Text)
}

func TestColonTemplatesDropFormattingNewlines(t *testing.T) {
	for _, src := range []string{"var @m = ::\nhi\n::", "var @m = :::\nhi\n:::"} {
		lit := parseStrict(t, src).Body[0].(*ast.VarDirective).Value.(*ast.StringLit)
		require.Equal(t, "hi", lit.Parts[0].(*ast.TextPart).Text, src)
	}
	lit := parseStrict(t, "var @m = `\nhi\n`").Body[0].(*ast.VarDirective).Value.(*ast.StringLit)
	require.Equal(t, "\nhi\n", lit.Parts[0].(*ast.TextPart).Text, "backticks keep them")
}

func TestDoubleAtIsAnEscape(t *testing.T) {
	for src, want := range map[string]string{
		"show `a@@b`":              "a@b",
		"show \"mail a@@b.c\"":     "mail a@b.c",
		"show ::x@@y::":            "x@y",
		"run cmd {echo a@@b}":      "echo a@b",
		"show `@@name and @@`":     "@name and @",
		"show \"a@@\"":             "a@",
		"show `user\\@example@@x`": "user@example@x",
	} {
		doc := parseStrict(t, src)
		var lit *ast.StringLit
		switch d := doc.Body[0].(type) {
		case *ast.ShowDirective:
			lit = d.Value.(*ast.StringLit)
		case *ast.RunDirective:
			lit = d.Value.(*ast.CodeExpr).Command
		}
		require.Len(t, lit.Parts, 1, src)
		require.Equal(t, want, lit.Parts[0].(*ast.TextPart).Text, src)
	}
}

func TestCmdOperatorsInsideQuotesAreFine(t *testing.T) {
	for _, src := range []string{
		`run cmd {echo "a && b > c; d &"}`,
		`run cmd {echo 'x || y < z'}`,
		`run cmd {echo @x | tr a-z A-Z}`,
		`run sh {a && b > c}`,
		`var @x = <a.md>`,
	} {
		parseStrict(t, src)
	}
}
