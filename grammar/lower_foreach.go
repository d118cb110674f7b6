package grammar

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
)

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

// runString lowers `run "command"`: a quoted command runs as cmd { … }
// does, its literal text as shell text and its interpolations as data.
// It returns nil when the operand is not a plain double-quoted string.
func (l *lowerer) runString(t *ternary) *ast.CodeExpr {
	if t.First == nil || t.First.Str == nil || !t.First.Str.DQ || len(t.Rest) > 0 || t.Then != nil {
		return nil
	}
	lit := l.str(t.First.Str)
	for _, p := range lit.Parts {
		if tp, ok := p.(*ast.TextPart); ok {
			if _, op := forbiddenShellOperator(tp.Text); op != "" {
				l.fail(t.First.Pos, cmdOperatorMessage(op), op, `run "…" runs a single pipeline (only | is allowed); use sh { … } for shell syntax`)
				return nil
			}
		}
	}
	return &ast.CodeExpr{Pos: lit.Pos, Lang: "cmd", Command: lit, Run: true}
}

// shadowExe lowers `exe @js = { helper, … }`, the @-spelling of a shadow
// environment.
func (l *lowerer) shadowExe(e *exeStmt, p ast.Pos) ast.Directive {
	lang := strings.TrimPrefix(e.Name, "@")
	switch lang {
	case "js", "javascript", "node", "nodejs", "py", "python":
	default:
		l.fail(e.Pos, "Syntax error: { "+strings.Join(e.Names, ", ")+" } declares a shadow environment, which needs a language name",
			e.Name, "write exe js = { helper } (or node) to expose exes to code blocks")
		return nil
	}
	if e.Parens || len(e.Labels) > 0 {
		l.fail(e.Pos, "Syntax error: a shadow environment takes no parameters or labels", e.Name, "write exe js = { helper }")
		return nil
	}
	return &ast.ShadowDirective{Pos: p, Lang: lang, Names: e.Names}
}

// batch applies a batch pipeline (`=> | @f …`, or a parallel group `=> ||
// @a() || @b()`) to the collected results src.
func (l *lowerer) batch(at ast.Pos, src ast.Expr, steps []*pipeStep, par *leadPar) ast.Expr {
	if par == nil {
		return l.pipeline(at, src, steps, nil)
	}
	st := &ast.Stage{Pos: l.pos(par.Pos), Kind: ast.StageParallel}
	for _, a := range par.Atoms {
		st.Parallel = append(st.Parallel, l.stageAtom(a))
	}
	return &ast.LeadParallel{Pos: at, Pipeline: &ast.PipelineExpr{Pos: at, Source: src, Stages: []*ast.Stage{st}}}
}
