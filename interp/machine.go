package interp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// A Machine is a document whose top level (tools, policies, guards, helper
// exes) ran once, kept to decide operations that do not come from the
// document: the agent engine turns each event of an agent session into one
// operation and asks the Machine's guards and policies about it.
//
// It is the seam between the interpreter and the agent engine: the agent
// package builds OperationContexts and input Variables and reads Verdicts;
// it never sees the interpreter's environment.
//
// A Machine is a prepared program: what its top level left (module
// scopes, guards with their plans, the policy set, tools) is shared by
// every decision and never written by one. Each decision runs in an
// evaluation of its own (context, output, @mx stacks, guard scratch, exe
// call state), taken from a pool, so Before and After are safe for
// concurrent use: decisions of different sessions run in parallel.
type Machine struct {
	in  *interp
	env *env
	// evals keeps the evaluations finished decisions left, ready for the
	// next (building one registers hooks and a guard engine).
	evals sync.Pool
}

// ToolCall is a tool call an embedder asks a Machine about: the tool's
// name, the labels its collection declares, and the names of its inputs
// (Operation.Inputs in the same order). Command is the command line of a
// command tool (labels include "cmd"), "" for any other.
type ToolCall struct {
	Name    string
	Labels  []string
	Params  []string
	Command string
	// Parsed, when set, are Command's operation labels already read
	// (policy.CommandFacts.OpLabels): Operation does not parse it again.
	Parsed *policy.OpLabels
}

// Operation describes the call as the guards and policies see it: an exe
// call named after the tool, with its labels and parameters. A command
// tool's line is checked as a script's `/run` is: an operation label per
// simple command it runs (op:cmd:git:push…); a line deeper than the
// policy's parse is Unchecked.
func (t ToolCall) Operation() *hooks.OperationContext {
	op := &hooks.OperationContext{Type: "exe", Name: t.Name, Labels: t.Labels, Params: t.Params}
	if slices.Contains(t.Labels, "cmd") {
		op.Command = t.Command
		if p := t.Parsed; p != nil {
			op.OpLabels, op.Commands, op.Unchecked = slices.Clone(p.Union), p.PerCommand, !p.Checked
			return op
		}
		var ok bool
		op.OpLabels, op.Commands, ok = policy.CommandLineOpLabels(t.Command)
		op.Unchecked = !ok
	}
	return op
}

// ToolCollection is one `var tools @x = {…}` collection, in definition
// order.
type ToolCollection struct {
	Name  string
	Pos   ast.Pos
	Value *value.Object
}

// Load evaluates doc's top level once and returns the Machine that
// decides operations against the state it left. It starts as Run does
// (runTop: the same base directory, state directory and file options);
// the memory budget's heap watch covers the top level only, so a loaded
// Machine keeps no goroutine. Ask and retry decisions are the caller's
// to handle (Verdict), not denials.
func Load(ctx context.Context, doc *ast.Document, opts Options) (m *Machine, err error) {
	in := newInterp(ctx, opts)
	in.external = true
	defer func() {
		if r := recover(); r != nil {
			err = in.panicError(r)
		}
		if err != nil {
			in.close()
			m = nil
		}
	}()
	if doc == nil {
		return nil, newError(KindUnexpected, ast.Pos{}, "", "no document to load")
	}
	root, err := in.runTop(doc)
	if err != nil {
		return nil, unansweredRetry(err, in.curPos)
	}
	// The heap watch covers the top level only: a loaded Machine keeps no
	// goroutine, and each decision runs under its caller's context.
	in.budget.stop()
	in.ctx = context.Background()
	// What decisions read of the policy is worked out now, not by the
	// first decision (decisions share it); their commands' stderr goes
	// nowhere (decisions write no output).
	in.policyObject()
	in.sh.stderr.detach()
	in.freeze()
	m = &Machine{in: in, env: root}
	m.evals.New = func() any { return in.fork() }
	return m, nil
}

// freeze marks the loaded program's scopes frozen: every module's top
// level and the scopes its exes closed over. Decisions read them all at
// once; a statement that would bind in one fails with frozenError, so no
// decision writes what another reads (docs/embedding.md "The loaded
// program is frozen").
func (in *interp) freeze() {
	mods := []*module{in.main}
	for _, m := range in.modules {
		if m != nil {
			mods = append(mods, m)
		}
	}
	seen := map[any]bool{}
	for _, m := range mods {
		freezeScope(m.root, seen)
	}
}

