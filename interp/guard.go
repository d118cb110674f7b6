package interp

import (
	"errors"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// KindGuard is the error kind of a guard denial: a guard decided to deny
// (or asked for a retry no runner took).
const KindGuard ErrorKind = "GuardError"

// KindGuardFailed is the error kind of a guard that failed while it
// decided (an error in its condition, a helper that failed): the
// operation is denied, fail closed, but no guard refused it. The error
// is positioned where the guard failed.
const KindGuardFailed ErrorKind = "GuardFailure"

// guardCall is the guard settings of one hooked operation (hooks.Call
// Extra).
type guardCall struct {
	opts guard.Options
	// beforeOnly skips the after phase (pipeline stages, SPEC §10 P7).
	beforeOnly bool
	// effect marks operations that can never be retried.
	effect bool
	// record receives every phase's results (`@p.guards`).
	record func(phase string, op *hooks.OperationContext, saw taint.Descriptor, d guard.Decision)
}

// setupGuards creates the run's guard registry and engine and registers
// the guard pre- and post-hooks, after the taint hook and before any
// embedder hook.
func (in *interp) setupGuards() {
	in.guards = guard.NewEngine(in.guardReg, in.evalGuard)
	// Exclusive: operations a guard's helpers cause are not guarded
	// (SPEC §5.4); every other hook, policy included, still sees them.
	in.hooks.RegisterPreExclusive("guards", in.guardPreHook)
	in.hooks.RegisterPostExclusive("guards", in.guardPostHook)
}

// execGuard registers a guard directive (SPEC §5.2).
func (in *interp) execGuard(e *env, d *ast.GuardDirective) error {
	if err := checkGuardRules(d); err != nil {
		return err
	}
	g := guard.New(d, e)
	g.Plan = planGuard(d.Body)
	return in.addGuard(e.mod, g, d.Pos)
}

// addGuard makes g one of mod's guards (defined there or imported into
// it). The main script's guards are active from here on; an imported
// module's wait until an importer asks for them, so that importing a
// helper never installs a guard (imports.go). Adding a guard the module
// already has is a no-op.
func (in *interp) addGuard(mod *module, g *guard.Guard, pos ast.Pos) error {
	if g.Name != "" {
		if had, ok := mod.guardNames[g.Name]; ok {
			if had == g {
				return nil
			}
			return newError(KindGuard, pos, "give each guard its own name", "%s", (&guard.DuplicateError{Name: "@" + g.Name}).Error())
		}
		if mod.guardNames == nil {
			mod.guardNames = map[string]*guard.Guard{}
		}
		mod.guardNames[g.Name] = g
	} else {
		for _, had := range mod.guards {
			if had == g {
				return nil
			}
		}
	}
	mod.guards = append(mod.guards, g)
	if mod != in.main || g.ID != 0 {
		// Not the main script, or already active.
		return nil
	}
	if err := in.guardReg.Add(g); err != nil {
		return newError(KindGuard, pos, "give each guard its own name", "%s", err.Error())
	}
	return nil
}

// defaultGuardCall is the settings of an operation without any; shared
// and never written.
var defaultGuardCall = &guardCall{}

// HooksGuardSettings marks a guardCall as a call's hooks.GuardSettings.
func (*guardCall) HooksGuardSettings() {}

func guardCallOf(c *hooks.Call) *guardCall {
	if gc, ok := c.Guards.(*guardCall); ok && gc != nil {
		return gc
	}
	return defaultGuardCall
}

func (in *interp) guardPreHook(c *hooks.Call) (hooks.Decision, error) {
	stop, flow := in.policyPre(c)
	if stop != nil {
		return *stop, nil
	}
	if !in.guardReg.Has(guard.Before) {
		return hooks.Decision{Action: hooks.Continue}, nil
	}
	gc := guardCallOf(c)
	d := in.guards.Before(c, gc.opts)
	in.afterPhase(gc, "before", c, nil, d)
	if flow != nil {
		// A non-locked label-flow denial stands unless a privileged guard
		// explicitly allowed the operation (SPEC §5.15).
		who, ok := privilegedAllow(d.Results)
		if !ok {
			return *in.flowDeny(c, flow), nil
		}
		c.Op.PolicyAllowed = true
		in.explainOverride(c.Op, flow, who, c.Inputs)
	}
	switch d.Action {
	case guard.Deny:
		in.explainGuard(c, d.Err)
		return hooks.Decision{Action: hooks.Deny, Reason: d.Err.Reason, Err: d.Err}, nil
	case guard.Retry:
		in.explainGuard(c, d.Err)
		return hooks.Decision{Action: hooks.Retry, Reason: d.Err.Reason, Hint: d.Err.RetryHint, Err: d.Err}, nil
	case guard.Ask:
		return in.askDecision(c, d), nil
	}
	return hooks.Decision{Action: hooks.Continue, Inputs: d.Inputs}, nil
}

// askDecision is the pre-hook decision of a guard's `ask`. A Machine's
// caller owns approvals and gets the ask as it is (a stop whose error says
// "ask"); a script run has nobody to ask, so the operation is denied with
// a reason that says what needed approval (fail closed).
func (in *interp) askDecision(c *hooks.Call, d guard.Decision) hooks.Decision {
	if !in.external {
		d.Err.Decision = guard.Deny
		d.Err.Reason = "approval required: " + d.Err.Reason
		d.Err.Reasons = []string{d.Err.Reason}
		in.explainGuard(c, d.Err)
	}
	return hooks.Decision{Action: hooks.Deny, Reason: d.Err.Reason, Err: d.Err, Inputs: d.Inputs}
}

func (in *interp) guardPostHook(c *hooks.Call, res *value.Variable) (*value.Variable, error) {
	if !in.guardReg.Has(guard.After) {
		return res, nil
	}
	gc := guardCallOf(c)
	if gc.beforeOnly {
		return res, nil
	}
	d := in.guards.After(c, res, gc.opts)
	in.afterPhase(gc, "after", c, res, d)
	switch d.Action {
	case guard.Deny:
		in.explainGuard(c, d.Err)
		return nil, d.Err
	case guard.Retry:
		in.explainGuard(c, d.Err)
		sig := &guard.RetrySignal{Err: d.Err, From: guardSaw(c.Inputs, res)}
		if gc.effect {
			return nil, sig.Deny("Guard retry not supported for effects: " + sig.Hint())
		}
		return nil, sig
	case guard.Ask:
		if !in.external {
			d.Err.Decision = guard.Deny
			d.Err.Reason = "approval required: " + d.Err.Reason
			d.Err.Reasons = []string{d.Err.Reason}
			in.explainGuard(c, d.Err)
		}
		return nil, d.Err
	}
	if d.Output != nil {
		return d.Output, nil
	}
	return res, nil
}

// afterPhase writes allow warnings and records the phase for pipelines.
func (in *interp) afterPhase(gc *guardCall, phase string, c *hooks.Call, res *value.Variable, d guard.Decision) {
	for _, w := range d.Warnings {
		in.out.writeStderr("[Guard Warning] " + w + "\n")
	}
	if gc.record != nil && len(d.Results) > 0 {
		gc.record(phase, c.Op, guardSaw(c.Inputs, res), d)
	}
}

// guardSaw is the union of what the guards of an operation saw: its
// inputs and, after it ran, its output. The hints a guard computes may
// quote any of it, so a hint that becomes a value carries it all.
func guardSaw(inputs []*value.Variable, output *value.Variable) taint.Descriptor {
	var c taint.Collector
	for _, v := range inputs {
		if v != nil {
			c.Add(v.Security)
		}
	}
	if output != nil {
		c.Add(output.Security)
	}
	return c.Descriptor()
}

// guardFailure converts what a hooked operation's guards returned into the
// run's error: a denial becomes a GuardError at pos; a retry request is
// passed on for a runner to take.
func guardFailure(err error, pos ast.Pos) error {
	if ie, ok := err.(*Error); ok && ie.Kind == KindGuard {
		return err
	}
	if ge, ok := err.(*guard.Error); ok {
		if ge.Policy != nil {
			return &Error{Kind: KindPolicy, Pos: pos, Message: ge.Error(), Err: ge,
				Hint: "the active policy forbids this label flow; change the data's labels or the policy, allow it with a privileged guard (unless the policy is locked), or handle the denial with a denied => arm"}
		}
		if ge.Failed {
			return guardBroke(ge, pos)
		}
		return &Error{Kind: KindGuard, Pos: pos, Message: ge.Error(), Err: ge,
			Hint: "a guard refused this operation; change the data's labels, the guard, or handle the denial with a denied => arm"}
	}
	return err
}

// guardBroke is the error of a guard that failed while deciding the
// operation at pos: positioned where the guard failed (the error it
// raised, which it wraps), naming the guard and the operation it was
// deciding.
func guardBroke(ge *guard.Error, pos ast.Pos) error {
	if pos.Line == 0 {
		pos = opPos(ge.Op, pos)
	}
	at, cause := pos, ""
	var ce *Error
	if errors.As(ge.Cause, &ce) {
		cause = ce.Message
		if ce.Pos.Line > 0 {
			at = ce.Pos
		}
	} else if ge.Cause != nil {
		cause = ge.Cause.Error()
	}
	who := "a guard"
	var b strings.Builder
	if g := ge.Guard; g != nil {
		who = "guard " + g.Label()
		b.WriteString(who + " failed: " + cause)
		b.WriteString("\n  Guard: " + g.Label())
		if g.Name != "" {
			b.WriteString(" (for " + g.Filter() + ")")
		}
	} else {
		b.WriteString("a guard failed: " + cause)
	}
	if ge.Op != nil {
		b.WriteString("\n  Operation: " + guard.OpLabel(ge.Op))
		if pos.Line > 0 {
			b.WriteString(" at " + pos.String())
		}
	}
	return &Error{Kind: KindGuardFailed, Pos: at, Message: b.String(), Err: ge,
		Hint: who + " raised an error instead of deciding, so the operation was denied (fail closed); fix the guard (or the helper it calls): it is not a refusal of this data"}
}

// asGuardError finds a guard denial in err.
func asGuardError(err error) *guard.Error {
	var ge *guard.Error
	if errors.As(err, &ge) {
		return ge
	}
	return nil
}

// asRetrySignal finds an unanswered after-phase retry in err.
func asRetrySignal(err error) *guard.RetrySignal {
	if err == nil {
		// errors.As would make rs escape: one allocation per operation.
		return nil
	}
	var rs *guard.RetrySignal
	if errors.As(err, &rs) {
		return rs
	}
	return nil
}

// deniedHandler returns the when body of an exe that has `denied` arms
// (SPEC §5.11).
func deniedHandler(x *exe) (*ast.WhenExpr, bool) {
	w, ok := x.body.(*ast.WhenExpr)
	if !ok {
		return nil, false
	}
	for _, arm := range w.Arms {
		if arm.Kind == ast.ArmCond && mentionsDenied(arm.Cond) {
			return w, true
		}
	}
	return nil, false
}

// mentionsDenied reports whether a condition refers to `denied`.
func mentionsDenied(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if _, ok := n.(*ast.DeniedExpr); ok {
			found = true
		}
		return !found
	})
	return found
}

