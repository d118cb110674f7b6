package interp

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
)

func TestProseBreaksCollapse(t *testing.T) {
	res := mustRun(t, doc(
		prose("## H\n"),
		&ast.VarDirective{Name: "a", Value: num(1)},
		prose("\n"),
		&ast.ShowDirective{Value: str("x")},
		prose("## Next\n\n\n\n"),
		&ast.ShowDirective{Value: str("y")},
	))
	require.Equal(t, "## H\n\nx\n## Next\n\ny\n", res.Document)
	require.Equal(t, "x\ny\n", res.Stdout)
}

func TestVarRedefinitionIsAnError(t *testing.T) {
	_, err := run(t, doc(
		&ast.VarDirective{Name: "x", Value: num(1)},
		&ast.VarDirective{Pos: ast.Pos{Line: 2, Col: 1}, Name: "x", Value: num(2)},
	))
	var ie *Error
	require.True(t, errors.As(err, &ie))
	require.Equal(t, KindVariable, ie.Kind)
	require.Contains(t, ie.Message, "Variable 'x' is already defined and cannot be redefined")
	require.Equal(t, 2, ie.Pos.Line)
}

func TestUnknownVariable(t *testing.T) {
	_, err := run(t, doc(&ast.ShowDirective{Value: ref("nope")}))
	require.ErrorContains(t, err, "Variable not found: nope")

	_, err = run(t, doc(
		&ast.ExeDirective{Name: "f", Params: params("a"), Body: tmpl("a=", ref("a"))},
		&ast.ShowDirective{Value: ref("f", call(ref("missing")))},
	))
	require.ErrorContains(t, err, "Undefined variable '@missing' passed to function @f")
}

func TestTemplateKeepsUndefinedRefsLiteral(t *testing.T) {
	res := mustRun(t, doc(&ast.ShowDirective{Value: tmpl("hi ", ref("who", field("name")), "!")}))
	require.Equal(t, "hi @who.name!\n", res.Document)
}

func TestExeClosureAndMissingArgs(t *testing.T) {
	res := mustRun(t, doc(
		&ast.VarDirective{Name: "greeting", Value: str("Hello")},
		&ast.ExeDirective{Name: "greet", Params: params("name", "extra"), Body: tmpl(ref("greeting"), " ", ref("name"), "[", ref("extra"), "]")},
		&ast.ShowDirective{Value: ref("greet", call(str("Ada")))},
	))
	// A parameter with no argument is undefined: a template shows it as
	// written, as an undefined variable (mlld 2.0.5, SPEC §3.1, §3.6).
	require.Equal(t, "Hello Ada[@extra]\n", res.Document)
}

func TestRecursionIsDetected(t *testing.T) {
	_, err := run(t, doc(
		&ast.ExeDirective{Name: "f", Params: params("x"), Body: ref("f", call(ref("x")))},
		&ast.ShowDirective{Value: ref("f", call(num(1)))},
	))
	require.ErrorContains(t, err, "Circular reference detected: executable '@f' calls itself recursively")
}

func TestWhenFirstMatchAndNone(t *testing.T) {
	w := &ast.WhenExpr{Arms: []*ast.WhenArm{
		{Kind: ast.ArmCond, Cond: &ast.BinaryExpr{Op: ">", Left: ref("n"), Right: num(5)}, Action: str("big")},
		{Kind: ast.ArmCond, Cond: &ast.BinaryExpr{Op: ">", Left: ref("n"), Right: num(1)}, Action: str("medium")},
		{Kind: ast.ArmNone, Action: str("small")},
	}}
	res := mustRun(t, doc(
		&ast.ExeDirective{Name: "size", Params: params("n"), Body: w},
		&ast.ShowDirective{Value: ref("size", call(num(10)))},
		&ast.ShowDirective{Value: ref("size", call(num(3)))},
		&ast.ShowDirective{Value: ref("size", call(num(0)))},
	))
	require.Equal(t, "big\nmedium\nsmall\n", res.Document)
}

