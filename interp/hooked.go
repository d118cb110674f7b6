package interp

import (
	"slices"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
)

// KindDenied is the error kind of an operation a pre-hook refused.
const KindDenied ErrorKind = "OperationDenied"

// hooked runs one hooked operation (SPEC §5.5: a directive or a
// user-defined exe call): the pre-hooks see op and its inputs, body runs
// with the inputs the pre-hooks left (a transform may replace them), and
// the post-hooks see the result. `@mx.op` describes op for the whole
// extent, body included.
func (in *interp) hooked(e *env, node ast.Node, op *hooks.OperationContext, inputs []*value.Variable,
	body func(inputs []*value.Variable) (*value.Variable, error)) (*value.Variable, error) {
	return in.hookedWith(e, node, op, inputs, nil, body)
}

// hookedWith is hooked with guard settings for the operation (pipeline
// stages, effects); gc nil means the defaults plus the env's override.
func (in *interp) hookedWith(e *env, node ast.Node, op *hooks.OperationContext, inputs []*value.Variable, gc *guardCall,
	body func(inputs []*value.Variable) (*value.Variable, error)) (*value.Variable, error) {
	return in.runHooked(e, node, &hooks.Call{Node: node, Inputs: inputs, Env: e, Op: op}, gc, body)
}

// runHooked is hookedWith for a caller that provides the Call itself:
// exe calls allocate it together with the rest of their call frame
// (exeFrame). call must describe node, the inputs, e and the operation.
func (in *interp) runHooked(e *env, node ast.Node, call *hooks.Call, gc *guardCall,
	body func(inputs []*value.Variable) (*value.Variable, error)) (*value.Variable, error) {
	op := call.Op
	in.mx.Op.Push(op)
	defer in.mx.Op.Pop()
	if gc == nil && e != nil && e.override != nil {
		gc = &guardCall{}
	}
	if gc != nil && e != nil && e.override != nil && gc.opts.Override == nil {
		gc.opts.Override = e.override
	}
	if gc != nil {
		in.announceOverride(gc.opts.Override)
		call.Guards = gc
	}
	var pos ast.Pos
	if node != nil {
		pos = node.Position()
	}
	if in.hooks.HasPre() {
		var d hooks.Decision
		if in.hooks.InHook() {
			// Operations a guard's own helpers cause are not guarded (the
			// guard hook is exclusive), but the policy still applies, and
			// so do the embedder's hooks: a guard must not be a way around
			// either. No privileged guard can lift a denial here.
			d = in.policyInHook(call)
		}
		if !d.Stops() {
			d = in.hooks.RunPre(call)
		}
		if d.Stops() {
			if pe, ok := d.Err.(*Error); ok && pe.Kind == KindPolicy {
				if pe.Pos.Line == 0 {
					pe.Pos = pos
				}
				return nil, pe
			}
			if ge, ok := d.Err.(*guard.Error); ok {
				if d.Action == hooks.Retry {
					return nil, &guard.RetrySignal{Err: ge, From: guardSaw(call.Inputs, nil)}
				}
				return nil, guardFailure(ge, pos)
			}
			return nil, in.deniedError(node, call, d)
		}
		if d.Inputs != nil {
			call.Inputs = d.Inputs
		}
	}
	// Only the body may vouch for its result's descriptor (preTaint).
	call.Tainted = nil
	res, err := body(call.Inputs)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = undefined()
	}
	out, err := in.hooks.RunPost(call, res)
	if err != nil {
		return nil, guardFailure(err, pos)
	}
	return out, nil
}

// HookDenial is an operation an embedder's pre-hook stopped (the Err of
// an OperationDenied error): which hook, what it asked, why, and the
// labels of the operation's inputs.
type HookDenial struct {
	// Hook is the hook's registered name.
	Hook string
	// Action is what the hook decided: hooks.Deny, hooks.Retry where the
	// operation cannot be retried, or hooks.Abort when the hook itself
	// failed (an error or a panic).
	Action hooks.Action
	Reason string
	// Hint is a retry's hint.
	Hint string
	// Retryable is the hook's hooks.Decision.Retryable on a Deny.
	Retryable bool
	// Labels are the data labels of the operation's inputs.
	Labels []string
	// Err is the hook's own error behind an Abort.
	Err error
}