// runDeniedHandler evaluates an exe's when body in deny mode: only arms
// whose condition mentions `denied` are considered, first match wins, the
// parameters hold the original arguments, and `@mx.guard` describes the
// denial. The branch value is the call's result and keeps its labels
// (PORT of SPEC §10 P2). With no matching arm the denial stands.
func (in *interp) runDeniedHandler(ce *env, x *exe, w *ast.WhenExpr, ge *guard.Error, args []*value.Variable, pos ast.Pos) (*value.Variable, error) {
	de := ce.child()
	de.denied = true
	if _, ok := de.lookup("input"); !ok {
		if ge.Input != nil {
			de.sc.vars["input"] = ge.Input
		} else {
			de.sc.vars["input"] = undefined()
		}
	}
	if _, ok := de.lookup("output"); !ok {
		if ge.Input != nil {
			de.sc.vars["output"] = derived(rawText(ge.Input), ge.Input)
		} else {
			de.sc.vars["output"] = value.New("")
		}
	}
	in.mx.Guard.Push(hooks.GuardFrame{Fields: deniedFields(ge), Ambient: deniedAmbient(ge, args)})
	defer in.mx.Guard.Pop()
	for _, arm := range w.Arms {
		if arm.Let {
			if d, ok := arm.Action.(ast.Directive); ok {
				if _, err := in.execStatement(de, d); err != nil {
					return nil, err
				}
			}
			continue
		}
		if arm.Kind != ast.ArmCond || !mentionsDenied(arm.Cond) {
			continue
		}
		ok, err := in.evalCond(de, arm.Cond)
		if err != nil {
			return nil, atPos(err, KindUnexpected, arm.Pos)
		}
		if !ok {
			continue
		}
		in.out.writeStderr("[Guard Warning] " + ge.Reason + "\n")
		if cover := in.opts.Cover; cover != nil {
			cover(arm.Pos)
		}
		v, isValue, err := in.evalAction(de, arm.Action, false)
		if err != nil {
			return nil, atPos(err, KindUnexpected, arm.Pos)
		}
		if !isValue || v == nil {
			return undefined(), nil
		}
		return v, nil
	}
	if ge.Timing == guard.After {
		in.out.writeStderr("[Guard Warning] " + ge.Reason + "\n")
	}
	return nil, guardFailure(ge, pos)
}

