package interp

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
)

// interp is one evaluation: a script's run, or one decision of a loaded
// Machine. A Machine's decisions each get their own interp (fork), which
// shares the prepared program's loaded parts (modules and their scopes,
// the guard registry, the policy set, tools, files, hook directives) and
// never writes them; what one evaluation changes (context, output, @mx
// stacks, guard scratch, exe call state, memos) is its own.
type interp struct {
	ctx  context.Context
	opts Options
	out  *output
	// sh is what the evaluations of one program share, synchronized:
	// the code engine, what entered its JS runtime, opened workspaces.
	sh *shared
	// budget is the run's memory budget.
	budget *budget
	// files confines file access to the base directory.
	files *files
	main  *module
	// rec records lineage for explanations; nil unless Explain is set.
	rec *lineageRec
	// curPos is the directive being run, for errors raised by a recovered
	// panic.
	curPos ast.Pos
	// depth counts nested exe calls; exes holds each exe's call state in
	// this evaluation, by exe.id (exeState).
	depth int
	exes  []*exeRun
	// modules caches imported modules by absolute path.
	modules map[string]*module
	// lastErrors is the error list of the most recent parallel group
	// (`@mx.errors`), each error assembled from members (value.Record).
	lastErrors []*value.Variable
	// hooks runs the pre- and post-hooks around hooked operations, bound
	// to this evaluation; ext are the embedder's (Options.RegisterHooks),
	// registered once per program. mx keeps the `@mx.op`, `@mx.pipe` and
	// `@mx.guard` stacks.
	hooks *hooks.Manager
	ext   *hooks.Manager
	mx    hooks.Context
	// guardReg holds the run's guards and guards evaluates them.
	guardReg *guard.Registry
	guards   *guard.Engine
	// policy is the run's composed policy; policyMx caches `@mx.policy`.
	policy   policy.Set
	policyMx *value.Object
	// runInputs maps the input of a pending `/run cmd` operation to its
	// prepared command, so the policy checks the command with its values
	// as data, not the input's text.
	runInputs map[*value.Variable]*preparedCommand
	// redact remembers labelled values that went into commands, to mask
	// them in policy errors and explanations.
	redact redactions
	// tools are the tool collections (`var tools`) in definition order,
	// mxTools the `@mx.tools` object a Machine sets per decision, and
	// external marks a Machine's run: ask and retry go to its caller
	// instead of becoming denials (machine.go).
	tools    []ToolCollection
	mxTools  func() *value.Object
	external bool
	// mxSession is the `@mx.session` object a Machine sets per decision
	// (Operation.Session), nil when the host keeps no session.
	mxSession func() *value.Variable
	// toolCalls are the names of the exes called so far (toolcalls.go).
	toolCalls []string
	// userHooks are the run's hook directives (userhooks.go).
	userHooks userHooks
	// workspace is the current decision's workspace (Operation.Workspace),
	// nil outside one (builtins_workspace.go).
	workspace *files
	// root is a Machine decision's root environment: the main module's
	// scope, in this evaluation (Machine.begin).
	root env
	// vars are this evaluation's per-call variables (Options.Vars for a
	// run, Operation.Vars for a decision), read after the main module's
	// scopes; never written into them.
	vars map[string]*value.Variable
}

// shared is what the evaluations of one program share: the code engine
// (safe for concurrent use) and its stderr, what entered its JS runtime,
// the workspaces opened by directory, the numbering of exes and the
// checked globs.
type shared struct {
	mu         sync.Mutex
	engine     *code.Engine
	stderr     *stderrSink
	js         jsChannel
	workspaces map[string]*files
	exes       atomic.Int64
	// globs are the @pathMatches patterns checked so far.
	globs globCache
}

// newInterp builds the state a document's top level runs in, with its
// memory budget (whose heap watch cancels in.ctx), hooks and guards. Run
// and Load both build theirs here.
func newInterp(ctx context.Context, opts Options) *interp {
	if ctx == nil {
		ctx = context.Background()
	}
	in := &interp{
		ctx:     ctx,
		opts:    opts,
		out:     &output{outW: opts.Stdout, errW: opts.Stderr, live: docStream{w: opts.Document}},
		modules: map[string]*module{},
		files:   &files{},
		sh:      &shared{},
	}
	in.budget, in.ctx = newBudget(ctx, opts.MemoryLimit)
	in.out.limit = in.budget.outputCap
	in.files.maxRead = in.budget.stringCap
	in.sh.stderr = &stderrSink{o: in.out}
	in.guardReg = guard.NewRegistry()
	in.ext = hooks.NewManager()
	if opts.RegisterHooks != nil {
		opts.RegisterHooks(in.ext)
	}
	in.installHooks()
	return in
}

