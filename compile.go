package guardrun

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// Program is a compiled script. It holds only the immutable syntax tree and
// the source text, so one Program may be Run concurrently.
type Program struct {
	name string
	src  []byte
	mode ast.Mode
	doc  *ast.Document
}

// CompileOption configures Compile.
type CompileOption func(*compileConfig)

type compileConfig struct {
	mode    ast.Mode
	modeSet bool
}

// WithMode forces the parse mode instead of deriving it from the file
// extension (used for `.md` scripts whose config asks for strict mode).
func WithMode(m ast.Mode) CompileOption {
	return func(c *compileConfig) {
		c.mode = m
		c.modeSet = true
	}
}

// ModeForName returns the mode a file name implies: `.mld` is strict,
// anything else is markdown.
func ModeForName(name string) ast.Mode {
	if filepath.Ext(name) == ".mld" {
		return ast.Strict
	}
	return ast.Markdown
}

// Compile parses src, naming it name in positions and error messages. The
// mode comes from name's extension unless WithMode overrides it. A parse
// failure is returned as an *Error.
func Compile(name string, src []byte, opts ...CompileOption) (prg *Program, err error) {
	cfg := compileConfig{mode: ModeForName(name)}
	for _, o := range opts {
		o(&cfg)
	}
	defer func() {
		if r := recover(); r != nil {
			prg = nil
			err = panicError(name, r)
		}
	}()
	doc, perr := grammar.Parse(name, src, cfg.mode)
	if perr != nil {
		return nil, newError(perr, source{name: name, src: src})
	}
	if doc == nil {
		return nil, &Error{Name: "ParseError", Message: "parser returned no document", Pos: ast.Pos{File: name}}
	}
	return &Program{name: name, src: src, mode: cfg.mode, doc: doc}, nil
}

// CompileFile reads and compiles the script at path.
func CompileFile(path string, opts ...CompileOption) (*Program, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{
			Name:    "IOError",
			Message: fmt.Sprintf("cannot read script: %v", err),
			Pos:     ast.Pos{File: path},
			Hint:    "check that the file exists and is readable",
			cause:   err,
		}
	}
	return Compile(path, src, opts...)
}

// Name returns the name the program was compiled under.
func (p *Program) Name() string { return p.name }

// Mode returns the mode the program was parsed in.
func (p *Program) Mode() ast.Mode { return p.mode }

// Document returns the parsed syntax tree. Callers must not modify it: it is
// shared by every Run.
func (p *Program) Document() *ast.Document { return p.doc }

func panicError(file string, r any) *Error {
	return &Error{
		Name:    "InterpreterError",
		Message: fmt.Sprintf("internal error: %v", r),
		Pos:     ast.Pos{File: file},
		Hint:    "this is a bug in guardrun; please report it together with the script",
		// The stack goes into the cause, not the message: authors see a clean
		// error, developers can still unwrap it.
		cause:    fmt.Errorf("panic: %v\n%s", r, debug.Stack()),
		internal: true,
	}
}
