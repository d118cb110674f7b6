package interp

import (
	"context"
	"errors"
	"io"
	"runtime/debug"
	"time"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// Options configure one run of a document.
type Options struct {
	// Dir is the base directory: relative paths (imports, output files)
	// resolve against it, and commands run in it. Empty: the script's
	// directory, else the working directory, unless NoBaseDir is set.
	Dir string
	// NoBaseDir, with Dir empty, runs the script without a base
	// directory: file access, imports and commands fail with an error
	// instead of falling back to the working directory. The facade sets
	// it for a script compiled from memory and run without WithDir.
	NoBaseDir bool
	// Stdout receives, as they happen, the effects that go to stdout but
	// not to the document (`output … to stdout`); shown text reaches the
	// caller through the document. Stderr receives every stderr effect
	// (logs, `output … to stderr`, command stderr). Both may be nil; the
	// Result holds full copies of both streams.
	Stdout io.Writer
	Stderr io.Writer
	// Document, when set, receives the document as it is produced, in its
	// final form: blank-line runs collapsed, no leading newlines, and one
	// final newline when the run ends. Result.Document holds it as well.
	Document io.Writer
	// CommandTimeout bounds one command or code block (0 = default 30s).
	CommandTimeout time.Duration
	// MemoryLimit is the run's memory budget in bytes (0 =
	// DefaultMemoryLimit, negative = none): one JS block may grow the heap
	// by at most this much, the whole run likewise (a watch over the
	// process's heap, so other goroutines' allocations count too), the
	// collected output may reach half of it, and one built string an
	// eighth (at most value.MaxString in any case). A breach ends the run
	// with a positioned LimitError.
	MemoryLimit int64
	// OutputLimit caps one command's captured output in bytes (0 = 4 MiB).
	OutputLimit int
	// StateDir is where the run keeps its private audit ledger, outside
	// the base directory ("" = $XDG_STATE_HOME, else ~/.local/state).
	// Tests point it at a temporary directory.
	StateDir string
	// DisableCode makes js/node/cmd/sh blocks and run fail with an error
	// instead of executing (used by fuzzing and sandboxed embedders).
	DisableCode bool
	// WritableProtected are paths, relative to Dir, that scripts may write
	// although they are under a protected name (.git, .envrc, .mlld, …:
	// files other programs execute, which are refused by default).
	WritableProtected []string
	// Parse parses an imported module file; the facade passes grammar.Parse.
	Parse func(file string, src []byte, mode ast.Mode) (*ast.Document, error)
	// paths are this package's tests' choice of evaluator paths.
	paths evalPaths
	// RegisterHooks, when set, is called once per run with the run's hook
	// manager, after the built-in taint post-hook is registered.
	RegisterHooks func(*hooks.Manager)
	// Explain, when set, receives one Explanation per decision that
	// denied an operation (guard or policy) and per policy denial a
	// privileged guard overrode, as it happens.
	Explain func(Explanation)
	// Cover, when set, is called with the position of every guard that is
	// evaluated and of every when arm (guard rules included) that is
	// taken, for `guardrun test --coverage`. Guards then always take the
	// interpreted path, which decides as the compiled one does.
	Cover func(ast.Pos)
	// BaseAsRoot makes loaded files' metadata (.mx.absolute, .mx.path,
	// .mx.absoluteDir), their dir: labels and their sources show paths
	// rooted at the base directory ("/" is the base directory), as mlld's
	// test harness does, instead of host paths.
	BaseAsRoot bool
	// Vars are the run's per-call variables (PrepareVars): the main
	// script reads them as `@name`, as if its top level had defined them,
	// and may not define one of the same name. A Machine's decisions take
	// theirs from Operation.Vars instead.
	Vars map[string]*value.Variable
	// Funcs are the Go functions the program's scripts may call
	// (PrepareFuncs), in every module.
	Funcs *Funcs
	// ParseTemplate parses the text of an external template file
	// (mustache: a .mtt file); the facade passes grammar.ParseTemplate.
	ParseTemplate func(file string, src []byte, mustache bool) (*ast.StringLit, error)
}

// Result is what a run produced.
type Result struct {
	// Document is the assembled document, newline runs of 3+ collapsed.
	Document string
	// Stdout holds the `both` effects (show, run output) and `output … to
	// stdout`, in order.
	Stdout string
	// Stderr holds log lines and `output … to stderr`.
	Stderr string
}

// panicError turns a panic recovered by Run into the run's error.
func (in *interp) panicError(r any) error {
	if ie, ok := r.(*value.InterruptedError); ok {
		if context.Cause(in.ctx) == errMemoryBudget {
			return in.overBudget(in.curPos)
		}
		return &Error{Kind: KindInterrupt, Pos: in.curPos, Message: ie.Error(), Hint: "the run was cancelled or hit its deadline", Err: ie}
	}
	if le, ok := r.(*value.LimitError); ok {
		// A writer without an error return (Text, ToJSON) hit a size
		// limit: the script's fault, not a bug.
		return &Error{Kind: KindLimit, Pos: in.curPos, Message: le.Message, Hint: le.Hint, Err: le}
	}
	p := &PanicError{Value: r, Stack: debug.Stack()}
	return &Error{
		Kind:    KindUnexpected,
		Pos:     in.curPos,
		Message: p.Error(),
		Hint:    "this is a bug in guardrun; please report it with the script that triggered it",
		Err:     p,
	}
}

// Run evaluates doc. On error the Result still holds what was produced up to
// the failure.
func Run(ctx context.Context, doc *ast.Document, opts Options) (res *Result, err error) {
	in := newInterp(ctx, opts)
	res = &Result{}
	defer func() {
		if r := recover(); r != nil {
			err = in.panicError(r)
		}
		in.close()
		res.Document = in.out.document()
		in.out.live.finish()
		res.Stdout = in.out.stdout.String()
		res.Stderr = in.out.stderr.String()
	}()
	if doc == nil {
		return res, nil
	}
	if len(opts.Vars) > 0 {
		names := make([]string, 0, len(opts.Vars))
		for n := range opts.Vars {
			names = append(names, n)
		}
		if err := CheckClashes(doc, "per-call variable", names); err != nil {
			return res, err
		}
		for _, n := range names {
			if _, ok := opts.Funcs.lookup(n); ok {
				return res, newError(KindVariable, ast.Pos{File: doc.File}, "rename the per-call variable or the Go function",
					"per-call variable @%s clashes with the Go function @%s", n, n)
			}
		}
		in.vars = opts.Vars
	}
	_, err = in.runTop(doc)
	return res, err
}

// runTop runs doc's top level as the main script, in the base directory
// and with the files' options the run's Options give (Run and Load both
// start here, so a loaded Machine sees what a run sees). It returns the
// main module's environment.
func (in *interp) runTop(doc *ast.Document) (*env, error) {
	opts := in.opts
	if !opts.NoBaseDir || opts.Dir != "" {
		in.files.base = baseDir(opts, doc.File)
	}
	in.files.stateDir = opts.StateDir
	in.files.writableProtected = opts.WritableProtected
	in.files.baseAsRoot = opts.BaseAsRoot
	mod := newModule(doc.File, scriptDir(doc.File, in.files.base))
	in.main = mod
	root := in.rootEnv(mod)
	err := in.execDocument(root, doc)
	if err != nil && context.Cause(in.ctx) == errMemoryBudget {
		// A command or JS block stopped by the heap watch reports an
		// interruption; say why.
		pos := in.curPos
		var e *Error
		if errors.As(err, &e) && e.Pos.Line > 0 {
			pos = e.Pos
		}
		err = in.overBudget(pos)
	}
	return root, err
}
