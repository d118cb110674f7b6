package interp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp/guard"
)

// outcome is what a differential run compares: everything a script
// produced and how it ended.
type outcome struct {
	doc, stdout, stderr, err string
}

// runBoth runs src (in a copy of dir, when given) with compiled guards and
// a lazily built guard context, and with every guard interpreted over the
// whole context.
func runBoth(t *testing.T, name string, src []byte, dir string) (compiled, interpreted outcome) {
	t.Helper()
	mode := ast.Strict
	if strings.HasSuffix(name, ".md") {
		mode = ast.Markdown
	}
	doc, err := grammar.Parse(name, src, mode)
	if err != nil {
		return outcome{err: err.Error()}, outcome{err: err.Error()}
	}
	one := func(enabled bool) outcome {
		work := t.TempDir()
		if dir != "" {
			require.NoError(t, os.CopyFS(work, os.DirFS(dir)))
		}
		res, err := Run(context.Background(), doc, Options{Dir: work, paths: evalPaths{wholeGuards: !enabled}})
		var o outcome
		if res != nil {
			o.doc, o.stdout, o.stderr = res.Document, res.Stdout, res.Stderr
		}
		if err != nil {
			o.err = strings.ReplaceAll(err.Error(), work, "<dir>")
		}
		o.stderr = strings.ReplaceAll(o.stderr, work, "<dir>")
		return o
	}
	return one(true), one(false)
}

// TestCompiledGuardsMatchInterpreter runs every guard shape the compiler
// handles over inputs with and without the labels it tests, in every
// scope, and requires the same document, streams and errors as the
// interpreter gives.
func TestCompiledGuardsMatchInterpreter(t *testing.T) {
	conds := []string{
		`*`,
		`@mx.op.type == "exe"`,
		`@mx.op.type != "exe"`,
		`"show" == @mx.op.type`,
		`@mx.op.subtype == "exeTemplate"`,
		`@mx.op.name == "f"`,
		`@mx.operation.name != "g"`,
		`@input.mx.labels.includes("secret")`,
		`@input.mx.taint.includes("pii")`,
		`@input.mx.taint.includes("src:template")`,
		`@input.any.mx.labels.includes("secret")`,
		`@input.all.mx.labels.includes("secret")`,
		`@input.none.mx.labels.includes("pii")`,
		`@input.any.mx.taint.includes("pii")`,
		`@mx.labels.includes("secret")`,
		`@mx.taint.includes("pii")`,
		`!@input.mx.labels.includes("pii")`,
		`@mx.op.type == "exe" && @mx.labels.includes("pii")`,
		`(@mx.op.type == "show" || @input.mx.labels.includes("secret")) && !@mx.labels.includes("internal")`,
		`true`,
		`false`,
	}
	actions := []string{`deny "blocked"`, `retry "again"`, `allow`}
	triggers := []string{"secret", "pii", "op:exe", "op:show", "@f"}
	timings := []string{"before", "after"}
	body := `var secret @a = "alpha"
var pii @b = "beta"
var internal,secret @c = "gamma"
var @plain = "delta"
exe @f(x, y) = ` + "`@x-@y`" + `
exe @g() = "none"
show @f(@a, @b)
show @f(@plain, @c)
show @g()
show @b
var @r = @f(@c, @plain)
show @r
`
	compiledShapes := 0
	for _, trig := range triggers {
		for _, tm := range timings {
			for i, c := range conds {
				for _, a := range actions {
					g := fmt.Sprintf("guard @t %s %s = when [ %s => %s\n * => allow ]\n", tm, trig, c, a)
					d, err := grammar.Parse("g.mld", []byte(g), ast.Strict)
					require.NoError(t, err, g)
					gd := d.Body[0].(*ast.GuardDirective)
					if planGuard(gd.Body).arms != nil {
						compiledShapes++
					} else {
						t.Errorf("cond %d (%s) did not compile", i, c)
					}
					// Each statement alone, so that one denial does not hide
					// the rest.
					for _, line := range strings.Split(strings.TrimSpace(body), "\n")[6:] {
						src := g + strings.Join(strings.Split(body, "\n")[:6], "\n") + "\n" + line + "\n"
						if strings.HasPrefix(line, "show @r") {
							src = g + body
						}
						comp, interp := runBoth(t, "t.mld", []byte(src), "")
						require.Equal(t, interp, comp, "script:\n%s", src)
					}
				}
			}
		}
	}
	require.Positive(t, compiledShapes)
}

// TestCompiledGuardsMatchOnFixtures runs every guard fixture with compiled
// and with interpreted guards and requires the same results.
func TestCompiledGuardsMatchOnFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "fixtures", "guards-*", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		name := "example.mld"
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			name = "example.md"
			if src, err = os.ReadFile(filepath.Join(dir, name)); err != nil {
				continue
			}
		}
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			comp, interp := runBoth(t, name, src, dir)
			require.Equal(t, interp, comp)
		})
	}
}

