package guardrun

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp"
)

// Program is a compiled script. It holds only the immutable syntax tree and
// the source text, so one Program may be Run concurrently.
type Program struct {
	name string
	src  []byte
	mode Mode
	doc  *ast.Document
	// dir is the directory of the file CompileFile read: the default base
	// directory. Empty for a script compiled from memory, which has no
	// base directory unless Run is given WithDir.
	dir string
	// funcs are the Go functions its scripts may call (WithFunctions);
	// declared the per-call variables it declares (DeclareVars).
	funcs    *interp.Funcs
	declared []string
}

// CompileOption configures Compile.
type CompileOption func(*compileConfig)

type compileConfig struct {
	mode Mode
	// funcs and declared are WithFunctions' functions and DeclareVars'
	// names.
	funcs    []Function
	declared []string
	// strict is WithStrictCheck; checkTools are WithCheckTools' patterns.
	strict     bool
	checkTools []string
}

// WithMode forces the parse mode instead of deriving it from the file
// extension (used for `.md` scripts whose config asks for strict mode).
func WithMode(m Mode) CompileOption {
	return func(c *compileConfig) { c.mode = m }
}

// Compile parses src, naming it name in positions and error messages. The
// mode comes from name's extension unless WithMode overrides it. A parse
// failure is returned as an *Error. The program has no base directory:
// run without WithDir, a script that reads or writes a file, imports a
// module or runs a command fails with "no base directory: use WithDir"
// (so its imports are resolved by Run, before the script's first
// directive, and by Load, which fails at a missing one; CompileFile
// resolves them at once).
//
// Compile also checks what it is given: Go functions (WithFunctions) and
// declared per-call variables (DeclareVars) whose names are not allowed
// or that the script's own top level defines, and, with
// WithStrictCheck, the mistakes `guardrun check` reports as errors.
func Compile(name string, src []byte, opts ...CompileOption) (prg *Program, err error) {
	return compile(name, src, "", opts)
}

// compile is Compile for a script whose base directory is dir (CompileFile),
// or none ("").
func compile(name string, src []byte, dir string, opts []CompileOption) (prg *Program, err error) {
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
	testHookCompile()
	mode, ok := cfg.mode.astMode()
	if !ok {
		return nil, &Error{
			Name:    UsageErrorName,
			Message: fmt.Sprintf("unknown mode %s", cfg.mode),
			Pos:     ast.Pos{File: name},
			Hint:    "pass guardrun.Markdown or guardrun.Strict to WithMode",
		}
	}
	doc, perr := parse(name, src, mode)
	if perr != nil {
		return nil, newError(perr, source{name: name, src: src})
	}
	if doc == nil {
		return nil, &Error{Name: ParseErrorName, Message: "parser returned no document", Pos: ast.Pos{File: name}}
	}
	at := source{name: name, src: src, dir: dir}
	// A script that needs JavaScript or token counts in a program built
	// without them is refused here, before it can run at all.
	if err := interp.CheckEngines(doc); err != nil {
		return nil, newError(err, at)
	}
	prg = &Program{name: name, src: src, mode: cfg.mode, doc: doc, dir: dir, declared: slices.Clone(cfg.declared)}
	if prg.funcs, err = interp.PrepareFuncs(cfg.funcs); err != nil {
		return nil, usageError(name, err.Error(), "give WithFunctions names a script can write as @name that the language does not reserve, each once, with a Call", err)
	}
	for _, n := range cfg.declared {
		if err := interp.CheckEmbedderName("variable", n); err != nil {
			return nil, usageError(name, err.Error(), "declare names a script can write as @name that the language does not reserve", err)
		}
	}
	if err := interp.CheckClashes(doc, "Go function", prg.funcs.Names()); err != nil {
		return nil, newError(err, at)
	}
	if err := interp.CheckClashes(doc, "per-call variable", slices.Clone(cfg.declared)); err != nil {
		return nil, newError(err, at)
	}
	if err := interp.CheckImports(doc, dir); err != nil {
		return nil, newError(err, at)
	}
	if cfg.strict {
		if err := strictCheck(doc, cfg, prg.funcs.Names(), at); err != nil {
			return nil, err
		}
	}
	return prg, nil
}

// CompileFile reads and compiles the script at path. The script's own
// directory is the program's base directory unless Run is given WithDir;
// its imports are resolved against it now, so a missing module is a
// compile error at the import.
func CompileFile(path string, opts ...CompileOption) (*Program, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{
			Name:    IOErrorName,
			Message: fmt.Sprintf("cannot read script: %v", err),
			Pos:     ast.Pos{File: path},
			Hint:    "check that the file exists and is readable",
			cause:   err,
		}
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, &Error{Name: IOErrorName, Message: fmt.Sprintf("cannot resolve the script's directory: %v", err),
			Pos: ast.Pos{File: path}, Hint: "pass an absolute path", cause: err}
	}
	return compile(path, src, dir, opts)
}

// Name returns the name the program was compiled under.
func (p *Program) Name() string { return p.name }

// Mode returns the mode the program was parsed in.
func (p *Program) Mode() Mode { return p.mode }

// Document returns the parsed syntax tree. Callers must not modify it: it is
// shared by every Run.
func (p *Program) Document() *ast.Document { return p.doc }

// testHookCompile and testHookRun run inside the facade's recover, so tests
// can check how a panic in the facade's own code is reported.
var (
	testHookCompile = func() {}
	testHookRun     = func() {}
)

// panicError reports a panic recovered by the facade itself.
func panicError(file string, r any) *Error {
	return internalError(file, r, debug.Stack(), nil)
}

// internalError builds the one shape every recovered panic takes, wherever
// it was recovered. The stack goes into the cause, not the message: authors
// see a clean error, developers can still unwrap it.
func internalError(file string, value any, stack []byte, from error) *Error {
	cause := fmt.Errorf("panic: %v\n%s", value, stack)
	if from != nil {
		cause = fmt.Errorf("panic: %v\n%s: %w", value, stack, from)
	}
	return &Error{
		Name:     InternalErrorName,
		Message:  fmt.Sprintf("internal error: %v", value),
		Pos:      ast.Pos{File: file},
		Hint:     "this is a bug in guardrun; please report it together with the script",
		cause:    cause,
		internal: true,
	}
}