// Error is the hook's reason.
func (d *HookDenial) Error() string { return d.Reason }

// Unwrap returns the hook's own error, if it failed.
func (d *HookDenial) Unwrap() error { return d.Err }

// deniedError is the error for an operation a pre-hook stopped. Every
// stopping decision fails the operation: a retry reaches here only where
// the operation cannot be retried, and an abort means the hook itself
// broke, which must not let the operation through. The denial is
// explained like a guard's (WithExplain receives every denial).
func (in *interp) deniedError(node ast.Node, call *hooks.Call, d hooks.Decision) error {
	var pos ast.Pos
	if node != nil {
		pos = node.Position()
	}
	reason := d.Reason
	switch d.Action {
	case hooks.Retry:
		if reason == "" {
			reason = "retry requested: " + d.Hint
		}
	case hooks.Abort:
		if reason == "" {
			reason = "a hook failed while checking the operation"
		}
	}
	if reason == "" {
		reason = "denied by hook " + d.Hook
	}
	hd := &HookDenial{Hook: d.Hook, Action: d.Action, Reason: reason, Hint: d.Hint, Retryable: d.Retryable && d.Action == hooks.Deny,
		Labels: unionLabels(call.Inputs), Err: d.Err}
	in.explainHook(call, hd)
	hint := "the operation was refused by the embedder's hook " + d.Hook
	if d.Action == hooks.Abort {
		hint = "the embedder's hook " + d.Hook + " failed while checking the operation, so it was denied (fail closed)"
	}
	return &Error{Kind: KindDenied, Pos: pos, Hint: hint, Err: hd,
		Message: "Operation blocked: " + reason + " (" + opLabel(call.Op) + ")"}
}

// unionLabels is the union of the inputs' data labels, in order.
func unionLabels(inputs []*value.Variable) []string {
	var out []string
	for _, v := range inputs {
		if v == nil {
			continue
		}
		for _, l := range v.Security.Labels() {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// opLabel names an operation in messages: "/show (showVariable)".
func opLabel(op *hooks.OperationContext) string {
	if op.Subtype != "" && op.Subtype != op.Type {
		return "/" + op.Type + " (" + op.Subtype + ")"
	}
	return "/" + op.Type
}

// location converts a position for an OperationContext.
func location(p ast.Pos) hooks.Location {
	return hooks.Location{File: p.File, Line: p.Line, Column: p.Col}
}

// commandOpLabels are the operation labels of a command line (literal
// text and values, see policy.CommandOpLabels): per simple command
// (op:cmd, the command word and its first argument, SPEC §10 P19: `echo
// @x there` has op:cmd, op:cmd:echo, op:cmd:echo:there), and their union
// in order, which guards match and `@mx.op.labels` shows. Label-flow
// rules check each command on its own: `echo @key | tee f` is a flow to
// tee as much as to echo.
func commandOpLabels(line []policy.CommandPart) (union []string, perCmd [][]string) {
	perCmd = policy.CommandOpLabels(line)
	union = []string{"op:cmd"}
	for _, c := range perCmd {
		for _, l := range c {
			if !slices.Contains(union, l) {
				union = append(union, l)
			}
		}
	}
	return union, perCmd
}

// codeOpLabels sets the operation labels of an operation running code
// in lang (line is its command line or body). A shell body shows op:sh, and its commands
// are label-flow targets like a command line's: `deny: ["op:cmd"]` covers
// what an sh block runs.
func codeOpLabels(op *hooks.OperationContext, lang string, line []policy.CommandPart) {
	switch lang {
	case "js", "javascript":
		op.OpLabels = []string{"op:js"}
	case "node":
		op.OpLabels = []string{"op:node"}
	case "sh", "bash":
		op.OpLabels = []string{"op:sh"}
		op.Commands = policy.CommandOpLabels(line)
	case "py", "python":
		op.OpLabels = []string{"op:py"}
	default:
		op.OpLabels, op.Commands = commandOpLabels(line)
	}
}
