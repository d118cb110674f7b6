package interp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
)

// Small AST builders for tests that do not depend on the parser.

func str(s string) *ast.StringLit {
	return &ast.StringLit{Kind: ast.DoubleQuote, Parts: []ast.TemplatePart{&ast.TextPart{Text: s}}}
}

func tmpl(parts ...any) *ast.StringLit {
	s := &ast.StringLit{Kind: ast.Backtick}
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			s.Parts = append(s.Parts, &ast.TextPart{Text: p})
		case ast.Expr:
			s.Parts = append(s.Parts, &ast.InterpPart{Value: p})
		}
	}
	return s
}

func num(f float64) *ast.NumberLit { return &ast.NumberLit{Value: f} }

func ref(name string, path ...ast.Accessor) *ast.Ref { return &ast.Ref{Name: name, Path: path} }

func field(name string) ast.Accessor { return ast.Accessor{Kind: ast.AccessField, Name: name} }

func call(args ...ast.Expr) ast.Accessor { return ast.Accessor{Kind: ast.AccessCall, Args: args} }

func params(names ...string) []ast.Param {
	out := make([]ast.Param, len(names))
	for i, n := range names {
		out[i] = ast.Param{Name: n}
	}
	return out
}

func stage(r *ast.Ref) *ast.Stage { return &ast.Stage{Kind: ast.StageCall, Call: r} }

func doc(nodes ...ast.Node) *ast.Document { return &ast.Document{File: "t.mld", Body: nodes} }

func prose(s string) *ast.Prose { return &ast.Prose{Text: s} }

func run(t *testing.T, d *ast.Document) (*Result, error) {
	t.Helper()
	return Run(context.Background(), d, Options{Dir: t.TempDir()})
}

func mustRun(t *testing.T, d *ast.Document) *Result {
	t.Helper()
	res, err := run(t, d)
	require.NoError(t, err)
	return res
}
