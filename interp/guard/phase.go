package guard

import (
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// Reasons a retry is refused (SPEC §5.10, §6).
const (
	ReasonNeedsPipeline = "guard retry requires pipeline context (non-pipeline retry deferred to Phase 7.3)"
	ReasonLimitPrefix   = "Guard retry limit exceeded"
)

// reducer folds guard results into a decision (SPEC §5.7, §8 item 3).
type reducer struct {
	action   Action
	reasons  []string
	hints    []string
	reported *Result
	// reportedHint is the first hint the reported guard gave.
	reportedHint string
	failed       bool
}

// add folds r in. retryOverridesDeny is mlld's rule for the per-operation
// before pass: a later retry replaces an earlier deny of the same pass.
func (rd *reducer) add(r *Result, retryOverridesDeny bool, passDenied *bool) {
	switch r.Action {
	case Deny:
		rd.action = Deny
		rd.reasons = append(rd.reasons, r.Reason)
		if passDenied != nil {
			*passDenied = true
		}
		if rd.reported == nil {
			rd.reported = r
		}
		if r.Failed {
			rd.failed = true
		}
	case Retry:
		rd.hints = append(rd.hints, r.Hint)
		rd.reasons = append(rd.reasons, r.Hint)
		if rd.failed {
			break
		}
		if rd.action != Deny || (retryOverridesDeny && passDenied != nil && *passDenied) {
			rd.action = Retry
		}
		if rd.reported == nil {
			rd.reported = r
			rd.reportedHint = r.Hint
		}
	}
	if rd.reported != nil && rd.reported.Guard == r.Guard && rd.reportedHint == "" && r.Action == Retry {
		rd.reportedHint = r.Hint
	}
}

// Before runs the before-phase guards of an operation (SPEC §5.4, §5.8).
func (en *Engine) Before(c *hooks.Call, o Options) Decision {
	return en.run(Before, c, nil, o)
}

// After runs the after-phase guards over an operation's output (SPEC §5.9).
func (en *Engine) After(c *hooks.Call, output *value.Variable, o Options) Decision {
	return en.run(After, c, output, o)
}

func (en *Engine) run(phase Timing, c *hooks.Call, output *value.Variable, o Options) Decision {
	var d Decision
	if !en.Registry.Has(phase) {
		return d
	}
	seen := map[*Guard]bool{}
	inputs := c.Inputs
	var perInput [][]*Guard
	perInputOf := inputs
	var extra []string
	if phase == After {
		// Per-input after guards follow the output's labels, falling back
		// to the inputs' (SPEC §5.9); templates shown skip them (§8 item 9).
		if !skipsAfterData(c.Op) && output != nil {
			perInput = en.selectPerInput(phase, []*value.Variable{output}, o.Override, seen)
			perInputOf = []*value.Variable{output}
			if perInput == nil {
				perInput = en.selectPerInput(phase, inputs, o.Override, seen)
				perInputOf = inputs
			}
		}
		if output != nil {
			extra = output.Security.Labels()
		}
	} else {
		perInput = en.selectPerInput(phase, inputs, o.Override, seen)
	}
	perOp := en.selectPerOperation(phase, c.Op, len(inputs), extra, o.Override, seen)
	if perInput == nil && len(perOp) == 0 {
		return d
	}

	key := attemptKey(phase, c.Op)
	st := en.attempts[key]
	try := 1
	var history []Attempt
	if st != nil {
		try, history = st.next, st.history
	}
	if o.Attempt > 0 {
		try = o.Attempt
	}
	max := MaxTries
	if o.Pipeline {
		max = 10
	}

	rd := &reducer{}
	var results []Result
	cur := output
	var changed []*value.Variable
	current := func(i int) *value.Variable {
		if changed != nil {
			return changed[i]
		}
		return inputs[i]
	}
	eval := func(g *Guard, scope Scope, in *value.Variable, ins []*value.Variable) *Result {
		ev := &Evaluation{Guard: g, Scope: scope, Phase: phase, Input: in, Inputs: ins, Output: cur,
			Call: c, Try: try, Max: max, History: history, Trace: results}
		out, err := en.Eval(ev)
		r := Result{Guard: g, Outcome: out, Timing: phase, Scope: scope}
		if err != nil {
			r.Outcome = Outcome{Action: Deny, Matched: true, Reason: "guard " + g.displayName() + " failed: " + err.Error()}
			r.Failed = true
			if d.Err == nil {
				d.Err = &Error{Cause: err}
			}
		}
		results = append(results, r)
		return &results[len(results)-1]
	}

	// Per-input pass.
	for i, gs := range perInput {
		for _, g := range gs {
			var in *value.Variable
			if phase == After && perInputOf[0] == output {
				in = cur
			} else {
				in = current(i)
			}
			r := eval(g, PerInput, in, []*value.Variable{in})
			rd.add(r, false, nil)
			if r.Action == Allow && r.Replacement != nil && rd.action == Allow {
				rep := withSource(r.Replacement, g)
				if phase == After {
					cur = rep
				} else {
					if changed == nil {
						changed = append([]*value.Variable(nil), inputs...)
					}
					changed[i] = rep
				}
			}
			if r.Warning != "" {
				d.Warnings = append(d.Warnings, r.Warning)
			}
			if rd.failed {
				break
			}
		}
		if rd.failed {
			break
		}
	}

	// Per-operation pass.
	passDenied := false
	var seenAs []*value.Variable
	for _, g := range perOp {
		if rd.failed {
			break
		}
		ins := seenAs
		if ins == nil {
			ins = inputs
			if changed != nil {
				ins = changed
			}
		}
		r := eval(g, PerOperation, nil, ins)
		rd.add(r, phase == Before, &passDenied)
		if r.Action == Allow && r.Replacement != nil && rd.action == Allow {
			rep := withSource(r.Replacement, g)
			if phase == After {
				cur = rep
			} else if len(inputs) > 0 {
				// The replacement becomes input 0; later guards of the pass
				// see only it (SPEC §8 item 2).
				if changed == nil {
					changed = append([]*value.Variable(nil), inputs...)
				}
				changed[0] = rep
				seenAs = []*value.Variable{rep}
			}
		}
		if r.Warning != "" {
			d.Warnings = append(d.Warnings, r.Warning)
		}
	}

	d.Results = results
	d.Hints = rd.hints
	d.Reasons = rd.reasons
	d.Action = rd.action
	if phase == After && cur != output {
		d.Output = cur
	}
	if phase == Before {
		d.Inputs = changed
	}

	// Attempt bookkeeping: a retry moves the operation to its next try.
	if rd.action == Retry && !rd.failed {
		if st == nil {
			st = &attemptState{next: 1}
			en.attempts[key] = st
		}
		st.history = append(st.history, Attempt{Attempt: try, Decision: "retry", Hint: lastOr(rd.hints)})
		st.next = try + 1
	} else if st != nil {
		delete(en.attempts, key)
	}

	if rd.action == Allow {
		d.Err = nil
		return d
	}
	e := &Error{Guard: rd.reported.Guard, Scope: rd.reported.Scope, Op: c.Op, Timing: timingName(phase),
		Decision: "deny", Reasons: rd.reasons, Hints: rd.hints, Results: results, Try: try, History: history}
	if d.Err != nil {
		e.Cause = d.Err.Cause
	}
	if len(rd.reasons) > 0 {
		e.Reason = rd.reasons[0]
	}
	if e.Reason == "" {
		e.Reason = "Guard " + rd.reported.Guard.key() + " denied operation"
	}
	if rd.reported.Scope == PerInput && len(inputs) > 0 {
		e.Input = inputs[0]
	} else if len(inputs) > 0 {
		e.Input = inputs[0]
	}
	if phase == After {
		if c.Op.Type != "var" {
			e.OutputPreview = preview(output)
		}
		// mlld names the first guard evaluated; PORT: the denying one.
	} else {
		e.RetryHint = rd.reportedHint
	}
	if rd.action == Retry {
		switch {
		case o.Effect:
			d.Action = Deny
			e.Reason = "Guard retry not supported for effects: " + lastOr(rd.hints)
		case phase == Before && !o.Pipeline:
			d.Action = Deny
			e.Reason = ReasonNeedsPipeline
		case phase == After && try >= MaxTries:
			d.Action = Deny
			e.Reason = ReasonLimitPrefix + " (3)"
			e.RetryHint = ""
		default:
			e.Decision = "retry"
			e.RetryHint = lastOr(rd.hints)
		}
	}
	d.Err = e
	return d
}

// displayName names a guard in fail-closed reasons: "@name" or its filter.
func (g *Guard) displayName() string {
	if g.Name != "" {
		return "@" + g.Name
	}
	return g.Filter()
}

func lastOr(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[len(xs)-1]
}

func timingName(p Timing) string {
	if p == After {
		return "after"
	}
	return "before"
}

// skipsAfterData reports whether data-label after guards are skipped for
// op: shown templates and literals (SPEC §8 item 9).
func skipsAfterData(op *hooks.OperationContext) bool {
	if op.Type != "show" {
		return false
	}
	switch op.Subtype {
	case "show", "showLiteral", "showTemplate":
		return true
	}
	return false
}

// withSource marks a replacement as made by g.
func withSource(v *value.Variable, g *Guard) *value.Variable {
	c := *v
	c.Security = v.Security.WithSources("guard:" + g.key())
	return &c
}

// attemptKey identifies an operation across re-runs for its retry count.
func attemptKey(phase Timing, op *hooks.OperationContext) string {
	return timingName(phase) + "|" + op.Type + "|" + op.Name + "|" + op.Location.File + ":" +
		itoa(op.Location.Line) + ":" + itoa(op.Location.Column)
}
