package guardrun

import (
	"context"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/hooks"
)

// RunOption configures one Run.
type RunOption func(*runConfig)

// runConfig keeps interp.Options out of the public signatures so the
// evaluator's options can change without breaking embedders.
type runConfig struct {
	opts interp.Options
	// vars are WithVars' per-call variables, converted by Run.
	vars map[string]any
}

// WithDir sets the base directory: imports, file loads and output files
// resolve against it, may not leave it, and commands run in it. The
// default is the script's directory for a CompileFile program; a program
// compiled from memory has none, and a run of it that touches a file or
// runs a command fails (never the process's working directory).
func WithDir(dir string) RunOption {
	return func(c *runConfig) { c.opts.Dir = dir }
}

// WithStateDir sets where the run keeps its private audit ledger, the
// record of labelled file writes that commands run in the base directory
// cannot forge. It must lie outside the base directory. The default is
// $XDG_STATE_HOME when it is an absolute path, else ~/.local/state, as
// for every guardrun state (internal/xdgdir).
func WithStateDir(dir string) RunOption {
	return func(c *runConfig) { c.opts.StateDir = dir }
}

// WithStdout streams to w, as they happen, the effects that go to stdout
// but not to the document (`output … to stdout`). Shown text is not
// streamed: it is part of Result.Document, and Result.Stdout holds the full
// stdout stream (shown text included) as mlld's harness defines it.
func WithStdout(w io.Writer) RunOption {
	return func(c *runConfig) { c.opts.Stdout = w }
}

// WithDocument streams the document to w as it is produced, in its final
// form: runs of blank lines collapsed to one, no leading newlines, and one
// final newline when the run ends. Result.Document holds it as well.
func WithDocument(w io.Writer) RunOption {
	return func(c *runConfig) { c.opts.Document = w }
}

// WithStderr streams the script's stderr effects (logs, guard warnings) to
// w as they happen, in addition to collecting them in Result.Stderr.
func WithStderr(w io.Writer) RunOption {
	return func(c *runConfig) { c.opts.Stderr = w }
}

// WithCommandTimeout bounds each command or code block (default 30s).
func WithCommandTimeout(d time.Duration) RunOption {
	return func(c *runConfig) { c.opts.CommandTimeout = d }
}

// WithMemoryLimit sets the run's memory budget in bytes (default 512 MiB;
// negative: none). One JavaScript block, and the whole run, may grow the
// heap by at most this much (measured on the process's heap, so other
// goroutines count too); the collected document and streams may reach
// half of it; one string the script builds (a template, a join, JSON
// text…) an eighth, and never more than 64 MiB. A breach ends the run with
// a positioned error ("memory limit exceeded: …"), never a crash. A run
// that lasts more than a few milliseconds samples the heap every 5 ms,
// through runtime/metrics when the JavaScript engine is linked, else
// through runtime.ReadMemStats (a brief stop of the world per sample).
func WithMemoryLimit(n int64) RunOption {
	return func(c *runConfig) { c.opts.MemoryLimit = n }
}

// WithOutputLimit caps one command's captured output in bytes (default 4 MiB).
func WithOutputLimit(n int) RunOption {
	return func(c *runConfig) { c.opts.OutputLimit = n }
}

// WithoutCode makes js/node/cmd/sh blocks and run fail with an error instead
// of executing, for untrusted scripts and fuzzing.
func WithoutCode() RunOption {
	return func(c *runConfig) { c.opts.DisableCode = true }
}

// WithWritableProtected lets scripts write the given paths (relative to the
// base directory, and everything below them) although they are protected.
// By default no write, with or without code, may touch version control
// metadata (.git, .hg, .svn, .bzr, .jj), hook directories (.husky,
// .githooks), .envrc, .vscode, or guardrun's state (.mlld, .guardrun):
// other programs execute what is there (git runs core.fsmonitor on `git
// status`), so a script could plant code for later.
func WithWritableProtected(paths ...string) RunOption {
	return func(c *runConfig) { c.opts.WritableProtected = append(c.opts.WritableProtected, paths...) }
}

// WithHooks registers evaluation hooks for the run: register is called
// once with the run's hook manager, after the built-in taint post-hook.
// Pre-hooks see every hooked operation (directives and user-defined exe
// calls, with their inputs and an OperationContext) before it runs and may
// deny it; post-hooks see its result. A hook that errors or panics denies
// the operation. For a loaded Machine, register is called once at Load
// and its hooks serve every decision: decisions of different sessions run
// at once, so the hooks must be safe for concurrent use.
func WithHooks(register func(*hooks.Manager)) RunOption {
	return func(c *runConfig) {
		prev := c.opts.RegisterHooks
		c.opts.RegisterHooks = func(m *hooks.Manager) {
			if prev != nil {
				prev(m)
			}
			register(m)
		}
	}
}

// Explanation says which policy rule or guard decided a denied operation
// and which labels made it fire; see WithExplain.
type Explanation = interp.Explanation