// freezeScope freezes s, its parents and the scopes of the exes its
// variables hold (seen stops the walk at what it already froze).
func freezeScope(s *scope, seen map[any]bool) {
	for ; s != nil && !seen[s]; s = s.parent {
		seen[s] = true
		s.frozen = true
		for _, v := range s.vars {
			if v != nil {
				freezeData(v.Data, seen)
			}
		}
	}
}

func freezeData(d any, seen map[any]bool) {
	switch x := d.(type) {
	case *exe:
		if !seen[x] {
			seen[x] = true
			freezeScope(x.sc, seen)
		}
	case *value.Object:
		if !seen[x] {
			seen[x] = true
			for _, k := range x.Keys {
				freezeData(x.Values[k], seen)
			}
		}
	case []any:
		for _, e := range x {
			freezeData(e, seen)
		}
	case *value.Variable:
		if x != nil {
			freezeData(x.Data, seen)
		}
	}
}

// HasPolicyRule reports whether the composed policy enables a built-in
// rule (`session-taint-strict` switches the agent's session taint mode).
func (m *Machine) HasPolicyRule(name string) bool { return m.in.policy.HasRule(name) }

// Close releases what the Machine opened (files, workspaces, the code
// engine's runtime). No decision may run during or after Close.
func (m *Machine) Close() { m.in.close() }

// Tools returns the document's tool collections in definition order.
func (m *Machine) Tools() []ToolCollection { return m.in.tools }

// Var returns the document's top-level variable name (without the @), as
// its top level left it: settings a host reads from the policy, such as
// the agent engine's price table.
func (m *Machine) Var(name string) (*value.Variable, bool) { return m.env.lookup(name) }

// Output returns what the top level wrote (document, stderr) while it
// loaded; decisions write nothing there.
func (m *Machine) Output() (document, stderr string) {
	return m.in.out.document(), m.in.out.stderr.String()
}

// Operation is one operation for a Machine to decide.
type Operation struct {
	// Op describes the operation (type, name, labels, operation labels,
	// command, `params` metadata naming the inputs for `@mx.args`).
	Op *hooks.OperationContext
	// Inputs are the operation's inputs, one per parameter name.
	Inputs []*value.Variable
	// Try is the attempt number guards see as `@mx.guard.try` (1 when 0).
	Try int
	// Tools, when set, gives `@mx.tools` while the operation is decided;
	// it is called only when a guard reads it.
	Tools func() *value.Object
	// Session, when set, gives `@mx.session` (the agent session's
	// account: model calls, tokens, cost, age; its latest outputs, whose
	// members carry their labels) while the operation is decided; it is
	// called only when a guard reads it.
	Session func() *value.Variable
	// Workspace, when set, is the directory the workspace builtins
	// (@readWorkspaceFile, @pathMatches) are confined to while the
	// operation is decided: the project the agent works in, which need
	// not be the policy's base directory (a user policy lives in its
	// config directory). Empty: the base directory.
	Workspace string
	// Vars are per-call variables for this decision (as PrepareVars
	// takes them: Go values, or Var with labels): the main script's
	// guards and exes read them as `@name` while the operation is
	// decided. They live in the decision's evaluation, never in the
	// loaded state, so concurrent decisions each see their own. A name
	// the script's top level defines, or that is not allowed, denies the
	// operation (class error) with the reason.
	Vars map[string]any
}

// Class says what kind of rule decided a Verdict.
type Class string

// Classes of decisions: what decided. The facade (guardrun.Class) and
// the agent engine (agent.Class) name these; the hook, approval and
// protected classes are theirs to give (a Machine decides none).
const (
	ClassNone Class = ""
	// ClassGuard: a guard's deliberate deny, retry or ask.
	ClassGuard Class = "guard"
	// ClassPolicy: a policy's label-flow rule.
	ClassPolicy Class = "policy"
	// ClassCapability: a policy's capability rule (commands, languages,
	// `deny` lists).
	ClassCapability Class = "capability"
	// ClassHook: an embedder's Go hook (WithHooks) or an agent's hook.
	ClassHook Class = "hook"
	// ClassApproval: an ask no human approved (agents).
	ClassApproval Class = "approval"
	// ClassProtected: an agent's call that would write guardrun's own
	// files or an agent's hook settings.
	ClassProtected Class = "protected"
	// ClassError: a failure while deciding (a guard that raised an
	// error, a hook that failed, a panic, an engine or store failure):
	// the operation is denied, fail closed.
	ClassError Class = "error"
)

