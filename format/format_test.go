package format_test

import (
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/format"
	"github.com/stretchr/testify/require"
)

func TestCanonicalLayout(t *testing.T) {
	src := `>> a policy
var secret   @k="sk"
   >> indented comment


exe net:w @post(body)=when [
      denied => ` + "`refused: @mx.guard.reason`" + `
  *=>` + "`posted @body`" + `
]
guard @g before secret = when [ @mx.op.labels.includes("net:w") => deny "no"
 * => allow ]
var @o = {a:1,"b-c":[1,2,  3], d: (1 + 2) * 3}
show @post(@k)   
`
	want := `>> a policy
var secret @k = "sk"
>> indented comment

exe net:w @post(body) = when [
  denied => ` + "`refused: @mx.guard.reason`" + `
  * => ` + "`posted @body`" + `
]
guard @g before secret = when [
  @mx.op.labels.includes("net:w") => deny "no"
  * => allow
]
var @o = { a: 1, "b-c": [1, 2, 3], d: (1 + 2) * 3 }
show @post(@k)
`
	res, err := format.Source("p.mld", []byte(src), ast.Strict)
	require.NoError(t, err)
	require.Equal(t, want, string(res.Text))
	require.Zero(t, res.Kept)
}

func TestMarkdownProseKept(t *testing.T) {
	src := "# Title  \n\nSome *prose*   with @at signs.\n>> a comment\n/var   @x=1\n\n```\n/var @notadirective\n```\n/show   @x\ntail\n"
	want := "# Title  \n\nSome *prose*   with @at signs.\n>> a comment\n/var @x = 1\n\n```\n/var @notadirective\n```\n/show @x\ntail\n"
	res, err := format.Source("p.md", []byte(src), ast.Markdown)
	require.NoError(t, err)
	require.Equal(t, want, string(res.Text))
}

func TestCommentLinesBeforeArmsAndStatementsAreKept(t *testing.T) {
	src := "guard @g before secret = when [\n    >> why: secrets stay home\n  >> (two lines)\n  *   => deny \"no\"\n]\nexe @f(x) = [\n      >> a note\n  let @y = `>> not a comment @x`\n  => @y\n]\n"
	want := "guard @g before secret = when [\n  >> why: secrets stay home\n  >> (two lines)\n  * => deny \"no\"\n]\nexe @f(x) = [\n  >> a note\n  let @y = `>> not a comment @x`\n  => @y\n]\n"
	res, err := format.Source("p.mld", []byte(src), ast.Strict)
	require.NoError(t, err)
	require.Equal(t, want, string(res.Text))
	require.Zero(t, res.Kept)
}

func TestTrailingCommentOfAOneLineDirective(t *testing.T) {
	res, err := format.Source("p.mld", []byte("var   @x=1 >> why\nshow @x\n"), ast.Strict)
	require.NoError(t, err)
	require.Equal(t, "var @x = 1  >> why\nshow @x\n", string(res.Text))
}

func TestOtherCommentsKeepTheDirectiveAsWritten(t *testing.T) {
	for _, src := range []string{
		"guard @g before secret = when [\n  *   => deny \"no\" >> trailing\n]\n",
		"guard @g before secret = when [ *   => deny \"no\" ]  >> becomes several lines\n",
		"guard @g before secret = when [\n  *   => deny \"no\"\n  >> at the end\n]\n",
		"var @o = {\n  >> in an object\n  a:   1\n}\n",
	} {
		res, err := format.Source("p.mld", []byte(src), ast.Strict)
		require.NoError(t, err)
		require.Equal(t, src, string(res.Text))
		require.Equal(t, 1, res.Kept)
	}
}

func TestParseErrorReturned(t *testing.T) {
	_, err := format.Source("p.mld", []byte("var @x = \n"), ast.Strict)
	require.Error(t, err)
	require.Contains(t, err.Error(), "p.mld:1")
}

func TestModeForGuardIsStrict(t *testing.T) {
	for name, want := range map[string]ast.Mode{"p.guard": ast.Strict, "p.mld": ast.Strict, "p.md": ast.Markdown, "p.mld.md": ast.Markdown} {
		if got := format.ModeFor(name); got != want {
			t.Errorf("ModeFor(%q) = %v, want %v", name, got, want)
		}
	}
}

// Every guard action is reprinted, with its with-clause: a guard with an
// `ask` arm, or a deny or retry with one, was kept as written (and so
// `fmt --check` called a misformatted policy clean).
func TestGuardActionsReformatted(t *testing.T) {
	src := `guard @push before op:cmd:git = when [
    @mx.op.labels.includes("op:cmd:git:push")   =>    ask "Push?"
  @mx.op.labels.includes("op:cmd:git:reset")=>ask   'Reset "hard"?'   with {message:"a reset loses work"}
  @mx.op.labels.includes("op:cmd:git:clean") =>   deny "no"  with {  message : "clean deletes files" }
 * =>   allow
]
guard @shape after op:exe = when [
  @output.length > 3=>retry   "shorter"  with {context:"keep it short"}
  * => allow
]
`
	want := `guard @push before op:cmd:git = when [
  @mx.op.labels.includes("op:cmd:git:push") => ask "Push?"
  @mx.op.labels.includes("op:cmd:git:reset") => ask 'Reset "hard"?' with { message: "a reset loses work" }
  @mx.op.labels.includes("op:cmd:git:clean") => deny "no" with { message: "clean deletes files" }
  * => allow
]
guard @shape after op:exe = when [
  @output.length > 3 => retry "shorter" with { context: "keep it short" }
  * => allow
]
`
	res, err := format.Source("p.guard", []byte(src), ast.Strict)
	require.NoError(t, err)
	require.Equal(t, want, string(res.Text))
	require.Zero(t, res.Kept)
}

// A reason or question written as a template is printed as written, and
// the printed policy parses to the same template (a round trip).
func TestGuardReasonTemplatesReformatted(t *testing.T) {
	src := "guard @pay before op:exe = when [\n" +
		"  @mx.args.amount > 100 =>   ask   `Send @mx.args.amount to @mx.args.to\\?`   with {message:\"large\"}\n" +
		"  @mx.args.to == \"x\"=>deny ::@mx.args.to is not one you named::\n" +
		"  @mx.args.to == \"y\" => deny :::{{mx.args.to}} is unknown:::\n" +
		" * =>   deny `no: @mx.op.name`\n" +
		"]\n"
	want := "guard @pay before op:exe = when [\n" +
		"  @mx.args.amount > 100 => ask `Send @mx.args.amount to @mx.args.to\\?` with { message: \"large\" }\n" +
		"  @mx.args.to == \"x\" => deny ::@mx.args.to is not one you named::\n" +
		"  @mx.args.to == \"y\" => deny :::{{mx.args.to}} is unknown:::\n" +
		"  * => deny `no: @mx.op.name`\n" +
		"]\n"
	res, err := format.Source("p.guard", []byte(src), ast.Strict)
	require.NoError(t, err)
	require.Equal(t, want, string(res.Text))
	require.Zero(t, res.Kept)
	again, err := format.Source("p.guard", res.Text, ast.Strict)
	require.NoError(t, err)
	require.Equal(t, want, string(again.Text))
}
