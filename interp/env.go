package interp

import (
	"context"
	"path/filepath"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
)

// interp holds the state of one run.
type interp struct {
	ctx    context.Context
	opts   Options
	out    *output
	engine *code.Engine
	// js is what entered the engine's shared JS runtime.
	js jsChannel
	// budget is the run's memory budget.
	budget *budget
	// files confines file access to the base directory.
	files files
	main  *module
	// rec records lineage for explanations; nil unless Explain is set.
	rec *lineageRec
	// curPos is the directive being run, for errors raised by a recovered
	// panic.
	curPos ast.Pos
	// depth counts nested exe calls (exe.active counts per exe).
	depth int
	// modules caches imported modules by absolute path.
	modules map[string]*module
	// lastErrors is the error list of the most recent parallel group
	// (`@mx.errors`), each error assembled from members (value.Record).
	lastErrors []*value.Variable
	// hooks runs the pre- and post-hooks around hooked operations; mx keeps
	// the `@mx.op`, `@mx.pipe` and `@mx.guard` stacks.
	hooks *hooks.Manager
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
	mxSession func() *value.Object
	// toolCalls are the names of the exes called so far (toolcalls.go).
	toolCalls []string
	// userHooks are the run's hook directives (userhooks.go).
	userHooks userHooks
	// workspace is the current decision's workspace (Operation.Workspace),
	// nil outside one; workspaces keeps each one opened, by directory
	// (builtins_workspace.go).
	workspace  *files
	workspaces map[string]*files
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
	}
	in.budget, in.ctx = newBudget(ctx, opts.MemoryLimit)
	in.out.limit = in.budget.outputCap
	in.files.maxRead = in.budget.stringCap
	in.hooks = hooks.NewManager()
	in.hooks.RegisterPostAlways("taint", taintPostHook)
	in.hooks.RegisterPostAlways("policy-labels", in.policyPostHook)
	in.setupUserHooks()
	if opts.Explain != nil {
		in.rec = newLineageRec(in)
		in.rec.registerPre(in.hooks)
	}
	in.setupGuards()
	if in.rec != nil {
		in.rec.registerPost(in.hooks)
	}
	if opts.RegisterHooks != nil {
		opts.RegisterHooks(in.hooks)
	}
	return in
}

// close releases what the run opened.
func (in *interp) close() {
	in.files.close()
	for _, w := range in.workspaces {
		w.close()
	}
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
}

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