// Verdict is a Machine's decision on one operation phase.
type Verdict struct {
	// Action is guard.Allow, Deny, Retry or Ask.
	Action guard.Action
	// Reason explains a deny (or is the question of an ask); Hint is a
	// retry's hint.
	Reason, Hint string
	Class        Class
	// Guard names the deciding guard ("@name" or its filter); Rule the
	// deciding policy rule ("defaults.rules.no-secret-exfil"); Hook the
	// deciding embedder's hook.
	Guard, Rule, Hook string
	// Retryable says whether a changed operation may pass, as
	// guardrun.Denial.Retryable: a guard's denial and a retry are, a
	// policy rule's, a failure's and a hook's deny are not (unless the
	// hook says so: hooks.Decision.Retryable).
	Retryable bool
	// Label is the data label that made a policy rule fire.
	Label string
	// Inputs are the inputs as the guards left them (allow @value), nil
	// when unchanged; Output the after phase's output (nil before).
	Inputs []*value.Variable
	Output *value.Variable
	// Notes are the guards' with-clause `context` and `message` texts;
	// Warnings their `warning` texts.
	Notes    []guard.Note
	Warnings []string
}

// Phase is the side of an operation a Machine decides.
type Phase int

// Phases.
const (
	// BeforePhase: the operation has not run yet (Machine.Before).
	BeforePhase Phase = iota
	// AfterPhase: it ran, and its output is decided (Machine.After).
	AfterPhase
)

// Eval decides one phase of an operation and returns the decision as a
// value, as cel's Program.Eval does: BeforePhase is Before(ctx, o),
// AfterPhase is After(ctx, o, output). An ask, a retry and a failure are
// Verdicts (Action Ask or Retry; Deny with ClassError for a failure),
// never Go errors. Any other phase is denied, class error.
func (m *Machine) Eval(ctx context.Context, phase Phase, o Operation, output *value.Variable) Verdict {
	switch phase {
	case BeforePhase:
		return m.Before(ctx, o)
	case AfterPhase:
		return m.After(ctx, o, output)
	}
	return Verdict{Action: guard.Deny, Class: ClassError, Reason: fmt.Sprintf("unknown decision phase %d", int(phase))}
}

// Before decides an operation before it runs: policy (capabilities and
// label flow) and the before-guards, as for a script's exe call.
func (m *Machine) Before(ctx context.Context, o Operation) (v Verdict) {
	in, env := m.begin(ctx, o)
	defer m.end(in, &v)
	if err := in.ctx.Err(); err != nil {
		return Verdict{Action: guard.Deny, Class: ClassError, Reason: "deadline passed before the decision: " + err.Error()}
	}
	if err := m.setVars(in, o.Vars); err != nil {
		return Verdict{Action: guard.Deny, Class: ClassError, Reason: "per-call variables: " + err.Error()}
	}
	if in.policy.Active() && o.Op.Command != "" && hasLabel(o.Op.OpLabels, "op:cmd") {
		// A command tool shows what it will run: capabilities apply to
		// the exact command line, as at a `/run`.
		if d := in.policy.CheckCommand(o.Op.Command); d != nil {
			in.explainPolicy(o.Op, d, o.Inputs)
			return policyVerdict(d)
		}
	}
	var gd guardNotes
	call := m.call(env, o, &gd)
	in.mx.Op.Push(call.Op)
	d := in.hooks.RunPre(call)
	in.mx.Op.Pop()
	v = preVerdict(d, gd)
	if v.Action == guard.Allow || v.Action == guard.Ask {
		v.Inputs = d.Inputs
	}
	if gd.relabelled != "" && v.Action == guard.Allow && v.Inputs != nil {
		// Only `allow @value` approves a rewritten call: a label change
		// that also changed the value is shown to the human.
		v.Action, v.Class, v.Guard = guard.Ask, ClassGuard, gd.relabelled
		v.Reason = "guard " + gd.relabelled + " changed the call with a label change (only allow @value rewrites a call); run the changed call?"
	}
	return v
}

// After decides an operation's output: the after-guards and the
// post-hooks (taint), as for a script's exe call. The Verdict's Output is
// the output they leave, with its labels.
func (m *Machine) After(ctx context.Context, o Operation, output *value.Variable) (v Verdict) {
	in, env := m.begin(ctx, o)
	defer m.end(in, &v)
	if err := in.ctx.Err(); err != nil {
		return Verdict{Action: guard.Deny, Class: ClassError, Reason: "deadline passed before the decision: " + err.Error()}
	}
	if err := m.setVars(in, o.Vars); err != nil {
		return Verdict{Action: guard.Deny, Class: ClassError, Reason: "per-call variables: " + err.Error()}
	}
	var gd guardNotes
	call := m.call(env, o, &gd)
	in.mx.Op.Push(call.Op)
	out, err := in.hooks.RunPost(call, output)
	in.mx.Op.Pop()
	if err != nil {
		var ge *guard.Error
		if sig := asRetrySignal(err); sig != nil {
			ge = sig.Err
		} else {
			ge = asGuardError(err)
		}
		if ge == nil {
			return Verdict{Action: guard.Deny, Class: ClassError, Reason: "after-phase hook failed: " + err.Error()}
		}
		return verdictOf(false, ge, ge.Reason, gd)
	}
	v = verdictOf(true, nil, "", gd)
	v.Output = out
	return v
}

