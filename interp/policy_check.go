package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
)

// The policy is enforced in two places.
//
// As the first stage of the guard pre-hook, before any user guard, every
// hooked operation is checked against the label-flow rules (built-in
// rules, `labels`, `operations`) and, where the operation already shows
// what it will run (a `/run` command, a js or sh body), against the
// capabilities. A label-flow denial is a GuardError-like denial: denied
// => arms handle it, and a privileged guard's explicit allow overrides it
// unless the policy is locked.
//
// At the executors, right before a command, shell block or JS block runs,
// the capabilities are checked again on what runs (the command as the
// shell parses it, values as data, after any guard transform; the exact
// body of a code block), and a command inside an exe body
// is label-flow checked with the exe's labels: nothing executes that the
// policy refuses, whichever path led there. Capability denials are final:
// neither handlers nor privileged guards can undo them.

// policyPre is the policy stage of the guard pre-hook. It returns a stop
// decision, or the label-flow denial that privileged guards may still
// override (nil when the flow is allowed).
func (in *interp) policyPre(c *hooks.Call) (*hooks.Decision, *policy.Denial) {
	if !in.policy.Active() {
		return nil, nil
	}
	if d := in.capabilityPre(c); d != nil {
		in.explainPolicy(c.Op, d, c.Inputs)
		return &hooks.Decision{Action: hooks.Deny, Reason: d.Reason, Err: in.capabilityError(d, c.Op, ast.Pos{})}, nil
	}
	if !in.policy.HasFlowRules() {
		return nil, nil
	}
	d := in.checkFlow(c.Op, c.Inputs, nil)
	if d == nil {
		return nil, nil
	}
	if d.Locked || !in.guardReg.HasPrivilegedIn(guard.Before) {
		return in.flowDeny(c, d), nil
	}
	return nil, d
}

// policyInHook is the policy stage for an operation caused while a hook
// runs (a guard's helper exe): the same checks, with no override.
func (in *interp) policyInHook(c *hooks.Call) hooks.Decision {
	stop, flow := in.policyPre(c)
	if stop == nil && flow != nil {
		stop = in.flowDeny(c, flow)
	}
	if stop != nil {
		stop.Hook = "policy"
		return *stop
	}
	return hooks.Decision{Action: hooks.Continue}
}

// flowDeny is the stop decision of a label-flow denial.
func (in *interp) flowDeny(c *hooks.Call, d *policy.Denial) *hooks.Decision {
	in.explainPolicy(c.Op, d, c.Inputs)
	ge := &guard.Error{Policy: d, Op: c.Op, Timing: guard.Before, Decision: guard.Deny, Reason: d.Reason, Reasons: []string{d.Reason}}
	if len(c.Inputs) > 0 {
		ge.Input = c.Inputs[0]
	}
	return &hooks.Decision{Action: hooks.Deny, Reason: d.Reason, Err: ge}
}

// privilegedAllow reports whether a privileged guard explicitly allowed
// the operation (a matched allow rule, not the no-match default).
func privilegedAllow(results []guard.Result) (string, bool) {
	for _, r := range results {
		if r.Guard != nil && r.Guard.Privileged && r.Matched && r.Action == guard.Allow && !r.Failed {
			return r.Guard.Label(), true
		}
	}
	return "", false
}

// capabilityPre checks what an operation shows it will run: the command
// of a `/run`, the language of a js or sh body.
func (in *interp) capabilityPre(c *hooks.Call) *policy.Denial {
	op := c.Op
	if op.Type == "run" && op.Subtype == "runCommand" && len(c.Inputs) == 1 && c.Inputs[0] != nil {
		if pc := in.runInputs[c.Inputs[0]]; pc != nil {
			return in.policy.CheckCommandParts(pc.parts())
		}
		return in.policy.CheckCommand(rawText(c.Inputs[0]))
	}
	for _, l := range op.OpLabels {
		switch l {
		case "op:js", "op:node", "op:sh":
			return in.policy.CheckCode(l[3:])
		}
	}
	return nil
}

// checkFlow runs the label-flow rules for an operation with inputs; extra
// are further targets (a command's own operation labels). An operation
// running several commands passes only if each of them does.
func (in *interp) checkFlow(op *hooks.OperationContext, inputs []*value.Variable, extra []string) *policy.Denial {
	// The check runs on every hooked operation while a policy is active:
	// small operations build their lists on the stack.
	var tbuf [16]string
	targets := in.flowTargets(tbuf[:0], op, extra)
	if op == nil || len(op.Commands) == 0 {
		if len(targets) == 0 {
			return nil
		}
		return in.checkInputs(targets, inputs)
	}
	return in.checkEachCommand(targets, op.Commands, inputs)
}