// installHooks gives in its hook manager: the interpreter's hooks bound
// to in (taint, policy labels, hook directives, lineage, guards, with a
// guard engine of its own), then the embedder's.
func (in *interp) installHooks() {
	in.hooks = hooks.NewManager()
	in.hooks.RegisterPostAlways("taint", taintPostHook)
	in.hooks.RegisterPostAlways("policy-labels", in.policyPostHook)
	in.setupUserHooks()
	if in.opts.Explain != nil {
		in.rec = newLineageRec(in)
		in.rec.registerPre(in.hooks)
	}
	in.setupGuards()
	if in.rec != nil {
		in.rec.registerPost(in.hooks)
	}
	in.hooks.Append(in.ext)
}

// fork returns a new evaluation of the program p has loaded: p's
// prepared parts shared, its own per-evaluation state. p is not written.
func (p *interp) fork() *interp {
	f := &interp{
		opts:      p.opts,
		out:       &output{limit: p.out.limit},
		sh:        p.sh,
		budget:    p.budget,
		files:     p.files,
		main:      p.main,
		modules:   p.modules,
		guardReg:  p.guardReg,
		policy:    p.policy,
		policyMx:  p.policyMx,
		tools:     p.tools,
		external:  p.external,
		userHooks: userHooks{list: p.userHooks.list, names: p.userHooks.names},
		ext:       p.ext,
	}
	f.installHooks()
	return f
}

// reset readies an evaluation a decision ended cleanly for the next one:
// what the decision left (output, stacks, command inputs, redactions,
// tool calls, hook errors) is dropped; exe memos stay.
func (in *interp) reset() {
	in.ctx = nil
	in.mx.Reset()
	in.depth = 0
	in.lastErrors = nil
	clear(in.runInputs)
	in.redact = redactions{}
	in.toolCalls = in.toolCalls[:0]
	in.mxTools, in.mxSession, in.workspace = nil, nil, nil
	in.vars = nil
	in.curPos = ast.Pos{}
	u := &in.userHooks
	u.depth, u.errs, u.current = 0, nil, nil
	in.out.reset()
}

// close releases what the run opened.
func (in *interp) close() {
	in.files.close()
	in.sh.mu.Lock()
	for _, w := range in.sh.workspaces {
		w.close()
	}
	in.sh.workspaces = nil
	in.sh.mu.Unlock()
	in.budget.stop()
}

// module is one script file: its scope, directory and exports.
type module struct {
	file      string
	dir       string
	root      *scope
	exports   []string
	exportAll bool
	hasExport bool
	// imported names the module's own imports.
	imported map[string]bool
	// guards are the module's guards in declaration order, those it
	// defines and those it imported; guardNames indexes the named ones.
	// Only the main script's are active at once: an imported module's
	// come in when an importer asks for them (imports.go).
	guards     []*guard.Guard
	guardNames map[string]*guard.Guard
	// doc is the module's parsed document (policy errors point into its
	// object literals).
	doc *ast.Document
}

func newModule(file, dir string) *module {
	if dir == "" && file != "" {
		dir = filepath.Dir(file)
	}
	return &module{file: file, dir: dir, root: newScope(nil)}
}

// scope is one level of variable bindings.
type scope struct {
	vars   map[string]*value.Variable
	parent *scope
	// frozen marks a scope of the loaded program (a module's top level,
	// a scope an exe closed over): Load sets it once before the first
	// decision, and from then on no evaluation may bind in it, since
	// every decision reads it at once (freeze).
	frozen bool
}

// set binds name in s. Binding in a frozen scope is a bug in the
// interpreter, never the script's (the statements a script can write
// check first and report frozenError): it panics, and a Machine's
// decision turns the panic into a denial.
func (s *scope) set(name string, v *value.Variable) {
	if s.frozen {
		panic("interp: binding @" + name + " in a frozen scope of the loaded program")
	}
	s.vars[name] = v
}

// frozenError is the error of a statement that would change a variable
// of the loaded program from inside a decision.
func frozenError(name string, pos ast.Pos) error {
	return newError(KindVariable, pos,
		"a decision changes only what it binds itself (a block's let); keep state across decisions in the host (the agent's session), not in module variables",
		"cannot change @%s: module variables are frozen after load", name)
}

func newScope(parent *scope) *scope {
	return &scope{vars: map[string]*value.Variable{}, parent: parent}
}

func (s *scope) lookup(name string) (*value.Variable, *scope) {
	for c := s; c != nil; c = c.parent {
		if v, ok := c.vars[name]; ok {
			return v, c
		}
	}
	return nil, nil
}

// codeParam is a parameter bound as a language variable in js/sh blocks.
type codeParam struct {
	name string
	val  *value.Variable
}