// guardNotes are what a Verdict keeps of the guards' decision.
type guardNotes struct {
	notes    []guard.Note
	warnings []string
	// relabelled names a guard whose label change (not allow @value)
	// changed an input's value.
	relabelled string
}

// call builds the hooked call of o in the decision's root environment
// env; gd receives the notes and warnings of the phase that runs.
func (m *Machine) call(env *env, o Operation, gd *guardNotes) *hooks.Call {
	gc := &guardCall{opts: guard.Options{External: true, Attempt: o.Try}}
	gc.record = func(_ string, _ *hooks.OperationContext, _ taint.Descriptor, d guard.Decision) {
		gd.notes, gd.warnings = d.Notes, d.Warnings
		for _, r := range d.Results {
			if r.Action == guard.Allow && r.Relabel && r.Replacement != nil {
				gd.relabelled = r.Guard.Label()
			}
		}
	}
	return &hooks.Call{Inputs: o.Inputs, Env: env, Op: o.Op, Guards: gc}
}

// begin takes an evaluation for one decision: its interp, set up for o
// under ctx, and its root environment (the main module's scope, which
// the decision reads and never writes).
func (m *Machine) begin(ctx context.Context, o Operation) (*interp, *env) {
	if ctx == nil {
		ctx = context.Background()
	}
	in := m.evals.Get().(*interp)
	in.ctx = ctx
	in.mxTools = o.Tools
	in.mxSession = o.Session
	in.workspace = in.workspaceFiles(o.Workspace)
	in.root = *m.env
	in.root.in = in
	return in, &in.root
}

// setVars gives the decision's evaluation in its per-call variables:
// converted, and checked against the names the loaded script and the Go
// functions hold.
func (m *Machine) setVars(in *interp, vars map[string]any) error {
	if len(vars) == 0 {
		return nil
	}
	vs, err := PrepareVars(vars)
	if err != nil {
		return err
	}
	for name := range vs {
		if _, ok := m.env.sc.vars[name]; ok {
			return fmt.Errorf("per-call variable @%s clashes with the policy's own @%s; rename one", name, name)
		}
		if _, ok := in.opts.Funcs.lookup(name); ok {
			return fmt.Errorf("per-call variable @%s clashes with the Go function @%s; rename one", name, name)
		}
	}
	in.vars = vs
	return nil
}

// end turns a panic while deciding into a denial (fail closed) and gives
// the evaluation back for the next decision once it is clean: what a
// decision wrote (guard warnings reach the Verdict, not a document nobody
// reads) is dropped. An evaluation a panic left is dropped whole.
func (m *Machine) end(in *interp, v *Verdict) {
	if r := recover(); r != nil {
		*v = Verdict{Action: guard.Deny, Class: ClassError, Reason: fmt.Sprintf("internal error while deciding: %v", r)}
		return
	}
	in.reset()
	m.evals.Put(in)
}

// preVerdict reads the pre-hooks' decision: the guards' (whose error
// verdictOf reads), or an embedder's hook's, which is named, of class
// hook (error when it failed), and final unless it says a changed
// operation may pass (hooks.Decision.Retryable).
func preVerdict(d hooks.Decision, gd guardNotes) Verdict {
	var ge *guard.Error
	var ie *Error
	if d.Action == hooks.Continue || errors.As(d.Err, &ge) || errors.As(d.Err, &ie) {
		return verdictOf(d.Action == hooks.Continue, d.Err, d.Reason, gd)
	}
	v := Verdict{Action: guard.Deny, Reason: d.Reason, Hook: d.Hook, Class: ClassHook, Notes: gd.notes, Warnings: gd.warnings}
	switch d.Action {
	case hooks.Deny:
		v.Retryable = d.Retryable
	case hooks.Retry:
		v.Action, v.Hint, v.Retryable = guard.Retry, d.Hint, true
	case hooks.Abort:
		v.Class = ClassError
		if v.Reason == "" && d.Err != nil {
			v.Reason = d.Err.Error()
		}
	}
	if v.Reason == "" {
		v.Reason = "denied by hook " + d.Hook
	}
	return v
}