// checkEachCommand checks inputs flowing to the shared targets plus, in
// turn, each command's operation labels.
func (in *interp) checkEachCommand(targets []string, commands [][]string, inputs []*value.Variable) *policy.Denial {
	base := len(targets)
	for _, cmd := range commands {
		targets = append(targets[:base], cmd...)
		if d := in.checkInputs(targets, inputs); d != nil {
			return d
		}
	}
	return nil
}

// checkInputs runs the label-flow rules for inputs flowing to targets.
func (in *interp) checkInputs(targets []string, inputs []*value.Variable) *policy.Denial {
	var lbuf [4][]string
	labels := lbuf[:0]
	for _, v := range inputs {
		var l []string
		if v != nil {
			l = v.Security.Taint()
		}
		labels = append(labels, l)
	}
	return in.policy.CheckFlow(policy.Flow{Inputs: labels, Targets: targets})
}

// flowTargets are what an operation flows into, for label-flow rules:
// `op:<type>` for directives and exe calls, its operation labels
// (`op:cmd:git:status`), an exe's own labels (`exfil`, `net:w`), and the
// labels of every exe call it runs inside: a command in the body of an
// `exfil` exe is exfiltration too. `/var` and `/exe` definitions flow
// nowhere.
func (in *interp) flowTargets(out []string, op *hooks.OperationContext, extra []string) []string {
	if op != nil {
		switch op.Type {
		case "var":
			return nil
		case "exe", "pipeline-stage":
			if op.Subtype != "" && op.Type == "exe" {
				// An /exe definition (exeTemplate, exeCode…).
				return nil
			}
			out = append(out, "op:exe")
			out = appendOpLabels(out, op)
			out = append(out, op.Labels...)
		default:
			out = append(out, "op:"+op.Type)
			out = appendOpLabels(out, op)
		}
	}
	out = append(out, extra...)
	return in.enclosingExeLabels(out, op)
}

// appendOpLabels appends op's operation labels, except the op:cmd labels
// of an operation whose commands are checked one by one (checkFlow).
func appendOpLabels(out []string, op *hooks.OperationContext) []string {
	if len(op.Commands) == 0 {
		return append(out, op.OpLabels...)
	}
	for _, l := range op.OpLabels {
		if !strings.HasPrefix(l, "op:cmd") {
			out = append(out, l)
		}
	}
	return out
}

// enclosingExeLabels appends to out the labels of the exe calls running
// below op on the operation stack.
func (in *interp) enclosingExeLabels(out []string, op *hooks.OperationContext) []string {
	for i := in.mx.Op.Len() - 1; i >= 0; i-- {
		o := in.mx.Op.At(i)
		if o == op || o == nil {
			continue
		}
		if (o.Type == "exe" && o.Subtype == "") || o.Type == "pipeline-stage" {
			out = append(out, o.Labels...)
		}
	}
	return out
}

// flowOverridden reports whether a privileged guard overrode a label-flow
// denial of an operation on the stack: the commands it runs are covered.
func (in *interp) flowOverridden() bool {
	for i := in.mx.Op.Len() - 1; i >= 0; i-- {
		if o := in.mx.Op.At(i); o != nil && o.PolicyAllowed {
			return true
		}
	}
	return false
}

// checkCommandPolicy is the executor check of a command about to run:
// label flow for a command inside an exe body (flowDone when the `/run`
// operation was checked already), then the capabilities on the command
// as the shell parses it, each value one word of data.
func (in *interp) checkCommandPolicy(pc *preparedCommand, flowDone bool) error {
	if !in.policy.Active() {
		return nil
	}
	text := pc.text()
	top, _ := in.mx.Op.Top()
	if !flowDone && in.policy.HasFlowRules() && !in.flowOverridden() {
		input := &value.Variable{Data: text, Security: pc.desc}
		union, commands := commandOpLabels(pc.parts())
		cmdOp := &hooks.OperationContext{Type: "run", Subtype: "runCommand", Command: text, OpLabels: union, Commands: commands}
		inputs := []*value.Variable{input}
		var d *policy.Denial
		if len(commands) == 0 {
			d = in.checkFlowWith(append([]string{"op:run"}, union...), inputs)
		} else {
			d = in.checkEachCommand(in.enclosingExeLabels([]string{"op:run"}, nil), commands, inputs)
		}
		if d != nil {
			in.explainPolicy(top, d, inputs)
			return &guard.Error{Policy: d, Op: opOr(top, cmdOp), Timing: guard.Before, Decision: guard.Deny, Reason: d.Reason, Reasons: []string{d.Reason}, Input: input}
		}
	}
	if d := in.policy.CheckCommandParts(pc.parts()); d != nil {
		in.explainPolicy(top, d, nil)
		return in.capabilityError(d, top, ast.Pos{})
	}
	return nil
}