// env is the evaluation context of one expression or statement.
type env struct {
	in  *interp
	sc  *scope
	mod *module
	// pipe is the ambient pipeline frame (`@p`, `@mx.try`…), nil outside
	// pipelines.
	pipe *pipeFrame
	// params are the innermost exe call's parameters, bound by name in code
	// blocks.
	params []codeParam
	// lenient makes unknown variables undefined instead of an error (when
	// conditions).
	lenient bool
	// interpolated, when set, collects the values a template interpolates
	// (the inputs of `show` of a template, SPEC §5.5).
	interpolated *[]*value.Variable
	// strictRefs makes a reference to a variable that does not exist an
	// error even in a condition. Guard bodies set it: a mistyped name must
	// deny rather than silently switch a rule off. `@p` / `@pipeline`
	// outside a pipeline stay undefined, as in any condition.
	strictRefs bool
	// denied is set while a denied handler runs: `denied` is true.
	denied bool
	// override is the `with { guards: … }` setting of the operation being
	// evaluated (SPEC §5.14); nil when none.
	override *guard.Override
	// parIter is the scope of the current iteration of a parallel for:
	// variables declared outside it may not be written (see
	// checkParallelWrite).
	parIter *scope
	// quietRun makes a run directive return its output without printing
	// it (the action of a for expression).
	quietRun bool
	// iter is the innermost for, loop or while iteration being run
	// (`@mx.for`, `@mx.loop`, `@mx.while`); nil outside them. As in mlld
	// it is the caller's: an exe called from a loop body sees it.
	iter *iterFrame
}

// iterFrame is one iteration of a for, loop or while, for @mx.
type iterFrame struct {
	kind   string // "for", "loop" or "while"
	index  int    // for: the 0-based position; loop, while: the 1-based iteration
	total  int    // for: the element count; loop, while: the limit (-1: none)
	key    any    // for: the element's object key (nil for an array: the index)
	par    bool   // for: a parallel loop
	parent *iterFrame
}

// object is the frame as @mx shows it.
func (f *iterFrame) object() *value.Object {
	o := value.NewObject()
	if f.kind == "for" {
		o.Set("index", float64(f.index))
		o.Set("total", float64(f.total))
		if f.key != nil {
			o.Set("key", f.key)
		} else {
			o.Set("key", float64(f.index))
		}
		o.Set("parallel", f.par)
		return o
	}
	o.Set("iteration", float64(f.index))
	if f.total < 0 {
		o.Set("limit", nil)
	} else {
		o.Set("limit", float64(f.total))
	}
	o.Set("active", true)
	return o
}

// iterMx is `@mx.for`, `@mx.loop` or `@mx.while`: the innermost frame of
// that kind.
func (e *env) iterMx(kind string) (*value.Variable, bool) {
	for f := e.iter; f != nil; f = f.parent {
		if f.kind == kind {
			return value.New(f.object()), true
		}
	}
	return nil, false
}

// HooksEnv marks an env as a call's hooks.Env.
func (*env) HooksEnv() {}

func (in *interp) rootEnv(mod *module) *env {
	return &env{in: in, sc: mod.root, mod: mod}
}

// child returns an env with a new nested scope.
func (e *env) child() *env {
	c := *e
	c.sc = newScope(e.sc)
	return &c
}

// with returns a copy of e with lenient set as given.
func (e *env) withLenient(l bool) *env {
	if e.lenient == l {
		return e
	}
	c := *e
	c.lenient = l
	return &c
}

func (e *env) withPipe(p *pipeFrame) *env {
	c := *e
	c.pipe = p
	return &c
}

func (e *env) lookup(name string) (*value.Variable, bool) {
	if name == "mx" {
		// @mx is reserved (reserved.go): no scope can hold it, so the
		// ambient context is what every reader, guards included, sees.
		return e.ambient(name)
	}
	if v, _ := e.sc.lookup(name); v != nil {
		if e.in != nil && e.in.rec != nil {
			e.in.rec.read(v)
		}
		return v, true
	}
	if in := e.in; in != nil {
		// The embedder's names come after every scope: the main script's
		// per-call variables of this evaluation, then the Go functions.
		if in.vars != nil && e.mod == in.main {
			if v, ok := in.vars[name]; ok {
				if in.rec != nil {
					in.rec.read(v)
				}
				return v, true
			}
		}
		if v, ok := in.opts.Funcs.lookup(name); ok {
			return v, true
		}
	}
	return e.ambient(name)
}

// ambient resolves the context variables that are not in any scope.
func (e *env) ambient(name string) (*value.Variable, bool) {
	switch name {
	case "mx":
		return e.mxObject(), true
	case "p", "pipeline":
		if e.pipe != nil {
			return e.pipe.contextObject(), true
		}
	}
	return nil, false
}
