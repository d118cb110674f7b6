package guardrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	require.Equal(t, ast.Strict, ModeForName("a/b.mld"))
	require.Equal(t, ast.Markdown, ModeForName("a/b.md"))
	require.Equal(t, ast.Markdown, ModeForName("a/b.mld.md"))
	require.Equal(t, ast.Markdown, ModeForName("noext"))
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
	require.True(t, e.internal)
	require.Equal(t, "InterpreterError", e.Name)
	require.Contains(t, e.Message, "kaboom")
	require.NotContains(t, e.Message, "goroutine", "the stack stays out of the message")
}