// TestGuardPlanAnalysis checks what the interpreter is told to build for
// guards it cannot compile.
func TestGuardPlanAnalysis(t *testing.T) {
	plan := func(rules string) *guardPlan {
		d, err := grammar.Parse("g.mld", []byte("guard @t before secret = when [ "+rules+" ]\n"), ast.Strict)
		require.NoError(t, err)
		return planGuard(d.Body[0].(*ast.GuardDirective).Body)
	}
	p := plan(`@mx.guard.try > 1 => deny "x"`)
	require.Nil(t, p.arms)
	require.True(t, p.fields)
	require.False(t, p.opaque)

	p = plan(`@mx.sources.includes("x") => deny "x"`)
	require.True(t, p.ambient)
	require.False(t, p.fields)

	p = plan(`@check(@input) => deny "x"`)
	require.True(t, p.calls, "an exe call may read any of @mx")
	require.False(t, p.opaque, "an exe body does not see the guard's scope")
	require.True(t, p.usesInput)

	p = plan(`@opHas("op:cmd") => deny "x"`)
	require.False(t, p.opaque)
	require.Equal(t, []string{"opHas"}, p.helpers)

	p = plan(`@input.text.startsWith("x") => deny "x" * => allow @output`)
	require.False(t, p.opaque)
	require.True(t, p.usesInput)
	require.True(t, p.usesOutput)

	p = plan(`@input.any.mx.labels.includes("x") => retry "h"`)
	require.NotNil(t, p.arms)
	require.False(t, p.perInput)
	require.True(t, p.perOperation)
	require.Equal(t, guard.Retry, p.arms[0].out.Action)
	require.Equal(t, "h", p.arms[0].out.Hint)
}

// TestCompiledTextFormsMatchInterpreter covers the compiled forms that
// read the operation's labels and call string methods on @input and
// @output (conditions and `allow @value`), over string, object and
// JSON-looking values, labelled exes and every scope: each must give what
// the interpreter gives, including where the compiled form hands the
// evaluation back (a value that is not a string).
func TestCompiledTextFormsMatchInterpreter(t *testing.T) {
	conds := []string{
		`*`,
		`@output.includes("alpha")`,
		`@output.startsWith("[")`,
		`@output.endsWith("ta")`,
		`@input.includes("et")`,
		`!@input.startsWith("al")`,
		`@mx.op.labels.includes("net:w")`,
		`@mx.operation.labels.includes("secret")`,
		`@mx.op.type == "exe" && @output.includes("-")`,
	}
	actions := []string{
		`deny "blocked"`,
		`allow @output.replace("a", "A")`,
		`allow @output.replaceAll("a", "")`,
		`allow @input.toUpperCase()`,
		`allow @output.trim()`,
		`allow @output.slice("1")`,
	}
	triggers := []string{"secret", "pii", "op:exe", "op:show", "@h"}
	timings := []string{"before", "after"}
	prelude := `var secret @a = "alpha"
var pii @b = " beta "
var pii @obj = { k: "v" }
var secret @j = '{"includes": "alpha"}'
var @plain = "delta"
exe @f(x, y) = ` + "`@x-@y`" + `
exe net:w @h(x) = ` + "`[@x]`" + `
exe secret @s() = "sk"
`
	stmts := []string{
		"show @f(@a, @b)",
		"show @h(@a)",
		"show @h(@obj)",
		"show @b",
		"show @obj",
		"show @j",
		"show @s()",
		"var @r = @f(@obj, @plain)\nshow @r",
		"var @q = @h(@b)\nshow @q.mx.labels\nshow @q.mx.taint",
	}
	for _, trig := range triggers {
		for _, tm := range timings {
			for i, c := range conds {
				for _, a := range actions {
					g := fmt.Sprintf("guard @t %s %s = when [ %s => %s\n * => allow ]\n", tm, trig, c, a)
					d, err := grammar.Parse("g.mld", []byte(g), ast.Strict)
					require.NoError(t, err, g)
					if planGuard(d.Body[0].(*ast.GuardDirective).Body).arms == nil {
						t.Errorf("cond %d (%s) with %s did not compile", i, c, a)
					}
					for _, st := range stmts {
						src := prelude + g + st + "\n"
						comp, interp := runBoth(t, "t.mld", []byte(src), "")
						require.Equal(t, interp, comp, "script:\n%s", src)
					}
				}
			}
		}
	}
}

// A guard that calls an exe gets the lazily built context: its own scope
// holds only what its rules mention (an exe body cannot see the guard's
// scope), while every @mx key stays readable from the exe. The result
// must be what the whole context gives.
func TestGuardCallingExeMatchesFullContext(t *testing.T) {
	readers := []string{
		"`@mx.args.x @mx.labels @mx.taint @mx.sources`",
		"`@mx.guard.name @mx.guard.timing @mx.guard.try @mx.guard.trace.length @mx.guard.input`",
		"`@mx.op.name @mx.op.type @mx.tools.history`",
		"`@input @output`",
		"`@c`",
	}
	rules := []string{
		`@see(@input) == "never" => deny "no"` + "\n  * => allow @see(@input)",
		`@see(@mx.args.x).length > 0 => allow @see(@output)`,
		`@opHas("op:exe") && @see("x") != "" => allow @see(@mx)`,
	}
	for i, reader := range readers {
		for j, rule := range rules {
			src := fmt.Sprintf(`var secret @a = "alpha"
exe @see(c) = %s
guard @first before secret = when [ * => allow ]
guard @t before secret = when [
  %s
  * => allow
]
exe @f(x) = `+"`[@x]`"+`
show @f(@a)
`, reader, rule)
			comp, full := runBoth(t, "t.mld", []byte(src), "")
			require.Equal(t, full, comp, "reader %d, rule %d:\n%s", i, j, src)
		}
	}
}