// verdictOf reads a phase's outcome: ok when nothing stopped it, else
// the stopping error; gd is what the guards noted.
func verdictOf(ok bool, err error, reason string, gd guardNotes) Verdict {
	var v Verdict
	v.Notes, v.Warnings = gd.notes, gd.warnings
	if ok {
		return v
	}
	v.Action, v.Reason, v.Class = guard.Deny, reason, ClassError
	switch e := err.(type) {
	case *guard.Error:
		v.Reason = e.Reason
		if e.Policy != nil {
			pv := policyVerdict(e.Policy)
			pv.Notes, pv.Warnings = v.Notes, v.Warnings
			return pv
		}
		v.Class, v.Retryable = ClassGuard, true
		if e.Cause != nil {
			v.Class, v.Retryable = ClassError, false
		}
		if e.Guard != nil {
			v.Guard = e.Guard.Label()
		}
		switch e.Decision {
		case guard.Retry:
			v.Action, v.Hint = guard.Retry, e.RetryHint
		case guard.Ask:
			v.Action = guard.Ask
		}
	case *Error:
		if d, ok := e.Err.(*policy.Denial); ok {
			pv := policyVerdict(d)
			pv.Notes, pv.Warnings = v.Notes, v.Warnings
			return pv
		}
		v.Reason = e.Message
	}
	if v.Reason == "" {
		v.Reason = "denied by a hook"
	}
	return v
}

func policyVerdict(d *policy.Denial) Verdict {
	v := Verdict{Action: guard.Deny, Reason: d.Reason, Rule: d.Rule, Label: d.Label, Class: ClassPolicy}
	if d.Capability {
		v.Class = ClassCapability
	}
	return v
}

// addToolCollection checks and records a `var tools` collection: an
// object whose entries are objects with optional `labels` and `returns`
// string lists (AGENT.md §3), and `fields`, an object of label lists by
// output field name.
func (in *interp) addToolCollection(d *ast.VarDirective, v *value.Variable) error {
	o, ok := v.Data.(*value.Object)
	if !ok {
		return newError(KindUnexpected, d.Pos, "write var tools @name = { ToolName: { labels: [\"…\"] } }",
			"tool collection @%s must be an object of tools", d.Name)
	}
	for _, k := range o.Keys {
		t, ok := o.Values[k].(*value.Object)
		if !ok {
			return newError(KindUnexpected, d.Pos, "give each tool an object: "+k+": { labels: [\"…\"] }",
				"tool %q in @%s must be an object", k, d.Name)
		}
		for _, f := range t.Keys {
			switch f {
			case "labels", "returns":
				arr, ok := t.Values[f].([]any)
				if !ok {
					return newError(KindUnexpected, d.Pos, "write "+f+": [\"label\", …]", "tool %q in @%s: %s must be a list of labels", k, d.Name, f)
				}
				for _, l := range arr {
					if _, ok := l.(string); !ok {
						return newError(KindUnexpected, d.Pos, "write "+f+": [\"label\", …]", "tool %q in @%s: %s must hold only strings", k, d.Name, f)
					}
				}
			case "fields":
				// Labels of the values in named fields of the output
				// (agent engines): { body: ["untrusted"] }.
				fo, ok := t.Values[f].(*value.Object)
				if !ok {
					return newError(KindUnexpected, d.Pos, "write fields: { body: [\"label\", …] }", "tool %q in @%s: fields must be an object of label lists", k, d.Name)
				}
				for _, fk := range fo.Keys {
					arr, ok := fo.Values[fk].([]any)
					if !ok {
						return newError(KindUnexpected, d.Pos, "write fields: { "+fk+": [\"label\", …] }", "tool %q in @%s: fields.%s must be a list of labels", k, d.Name, fk)
					}
					for _, l := range arr {
						if _, ok := l.(string); !ok {
							return newError(KindUnexpected, d.Pos, "write fields: { "+fk+": [\"label\", …] }", "tool %q in @%s: fields.%s must hold only strings", k, d.Name, fk)
						}
					}
				}
			case "description", "mlld", "source":
			default:
				return newError(KindUnexpected, d.Pos, "a tool takes labels, returns, fields and description",
					"tool %q in @%s: unknown key %q", k, d.Name, f)
			}
		}
	}
	in.tools = append(in.tools, ToolCollection{Name: d.Name, Pos: d.Pos, Value: o})
	return nil
}