func TestOrReturnsOperandValue(t *testing.T) {
	res := mustRun(t, doc(
		&ast.VarDirective{Name: "u", Value: &ast.NullLit{}},
		&ast.VarDirective{Name: "c", Value: &ast.BinaryExpr{Op: "||", Left: ref("u"), Right: str("default.json")}},
		&ast.ShowDirective{Value: ref("c")},
	))
	require.Equal(t, "default.json\n", res.Document)
}

func TestPipelineRetryReRunsFunctionSource(t *testing.T) {
	retrier := &ast.WhenExpr{Arms: []*ast.WhenArm{
		{Kind: ast.ArmCond, Cond: &ast.BinaryExpr{Op: "<", Left: ref("pipeline", field("try")), Right: num(3)}, Action: &ast.RetryExpr{}},
		{Kind: ast.ArmWildcard, Action: tmpl(ref("input"), " try=", ref("pipeline", field("try")))},
	}}
	src := &ast.WhenExpr{Arms: []*ast.WhenArm{
		{Kind: ast.ArmWildcard, Action: tmpl("v", ref("mx", field("try")))},
	}}
	res := mustRun(t, doc(
		&ast.ExeDirective{Name: "src", Body: src},
		&ast.ExeDirective{Name: "check", Params: params("input"), Body: retrier},
		&ast.VarDirective{Name: "r", Value: &ast.PipelineExpr{Source: ref("src", call()), Stages: []*ast.Stage{stage(ref("check"))}}},
		&ast.ShowDirective{Value: ref("r")},
	))
	require.Equal(t, "v3 try=3\n", res.Document)
}

func TestPipelineRetryLimit(t *testing.T) {
	always := &ast.WhenExpr{Arms: []*ast.WhenArm{{Kind: ast.ArmWildcard, Action: &ast.RetryExpr{}}}}
	_, err := run(t, doc(
		&ast.ExeDirective{Name: "src", Body: str("s")},
		&ast.ExeDirective{Name: "r", Params: params("input"), Body: always},
		&ast.VarDirective{Name: "x", Value: &ast.PipelineExpr{Source: ref("src", call()), Stages: []*ast.Stage{stage(ref("r"))}}},
	))
	require.ErrorContains(t, err, "Pipeline aborted: Stage 1 exceeded retry limit for stage 0 (10 attempts; max 10).")
}

func TestForExpressionCollectsAndSkips(t *testing.T) {
	body := &ast.WhenExpr{Arms: []*ast.WhenArm{
		{Kind: ast.ArmCond, Cond: &ast.BinaryExpr{Op: "==", Left: ref("x"), Right: num(2)}, Action: &ast.SkipExpr{}},
		{Kind: ast.ArmWildcard, Action: tmpl("<", ref("x"), ">")},
	}}
	res := mustRun(t, doc(
		&ast.VarDirective{Name: "r", Value: &ast.ForExpr{Var: "x", Source: &ast.ArrayLit{Items: []ast.ArrayItem{{Value: num(1)}, {Value: num(2)}, {Value: num(3)}}}, Body: body}},
		&ast.ShowDirective{Value: tmpl("r=", ref("r"))},
	))
	require.Equal(t, "r=[\"<1>\",\"<3>\"]\n", res.Document)
}

func TestLogAndOutputStreams(t *testing.T) {
	res := mustRun(t, doc(
		&ast.LogDirective{Value: &ast.BoolLit{Value: false}},
		&ast.OutputDirective{Value: str("out"), Target: ast.OutputTarget{Stream: "stdout"}},
		&ast.OutputDirective{Value: str("err"), Target: ast.OutputTarget{Stream: "stderr"}},
	))
	require.Equal(t, "", res.Document)
	require.Equal(t, "out\n", res.Stdout)
	require.Equal(t, "false\nerr\n", res.Stderr)
}

func TestCancelledContextInterrupts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, doc(&ast.ShowDirective{Value: str("x")}), Options{})
	var ie *Error
	require.True(t, errors.As(err, &ie))
	require.Equal(t, KindInterrupt, ie.Kind)
}

func TestDisableCode(t *testing.T) {
	_, err := Run(context.Background(), doc(&ast.RunDirective{Value: &ast.CodeExpr{Lang: "sh", Code: "echo hi"}}), Options{DisableCode: true})
	require.ErrorContains(t, err, "code execution is disabled")
}
