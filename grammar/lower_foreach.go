package grammar

import "github.com/guardrun/guardrun/ast"

// showForeach turns the value of `show foreach @f(@xs) [=> | stages]
// [with { separator, template }]` into a ShowJoin: shown, a foreach's
// results are text, one per line unless the options say otherwise.
func showForeach(v ast.Expr) ast.Expr {
	var opts *ast.ObjectLit
	src := v
	if pl, ok := v.(*ast.PipelineExpr); ok && len(pl.Stages) == 0 && pl.With != nil {
		opts, src = pl.With.Options, pl.Source
	}
	inner := src
	if pl, ok := inner.(*ast.PipelineExpr); ok && pl.With == nil {
		inner = pl.Source
	}
	if _, ok := inner.(*ast.ForeachExpr); !ok {
		return v
	}
	return &ast.ShowJoin{Pos: v.Position(), Value: src, Options: opts}
}

// onlyValues reports whether every statement of blk is a plain expression
// (no let, +=, =>, directive or loop control).
func onlyValues(blk *ast.BlockExpr) bool {
	for _, s := range blk.Stmts {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			return false
		}
		if _, ok := es.Value.(*ast.LoopCtlExpr); ok {
			return false
		}
	}
	return true
}