// checkRunOutput is the label-flow check of a `/run`'s output on its way
// into the document (at pos): the document shows it as `show` would, so
// op:show rules apply, whatever ran (a command, an sh or js block, an
// exe). The command has run by then; only its output is refused, and no
// guard can lift that.
func (in *interp) checkRunOutput(v *value.Variable, pos ast.Pos) error {
	if v == nil || !in.policy.Active() || !in.policy.HasFlowRules() {
		return nil
	}
	op := &hooks.OperationContext{Type: "show", Subtype: "runOutput", Location: location(pos)}
	inputs := []*value.Variable{v}
	d := in.checkFlow(op, inputs, nil)
	if d == nil {
		return nil
	}
	in.explainPolicy(op, d, inputs)
	ge := &guard.Error{Policy: d, Op: op, Timing: guard.After, Decision: guard.Deny, Reason: d.Reason, Reasons: []string{d.Reason}, Input: v}
	return &Error{Kind: KindPolicy, Pos: pos, Message: ge.Error(), Err: ge,
		Hint: "the output of this /run carries a label the policy keeps out of the document (op:show); capture it with `var @r = cmd {…}` instead, or change the data's labels or the policy"}
}

// checkFlowWith is checkFlow for a command that is not an operation of its
// own: its targets plus the enclosing exe calls' labels.
func (in *interp) checkFlowWith(targets []string, inputs []*value.Variable) *policy.Denial {
	return in.checkInputs(in.enclosingExeLabels(targets, nil), inputs)
}

// checkCodePolicy is the executor check of a js, node, sh or bash block
// (src): the language's capability, and for shell blocks every command in
// the body, as for a command line.
func (in *interp) checkCodePolicy(lang, src string) error {
	if !in.policy.Active() {
		return nil
	}
	d := in.policy.CheckCode(lang)
	if d == nil && (lang == "sh" || lang == "bash") {
		d = in.policy.CheckCommand(src)
	}
	if d != nil {
		top, _ := in.mx.Op.Top()
		in.explainPolicy(top, d, nil)
		return in.capabilityError(d, top, ast.Pos{})
	}
	return nil
}

func opOr(op, dflt *hooks.OperationContext) *hooks.OperationContext {
	if op != nil {
		return op
	}
	return dflt
}

// capabilityError is the final error of a capability denial.
func (in *interp) capabilityError(d *policy.Denial, op *hooks.OperationContext, pos ast.Pos) *Error {
	d = in.redactDenial(d)
	var b strings.Builder
	b.WriteString(d.Reason)
	b.WriteString("\n  Policy: " + guard.PolicyLabel(d))
	if d.Command != "" {
		b.WriteString("\n  Command: " + d.Command)
	}
	if op != nil {
		b.WriteString("\n  Operation: " + opLabel(op))
	}
	return &Error{Kind: KindPolicy, Pos: pos, Message: b.String(), Err: d,
		Hint: "the active policy does not allow this capability; change the policy's allow/deny lists if it should run"}
}

// policyPostHook gives the result of an `llm` exe called with untrusted
// input the `influenced` label when the policy enables
// untrusted-llms-get-influenced.
func (in *interp) policyPostHook(c *hooks.Call, res *value.Variable) (*value.Variable, error) {
	if res == nil || !in.policy.Active() || (c.Op.Type != "exe" && c.Op.Type != "pipeline-stage") || !hasLLMLabel(c.Op.Labels) {
		return res, nil
	}
	inputs := make([][]string, 0, len(c.Inputs)+1)
	for _, v := range c.Inputs {
		if v != nil {
			inputs = append(inputs, v.Security.Taint())
		}
	}
	inputs = append(inputs, res.Security.Taint())
	if !in.policy.Influenced(inputs, c.Op.Labels) || res.Security.HasLabel("influenced") {
		return res, nil
	}
	out := *res
	out.Security = res.Security.WithLabels("influenced")
	return &out, nil
}

// hasLLMLabel reports an `llm` (or `llm:…`) exe label, the only exes whose
// results the influenced rule labels.
func hasLLMLabel(labels []string) bool {
	for _, l := range labels {
		if l == "llm" || strings.HasPrefix(l, "llm:") {
			return true
		}
	}
	return false
}
