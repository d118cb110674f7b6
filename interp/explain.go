package interp

import (
	"slices"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/action"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
)

// Explanation says who decided a denied operation and which labels made
// it fire (`guardrun --explain`).
type Explanation struct {
	// Pos is where the operation is.
	Pos ast.Pos
	// Operation names it: "/show (showVariable)", "/exe @send".
	Operation string
	// Decider is the rule, guard or hook: "policy @p
	// (defaults.rules.no-secret-exfil)", "guard @g (for data:secret)",
	// "hook no-exfil" (an embedder's pre-hook).
	Decider string
	// Decision is the decider's action: Deny or Retry (Abort for a hook
	// that failed), or Allow for a policy denial a privileged guard
	// overrode (By names the guard; Overridden reports it).
	Decision action.Action
	Reason   string
	// Labels are the input labels (and taint) the decision looked at;
	// Targets what the operation flows into, for label-flow rules.
	Labels  []string
	Targets []string
	// By is the privileged guard of an override.
	By string
	// Lineage says, one line per triggering label, how the label reached
	// the denied input as the run went (lineage.go): `secret from @k
	// (line 3) → @summarize(t) (js) → @summary → @post`. The facade falls
	// back to the static analysis (check.Lineage) when it is empty.
	Lineage []string
}

// Overridden reports whether x explains a policy denial a privileged
// guard lifted (the operation ran).
func (x Explanation) Overridden() bool { return x.By != "" }

func (in *interp) explainOn() bool { return in.opts.Explain != nil }

// explainPolicy records a policy denial of op.
func (in *interp) explainPolicy(op *hooks.OperationContext, d *policy.Denial, inputs []*value.Variable) {
	if !in.explainOn() {
		return
	}
	d = in.redactDenial(d)
	x := Explanation{Operation: explainOp(op), Decider: "policy " + guard.PolicyLabel(d), Decision: action.Deny,
		Reason: d.Reason, Labels: d.Inputs, Targets: d.Targets}
	if d.Capability && d.Command != "" {
		x.Targets = []string{"command: " + d.Command}
	}
	if len(x.Labels) == 0 {
		x.Labels = unionTaint(inputs)
	}
	x.Pos = opPos(op, in.curPos)
	if in.rec != nil {
		x.Lineage = in.rec.chains(op, inputs, nil, x.Labels)
	}
	in.opts.Explain(x)
}

// explainOverride records a label-flow denial a privileged guard lifted.
func (in *interp) explainOverride(op *hooks.OperationContext, d *policy.Denial, by string, inputs []*value.Variable) {
	if !in.explainOn() {
		return
	}
	x := Explanation{Pos: opPos(op, in.curPos), Operation: explainOp(op), Decider: "policy " + guard.PolicyLabel(d),
		Decision: action.Allow, Reason: d.Reason, Labels: d.Inputs, Targets: d.Targets, By: by}
	if in.rec != nil {
		x.Lineage = in.rec.chains(op, inputs, nil, x.Labels)
	}
	in.opts.Explain(x)
}

// explainGuard records a guard denial or unanswered retry.
func (in *interp) explainGuard(c *hooks.Call, ge *guard.Error) {
	if !in.explainOn() || ge == nil || ge.Policy != nil {
		return
	}
	x := Explanation{Pos: opPos(c.Op, in.curPos), Operation: explainOp(c.Op), Decision: ge.Decision, Reason: ge.Reason}
	if ge.Guard != nil {
		x.Decider = "guard " + ge.Guard.Label()
		if ge.Guard.Name != "" {
			x.Decider += " (for " + ge.Guard.Filter() + ")"
		}
	}
	var only *value.Variable
	if ge.Scope == guard.PerInput && ge.Input != nil {
		x.Labels = ge.Input.Security.Taint()
		only = ge.Input
	} else {
		x.Labels = unionTaint(c.Inputs)
	}
	if in.rec != nil {
		trig := x.Labels
		// A data guard fires on its label: that is the one to trace.
		if g := ge.Guard; g != nil && g.Kind == guard.Data && slices.Contains(trig, g.Value) {
			trig = []string{g.Value}
		}
		x.Lineage = in.rec.chains(c.Op, c.Inputs, only, trig)
	}
	in.opts.Explain(x)
}

// explainHook records an embedder hook's denial.
func (in *interp) explainHook(c *hooks.Call, d *HookDenial) {
	if !in.explainOn() {
		return
	}
	decision := action.Deny
	if d.Action == hooks.Retry {
		decision = action.Retry
	}
	x := Explanation{Pos: opPos(c.Op, in.curPos), Operation: explainOp(c.Op), Decider: "hook " + d.Hook,
		Decision: decision, Reason: d.Reason, Labels: unionTaint(c.Inputs)}
	if in.rec != nil {
		x.Lineage = in.rec.chains(c.Op, c.Inputs, nil, x.Labels)
	}
	in.opts.Explain(x)
}

func explainOp(op *hooks.OperationContext) string {
	if op == nil {
		return "(command)"
	}
	s := opLabel(op)
	if op.Name != "" && (op.Type == "exe" || op.Type == "pipeline-stage") {
		s += " @" + op.Name
	}
	return s
}

func opPos(op *hooks.OperationContext, dflt ast.Pos) ast.Pos {
	if op != nil && op.Location.Line != 0 {
		return ast.Pos{File: op.Location.File, Line: op.Location.Line, Col: op.Location.Column}
	}
	return dflt
}

// unionTaint is the union of the inputs' taint, in order.
func unionTaint(inputs []*value.Variable) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range inputs {
		if v == nil {
			continue
		}
		for _, t := range v.Security.Taint() {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}
