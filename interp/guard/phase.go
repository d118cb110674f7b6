package guard

import (
	"slices"

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
	action  Action
	reasons []string
	hints   []string
	// reported is the index in the results of the guard the error
	// reports, -1 until a guard denies or retries.
	reported      int
	reportedGuard *Guard
	// reportedHint is the first hint the reported guard gave.
	reportedHint string
	failed       bool
	// askAt is the index of the first guard that asked, -1 when none.
	askAt int
}

// add folds r, the result at index i, in. retryOverridesDeny is mlld's
// rule for the per-operation before pass: a later retry replaces an
// earlier deny of the same pass.
func (rd *reducer) add(r *Result, i int, retryOverridesDeny bool, passDenied *bool) {
	switch r.Action {
	case Deny:
		rd.action = Deny
		rd.reasons = append(rd.reasons, r.Reason)
		if passDenied != nil {
			*passDenied = true
		}
		if rd.reported < 0 {
			rd.reported, rd.reportedGuard = i, r.Guard
		}
		if r.Failed {
			rd.failed = true
		}
	case Ask:
		if rd.action == Allow {
			rd.action = Ask
		}
		if rd.askAt < 0 {
			rd.askAt = i
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
		if rd.reported < 0 {
			rd.reported, rd.reportedGuard = i, r.Guard
			rd.reportedHint = r.Hint
		}
	}
	if rd.reported >= 0 && rd.reportedGuard == r.Guard && rd.reportedHint == "" && r.Action == Retry {
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

// check is one run of a phase over an operation.
type check struct {
	en     *Engine
	st     *runState
	phase  Timing
	c      *hooks.Call
	inputs []*value.Variable
	// cur is the current output (after phase); changed the transformed
	// inputs (before phase), nil until a guard replaces one.
	cur     *value.Variable
	changed []*value.Variable
	try     int
	max     int
	history []Attempt
	// cause is the error of the first guard that failed (fail closed).
	cause error
}

// eval evaluates one guard and appends its result; it returns the result
// and its index.
func (k *check) eval(g *Guard, scope Scope, in *value.Variable, ins []*value.Variable) (*Result, int) {
	st := k.st
	// Phase, Call, Try, Max and History were set for the whole check.
	ev := &st.ev
	ev.Guard, ev.Scope, ev.Input, ev.Inputs, ev.Output, ev.Trace = g, scope, in, ins, k.cur, st.results
	out, err := k.en.Eval(ev)
	r := Result{Guard: g, Outcome: out, Timing: k.phase, Scope: scope}
	if err != nil {
		r.Outcome = Outcome{Action: Deny, Matched: true, Reason: "guard " + g.displayName() + " failed: " + err.Error()}
		r.Failed = true
		if k.cause == nil {
			k.cause = err
		}
	}
	st.results = append(st.results, r)
	i := len(st.results) - 1
	return &st.results[i], i
}

func (en *Engine) run(phase Timing, c *hooks.Call, output *value.Variable, o Options) Decision {
	var d Decision
	if !en.Registry.Has(phase) {
		return d
	}
	st := en.acquire()
	defer en.release(st)
	en.gen++
	perInputOf, hasPerInput := en.selectGuards(phase, c, output, o, st, en.gen)
	if !hasPerInput && len(st.perOp) == 0 {
		return d
	}

	var key string
	var ast *attemptState
	if len(en.attempts) > 0 {
		key = attemptKey(phase, c.Op)
		ast = en.attempts[key]
	}
	try := 1
	var history []Attempt
	if ast != nil {
		try, history = ast.next, ast.history
	}
	if o.Attempt > 0 {
		try = o.Attempt
	}
	max := MaxTries
	if o.Pipeline {
		max = 10
	}

	if n := len(st.cands) + len(st.perOp); cap(st.results) < n {
		st.results = make([]Result, 0, n)
	}
	inputs := c.Inputs
	k := &check{en: en, st: st, phase: phase, c: c, inputs: inputs, cur: output, try: try, max: max, history: history}
	st.ev = Evaluation{Phase: phase, Call: c, Try: try, Max: max, History: history}
	rd := reducer{reported: -1, askAt: -1}
	// A per-input guard over the output sees the current output.
	k.perInputPass(&d, &rd, phase == After && hasPerInput && perInputOf[0] == output)
	k.perOperationPass(&d, &rd)

	results := st.results
	d.Hints = rd.hints
	d.Reasons = rd.reasons
	d.Action = rd.action
	if phase == After && k.cur != output {
		d.Output = k.cur
	}
	if phase == Before {
		d.Inputs = k.changed
	}

	if rd.action == Ask {
		// The call is fixed first (replacements above), then asked about
		// in its final form.
		results = append([]Result(nil), results...)
		d.Results = results
		asker := &results[rd.askAt]
		d.Err = &Error{Guard: asker.Guard, Scope: asker.Scope, Op: c.Op, Timing: phase,
			Decision: Ask, Reason: asker.Question, Reasons: []string{asker.Question}, Results: results, Try: try, History: history,
			Labels: sawLabels(inputs, output, phase)}
		if len(inputs) > 0 {
			d.Err.Input = inputs[0]
		}
		if ast != nil {
			delete(en.attempts, key)
		}
		return d
	}
	if rd.action == Allow {
		if ast != nil {
			delete(en.attempts, key)
		}
		// The scratch results are only lent to the caller (see
		// Decision.Results).
		d.Results = results
		return d
	}
	// A denial keeps its own copy: errors outlive the check.
	d.Results = append([]Result(nil), results...)
	d.Err = k.denial(&d, &rd, output, o)
	// Attempt bookkeeping: a retry the runner will take moves the
	// operation to its next try; any final decision ends its attempts.
	if o.External {
		// The caller counts attempts (per call shape, across events).
	} else if d.Action == Retry && !rd.failed {
		if ast == nil {
			if key == "" {
				key = attemptKey(phase, c.Op)
			}
			ast = &attemptState{next: 1}
			en.attempts[key] = ast
		}
		ast.history = append(ast.history, Attempt{Attempt: try, Decision: Retry, Hint: lastOr(rd.hints)})
		ast.next = try + 1
	} else if ast != nil {
		delete(en.attempts, key)
	}
	return d
}

// selectGuards selects the phase's guards of c into st (per input, then
// per operation) for the check numbered run. It returns the values the
// per-input guards were selected by (the inputs, or the output after the
// call) and whether any was.
func (en *Engine) selectGuards(phase Timing, c *hooks.Call, output *value.Variable, o Options, st *runState, run uint64) (perInputOf []*value.Variable, hasPerInput bool) {
	p := phaseIndex(phase)
	inputs := c.Inputs
	perInputOf = inputs
	var extra []string
	if phase == After {
		// Per-input after guards follow the output's labels, falling back
		// to the inputs' (SPEC §5.9); templates shown skip them (§8 item 9).
		if !skipsAfterData(c.Op) && output != nil {
			st.one[0] = output
			perInputOf = st.one[:]
			hasPerInput = en.selectPerInput(p, perInputOf, o.Override, st, run)
			if !hasPerInput {
				perInputOf = inputs
				hasPerInput = en.selectPerInput(p, inputs, o.Override, st, run)
			}
		}
		if output != nil {
			extra = output.Security.Labels()
		}
	} else {
		hasPerInput = en.selectPerInput(p, inputs, o.Override, st, run)
	}
	en.selectPerOperation(p, c.Op, len(inputs), extra, o.Override, st, run)
	return perInputOf, hasPerInput
}

// perInputPass evaluates the selected per-input guards, each over its
// input (over the current output when overOutput), applying their
// replacements, until one fails.
func (k *check) perInputPass(d *Decision, rd *reducer, overOutput bool) {
	for _, cd := range k.st.cands {
		g := cd.g
		var in *value.Variable
		switch {
		case overOutput:
			in = k.cur
		case k.changed != nil:
			in = k.changed[cd.input]
		default:
			in = k.inputs[cd.input]
		}
		k.st.one[0] = in
		r, ri := k.eval(g, PerInput, in, k.st.one[:])
		rd.add(r, ri, false, nil)
		d.note(r)
		if r.Action == Allow && r.Replacement != nil && rd.permits() {
			rep := withSource(r.Replacement, g)
			if k.phase == After {
				k.cur = rep
			} else {
				if k.changed == nil {
					k.changed = append([]*value.Variable(nil), k.inputs...)
				}
				k.changed[cd.input] = rep
			}
		}
		if r.Warning != "" {
			d.Warnings = append(d.Warnings, r.Warning)
		}
		if rd.failed {
			break
		}
	}
}

// perOperationPass evaluates the selected per-operation guards over the
// inputs as the guards before them left them, unless a guard failed.
func (k *check) perOperationPass(d *Decision, rd *reducer) {
	passDenied := false
	var seenAs []*value.Variable
	for _, g := range k.st.perOp {
		if rd.failed {
			break
		}
		ins := seenAs
		if ins == nil {
			ins = k.inputs
			if k.changed != nil {
				ins = k.changed
			}
		}
		r, ri := k.eval(g, PerOperation, nil, ins)
		rd.add(r, ri, k.phase == Before, &passDenied)
		d.note(r)
		if r.Action == Allow && r.Replacement != nil && rd.permits() {
			rep := withSource(r.Replacement, g)
			if k.phase == After {
				k.cur = rep
			} else if len(k.inputs) > 0 {
				// The replacement becomes input 0; later guards of the pass
				// see only it (SPEC §8 item 2).
				if k.changed == nil {
					k.changed = append([]*value.Variable(nil), k.inputs...)
				}
				k.changed[0] = rep
				seenAs = []*value.Variable{rep}
			}
		}
		if r.Warning != "" {
			d.Warnings = append(d.Warnings, r.Warning)
		}
	}
}

// denial is the error of a check that denied or retried (d.Results holds
// its copy of the results); a retry the operation cannot take becomes a
// denial in d.Action, with the reason why.
func (k *check) denial(d *Decision, rd *reducer, output *value.Variable, o Options) *Error {
	phase, c, inputs := k.phase, k.c, k.inputs
	reported := &d.Results[rd.reported]
	e := &Error{Guard: reported.Guard, Scope: reported.Scope, Op: c.Op, Timing: phase,
		Decision: Deny, Reasons: rd.reasons, Hints: rd.hints, Results: d.Results, Try: k.try, History: k.history}
	e.Cause = k.cause
	e.Failed = reported.Failed
	e.Labels = sawLabels(inputs, output, phase)
	if len(rd.reasons) > 0 {
		e.Reason = rd.reasons[0]
	}
	if e.Reason == "" {
		e.Reason = "Guard " + reported.Guard.key() + " denied operation"
	}
	if len(inputs) > 0 {
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
	if rd.action != Retry {
		return e
	}
	switch {
	case o.External && !o.Effect:
		e.Decision = Retry
		e.RetryHint = lastOr(rd.hints)
	case o.Effect:
		d.Action = Deny
		e.Reason = "Guard retry not supported for effects: " + lastOr(rd.hints)
	case phase == Before && !o.Pipeline:
		d.Action = Deny
		e.Reason = ReasonNeedsPipeline
	case phase == After && k.try >= MaxTries:
		d.Action = Deny
		e.Reason = ReasonLimitPrefix + " (3)"
		e.RetryHint = ""
	default:
		e.Decision = Retry
		e.RetryHint = lastOr(rd.hints)
	}
	return e
}

// sawLabels is the union of the data labels of inputs and, after the
// operation ran, of its output.
func sawLabels(inputs []*value.Variable, output *value.Variable, phase Timing) []string {
	var out []string
	add := func(v *value.Variable) {
		if v == nil {
			return
		}
		for _, l := range v.Security.Labels() {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	for _, v := range inputs {
		add(v)
	}
	if phase == After {
		add(output)
	}
	return out
}

// permits reports whether the decision so far lets replacements apply:
// allow, or ask (which asks about the call in its final form).
func (rd *reducer) permits() bool { return rd.action == Allow || rd.action == Ask }

// note records r's with-clause texts.
func (d *Decision) note(r *Result) {
	if r.Context != "" || r.Message != "" {
		d.Notes = append(d.Notes, Note{Guard: r.Guard.displayName(), Context: r.Context, Message: r.Message})
	}
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
	if g.source.IsZero() {
		c.Security = v.Security.WithSources("guard:" + g.key())
	} else {
		c.Security = v.Security.Merge(g.source)
	}
	return &c
}

// attemptKey identifies an operation across re-runs for its retry count.
func attemptKey(phase Timing, op *hooks.OperationContext) string {
	return phase.String() + "|" + op.Type + "|" + op.Name + "|" + op.Location.File + ":" +
		itoa(op.Location.Line) + ":" + itoa(op.Location.Column)
}