// WithExplain calls explain, as the run goes, for every decision that
// denies an operation (a guard's deny or retry, a policy's label-flow or
// capability denial) and for every policy denial a privileged guard
// overrides. `guardrun --explain` prints them. Each explanation's Lineage
// is the chain the triggering label took in this run, recorded by the
// interpreter only because explain is set (interp/lineage.go); when the
// recorder could not trace a label, the static label-flow analysis of the
// script (package check) fills it in, listing every path by which the
// label may have reached the operation. A loaded Machine calls explain
// from each decision's goroutine, concurrently when decisions are.
func WithExplain(explain func(Explanation)) RunOption {
	return func(c *runConfig) { c.opts.Explain = explain }
}

// WithCoverage calls cover, as the run goes, with the position of every
// guard evaluated and every when arm (guard rules included) taken;
// `guardrun test --coverage` builds its listing from it.
func WithCoverage(cover func(ast.Pos)) RunOption {
	return func(c *runConfig) { c.opts.Cover = cover }
}

// withLineage fills in the lineage of an explanation the run's recorder
// could not trace from the static label-flow analysis of the script
// (package check), run once, at the first such denial: runs without
// --explain, or without denials, pay nothing.
func withLineage(doc *ast.Document, explain func(Explanation)) func(Explanation) {
	var (
		once sync.Once
		ix   *check.LineageIndex
	)
	return func(x Explanation) {
		if len(x.Lineage) == 0 {
			once.Do(func() { ix = check.Lineage(doc) })
			x.Lineage = ix.At(x.Pos, x.Labels)
		}
		explain(x)
	}
}

// options builds the interpreter's options for one Run or Load of p:
// both take the same options the same way, so a loaded Machine parses,
// confines and records as a run does.
func (p *Program) options(opts []RunOption) (interp.Options, map[string]any) {
	cfg := runConfig{opts: interp.Options{Parse: parse, ParseTemplate: grammar.ParseTemplate}}
	for _, opt := range opts {
		opt(&cfg)
	}
	o := cfg.opts
	o.Funcs = p.funcs
	if o.Dir == "" {
		// A program compiled from memory has no base directory: it never
		// falls back to the process's working directory.
		o.Dir = p.dir
		o.NoBaseDir = p.dir == ""
	}
	if o.Explain != nil {
		o.Explain = withLineage(p.doc, o.Explain)
	}
	return o, cfg.vars
}

// Result is what one Run produced. On failure it still holds the output
// produced before the error, and Err describes the error.
type Result struct {
	// Document is the assembled document (show, prose, return values).
	Document string
	// Stdout is the full stdout stream as mlld's harness defines it: shown
	// text (which also goes into Document) and `output ... to stdout`
	// effects, in the order they happened.
	Stdout string
	// Stderr holds logs, `output ... to stderr` and guard warnings.
	Stderr string
	// Err is the run's error, the same value Run returns; nil on success.
	Err *Error
}

// Run evaluates the program with fresh interpreter state. The returned error,
// when non-nil, is the *Error also stored in Result.Err; the Result is never
// nil. Cancelling ctx interrupts the run.
func (p *Program) Run(ctx context.Context, opts ...RunOption) (res *Result, err error) {
	o, vars := p.options(opts)
	res = &Result{}
	if vars != nil {
		vs, verr := interp.PrepareVars(vars)
		if verr != nil {
			res.Err = usageError(p.name, verr.Error(), "pass WithVars names a script can write as @name and plain Go values (Labelled for labels)", verr)
			return res, res.Err
		}
		o.Vars = vs
	}
	var denials lastDenial
	if o.Explain != nil {
		o.Explain = denials.watch(o.Explain)
	}
	defer func() {
		if r := recover(); r != nil {
			res.Err = panicError(p.name, r)
			err = res.Err
		}
	}()
	testHookRun()
	if ctx == nil {
		ctx = context.Background()
	}
	out, rerr := interp.Run(ctx, p.doc, o)
	if out != nil {
		res.Document, res.Stdout, res.Stderr = out.Document, out.Stdout, out.Stderr
	}
	if rerr == nil {
		return res, nil
	}
	res.Err = newError(rerr, source{name: p.name, src: p.src, dir: o.Dir})
	denials.lineage(res.Err)
	return res, res.Err
}

// lastDenial keeps the last denial a run explained, so that the Denial
// of the error that ended the run carries its lineage.
type lastDenial struct {
	mu   sync.Mutex
	last *Explanation
}

// watch wraps explain to keep the denials it receives.
func (l *lastDenial) watch(explain func(Explanation)) func(Explanation) {
	return func(x Explanation) {
		if !x.Overridden() {
			l.mu.Lock()
			l.last = &x
			l.mu.Unlock()
		}
		explain(x)
	}
}

// lineage gives e's Denial the lineage of the explanation of the same
// denial, if the run explained it.
func (l *lastDenial) lineage(e *Error) {
	l.mu.Lock()
	x := l.last
	l.mu.Unlock()
	if e == nil || e.Denial == nil || x == nil || len(x.Lineage) == 0 {
		return
	}
	if x.Reason == e.Denial.Reason || x.Pos == e.Pos {
		e.Denial.Lineage = slices.Clone(x.Lineage)
	}
}