// deniedFields is `@mx.guard` inside a denied handler.
func deniedFields(ge *guard.Error) *value.Variable {
	o := value.NewRecord()
	var saw taint.Descriptor
	if ge.Input != nil {
		saw = ge.Input.Security
	}
	if ge.Guard != nil && ge.Guard.Name != "" {
		o.SetData("name", ge.Guard.Name)
	} else {
		o.SetData("name", nil)
	}
	o.SetData("reason", ge.Reason)
	reasons := make([]any, len(ge.Reasons))
	for i, r := range ge.Reasons {
		reasons[i] = r
	}
	// Reasons include retry hints, which guards compute.
	o.Set("reasons", &value.Variable{Data: reasons, Security: saw})
	o.SetData("decision", ge.Decision.String())
	trace, hints, _ := traceObjects(ge.Results, saw)
	o.Set("hints", hints)
	o.Set("trace", trace)
	setAttempts(o, ge.Try, guard.MaxTries, ge.History, saw)
	o.SetData("timing", ge.Timing.String())
	o.SetData("filter", ge.Filter())
	if ge.Policy != nil {
		o.SetData("rule", ge.Policy.Rule)
	}
	if ge.Input != nil {
		o.Set("input", ge.Input)
	}
	return o.Variable()
}

func deniedAmbient(ge *guard.Error, args []*value.Variable) *value.Variable {
	o := value.NewRecord()
	var d taintOf
	if ge.Input != nil {
		d = taintOf{ge.Input.Security.Labels(), ge.Input.Security.Taint(), ge.Input.Security.Sources()}
	}
	o.SetData("labels", stringList(d.labels))
	o.SetData("taint", stringList(d.taint))
	o.SetData("sources", stringList(d.sources))
	o.SetData("denied", true)
	c := &hooks.Call{Op: ge.Op, Inputs: args}
	o.Set("args", argsObject(c))
	return o.Variable()
}

type taintOf struct{ labels, taint, sources []string }

// checkGuardRules rejects rules a guard cannot act on: a retry needs a
// hint (SPEC §5.1).
func checkGuardRules(d *ast.GuardDirective) error {
	for _, arm := range d.Body.Arms {
		a := arm.Action
		if s, ok := a.(*ast.ExprStmt); ok {
			a = s.Value
		}
		if r, ok := a.(*ast.RetryExpr); ok && r.Hint == nil {
			return newError(KindGuard, r.Pos, `give the retry a quoted hint: retry "try a shorter answer"`,
				`Guard retry actions require a hint: retry "hint"`)
		}
	}
	return nil
}

// setAttempts sets the retry fields of `@mx.guard`: try and attempt (the
// current attempt), max, and tries / hintHistory (the earlier ones).
func setAttempts(o *value.Record, try, max int, history []guard.Attempt, saw taint.Descriptor) {
	o.SetData("try", float64(try))
	o.SetData("attempt", float64(try))
	tries := make([]any, 0, len(history))
	hints := make([]any, 0, len(history))
	for _, a := range history {
		t := value.NewObject()
		t.Set("attempt", float64(a.Attempt))
		t.Set("decision", a.Decision.String())
		t.Set("hint", a.Hint)
		tries = append(tries, t)
		hints = append(hints, a.Hint)
	}
	o.Set("tries", &value.Variable{Data: tries, Security: saw})
	o.SetData("max", float64(max))
	o.Set("hintHistory", &value.Variable{Data: hints, Security: saw})
}
