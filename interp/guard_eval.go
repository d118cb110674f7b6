package interp

import (
	"fmt"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// evalGuard runs one guard's rules (SPEC §5.6, §5.7): the first rule whose
// condition holds decides; no match allows. It runs inside the guard
// pre/post hook, so operations it causes are not guarded. Any error
// (a failing condition, helper or action) is returned and the engine
// denies the operation.
//
// A guard compiled when it registered decides without an environment
// (guard_compile.go); otherwise the rules are interpreted, and only the
// parts of the guard context its rules can reach are built.
func (in *interp) evalGuard(ev *guard.Evaluation) (out guard.Outcome, err error) {
	p, _ := ev.Guard.Plan.(*guardPlan)
	if p == nil {
		// Every guard is planned when it is made (execGuard); a guard is
		// shared by a Machine's decisions and never written here.
		p = planGuard(ev.Guard.Rules)
	}
	if cover := in.opts.Cover; cover != nil {
		cover(ev.Guard.Pos)
	}
	if p.arms != nil && !in.opts.paths.wholeGuards && in.opts.Cover == nil {
		if out, ok, err := in.runCompiled(p, ev); ok {
			return out, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			switch v := r.(type) {
			case *value.LimitError:
				err = v
			case *value.InterruptedError:
				err = v
			default:
				err = fmt.Errorf("internal error: %v", r)
			}
		}
	}()
	gx := &guardCtx{ev: ev}
	ge := in.guardEnv(ev)
	full := p.opaque || in.opts.paths.wholeGuards
	if !full && containsString(p.helpers, "tagValue") {
		// A user @tagValue of the guard's own scope replaces the helper,
		// and may read anything of the guard's context.
		if _, ok := ge.lookup("tagValue"); ok {
			full = true
		}
	}
	if full || p.usesInput {
		ge.sc.vars["input"] = gx.input()
	}
	if full || p.usesOutput {
		ge.sc.vars["output"] = guardOutput(ev)
	}
	if full {
		bindGuardHelpers(ge, ev, gx.base())
	} else if len(p.helpers) > 0 {
		bindHelpers(ge, ev, gx.base(), p.helpers)
	}
	var frame hooks.GuardFrame
	if full || p.fields || p.calls {
		// Built when read: an opaque guard (one calling an exe, say)
		// rarely reads @mx.guard, and building it costs more than the
		// rest of the guard's context.
		var fields *value.Variable
		frame.BuildFields = func() *value.Variable {
			if fields == nil {
				fields = guardFields(gx)
			}
			return fields
		}
	}
	if full || p.fields || p.ambient || p.calls {
		frame.Ambient = guardAmbient(ev, gx.base())
		frame.Tools = gx.base().Security.Tools()
	}
	in.mx.Guard.Push(frame)
	defer in.mx.Guard.Pop()
	for _, arm := range ev.Guard.Rules.Arms {
		if err := in.checkCtx(arm.Pos); err != nil {
			return out, err
		}
		if arm.Let {
			if d, ok := arm.Action.(ast.Directive); ok {
				if _, err := in.execStatement(ge, d); err != nil {
					return out, err
				}
			}
			continue
		}
		if arm.Kind == ast.ArmCond {
			ok, err := in.evalCond(ge, arm.Cond)
			if err != nil {
				return out, err
			}
			if !ok {
				continue
			}
		}
		if cover := in.opts.Cover; cover != nil {
			cover(arm.Pos)
		}
		return in.guardAction(ge, ev, gx.base(), arm.Action)
	}
	return guard.Outcome{Action: guard.Allow}, nil
}

// guardCtx builds the values of a guard's context on first use.
type guardCtx struct {
	ev     *guard.Evaluation
	in, bv *value.Variable
}

// input is @input.
func (g *guardCtx) input() *value.Variable {
	if g.in == nil {
		g.in = guardInput(g.ev)
	}
	return g.in
}

// base is guardBase; a per-operation base that is the input list shares
// @input.
func (g *guardCtx) base() *value.Variable {
	if g.bv == nil {
		ev := g.ev
		if ev.Scope == guard.PerOperation && ev.Input == nil && len(ev.Inputs) > 0 &&
			!(ev.Phase == guard.After && ev.Output != nil) {
			g.bv = g.input()
		} else {
			g.bv = guardBase(ev)
		}
	}
	return g.bv
}

// guardEnv is the environment one evaluation of a guard body runs in: a
// child of the scope where the guard was defined (its own module's for
// an imported guard), never of the calling code's. So nothing the caller
// binds (a parameter, a let, a local exe) changes what a guard reads;
// only the operation's pipeline frame (`@p`, `@mx.pipe`) comes from the
// call. The caller binds @input, @output and helpers.
func (in *interp) guardEnv(ev *guard.Evaluation) *env {
	de, _ := ev.Guard.Env.(*env)
	ce, _ := ev.Call.Env.(*env)
	if de == nil {
		// Every registered guard has its defining env; fail closed with
		// a bare one (the root of the main script) rather than the
		// caller's.
		de = in.rootEnv(in.main)
	}
	ge := *de
	// The guard runs in this evaluation, whatever evaluation defined it.
	ge.in = in
	ge.sc = newScope(de.sc)
	ge.pipe = nil
	if ce != nil {
		ge.pipe = ce.pipe
	}
	ge.lenient = false
	ge.strictRefs = true
	ge.interpolated = nil
	ge.denied = false
	ge.override = nil
	return &ge
}

// guardInput is @input: the guarded value, or the list of inputs of a
// per-operation guard.
func guardInput(ev *guard.Evaluation) *value.Variable {
	if ev.Scope == guard.PerInput {
		if ev.Input == nil {
			return undefined()
		}
		return ev.Input
	}
	return inputList(ev.Inputs)
}

// inputList makes a per-operation @input: an array of the inputs' data
// whose descriptor is their union and whose items keep their own.
func inputList(items []*value.Variable) *value.Variable {
	data := make([]any, len(items))
	var c taint.Collector
	for i, it := range items {
		data[i] = it.Data
		c.Add(it.Security)
	}
	v := value.New(data)
	v.Security = c.Descriptor()
	if items == nil {
		// An operation without inputs still has a list: `.any` over it is
		// false, `.all` true, not a field of undefined.
		items = []*value.Variable{}
	}
	v.Items = items
	return v
}

// guardOutput is @output: before, the text of the guarded value (the
// first input for operation guards, "" without inputs); after, the
// current output.
func guardOutput(ev *guard.Evaluation) *value.Variable {
	if ev.Phase == guard.After && ev.Output != nil {
		return ev.Output
	}
	src := ev.Input
	if src == nil && len(ev.Inputs) > 0 {
		src = ev.Inputs[0]
	}
	if src == nil {
		return value.New("")
	}
	v := value.New(rawText(src))
	v.Security = src.Security
	return v
}

// guardBase is the value whose descriptor a replacement keeps and whose
// labels `@mx.labels` shows.
func guardBase(ev *guard.Evaluation) *value.Variable {
	if ev.Phase == guard.After && ev.Output != nil {
		if ev.Scope == guard.PerInput && ev.Input != nil {
			return ev.Input
		}
		return ev.Output
	}
	if ev.Input != nil {
		return ev.Input
	}
	if len(ev.Inputs) > 0 {
		if ev.Scope == guard.PerOperation {
			return inputList(ev.Inputs)
		}
		return ev.Inputs[0]
	}
	return value.New("")
}

// guardAction turns the matched rule's action into an outcome.
func (in *interp) guardAction(ge *env, ev *guard.Evaluation, base *value.Variable, action ast.Node) (guard.Outcome, error) {
	if s, ok := action.(*ast.ExprStmt); ok {
		action = s.Value
	}
	who := ev.Guard.Label()
	switch a := action.(type) {
	case *ast.AllowExpr:
		out := guard.Outcome{Action: guard.Allow, Matched: true}
		var rep *value.Variable
		if a.Value != nil {
			v, err := in.evalExpr(ge, a.Value)
			if err != nil {
				return out, err
			}
			rep = replacementOf(base, v, ev)
		}
		if a.With != nil {
			opts, err := in.evalExpr(ge, a.With)
			if err != nil {
				return out, err
			}
			o, _ := opts.Data.(*value.Object)
			if o != nil {
				var mods []string
				for _, l := range stringsOf(o.Values["addLabels"]) {
					mods = append(mods, l)
				}
				for _, l := range stringsOf(o.Values["removeLabels"]) {
					mods = append(mods, "!"+l)
				}
				if w, ok := o.Values["warning"]; ok {
					out.Warning = value.Text(w)
				}
				notesOf(o, &out)
				if len(mods) > 0 {
					if rep == nil {
						rep = base
						if ev.Phase == guard.After && ev.Output != nil {
							rep = ev.Output
						}
					}
					d, err := applyLabelMods(rep.Security, mods, labelAuthority{privileged: ev.Guard.Privileged, who: who, policy: &in.policy})
					if err != nil {
						return out, err
					}
					c := *rep
					c.Security = d
					rep = &c
				}
			}
		}
		out.Replacement = rep
		return out, nil
	case *ast.DenyExpr:
		out := guard.Outcome{Action: guard.Deny, Matched: true, Reason: a.Reason}
		if a.Template != nil {
			r, err := in.reasonText(ge, "deny reason", a.Template)
			if err != nil {
				return guard.Outcome{}, err
			}
			out.Reason = r
		}
		return out, in.actionWith(ge, a.With, &out)
	case *ast.AskExpr:
		out := guard.Outcome{Action: guard.Ask, Matched: true, Question: a.Question}
		if a.Template != nil {
			q, err := in.reasonText(ge, "ask question", a.Template)
			if err != nil {
				return guard.Outcome{}, err
			}
			out.Question = q
		}
		return out, in.actionWith(ge, a.With, &out)
	case *ast.RetryExpr:
		out := guard.Outcome{Action: guard.Retry, Matched: true}
		if a.Hint != nil {
			h, err := in.evalExpr(ge, a.Hint)
			if err != nil {
				return out, err
			}
			out.Hint = value.Text(h.Data)
		}
		return out, in.actionWith(ge, a.With, &out)
	case *ast.LabelExpr:
		v, err := in.evalExpr(ge, a.Value)
		if err != nil {
			return guard.Outcome{}, err
		}
		changed := !value.Equal(base.Data, v.Data)
		rep := replacementOf(base, v, ev)
		d, err := applyLabelMods(rep.Security, a.Labels, labelAuthority{privileged: ev.Guard.Privileged, who: who, policy: &in.policy})
		if err != nil {
			return guard.Outcome{}, err
		}
		rep.Security = d
		return guard.Outcome{Action: guard.Allow, Matched: true, Replacement: rep, Relabel: changed}, nil
	}
	return guard.Outcome{}, newError(KindGuard, action.Position(), "end each rule with allow, allow @value, deny \"reason\" or retry \"hint\"",
		"guard %s: a rule's action must be allow, deny, retry or a label change", who)
}

// actionWith evaluates the with-clause of a deny, retry or ask action
// into out (the grammar allows only context, message and warning there).
func (in *interp) actionWith(ge *env, with *ast.ObjectLit, out *guard.Outcome) error {
	if with == nil {
		return nil
	}
	opts, err := in.evalExpr(ge, with)
	if err != nil {
		return err
	}
	if o, _ := opts.Data.(*value.Object); o != nil {
		if w, ok := o.Values["warning"]; ok {
			out.Warning = value.Text(w)
		}
		notesOf(o, out)
	}
	return nil
}

// notesOf copies a with-clause's `context` (for the agent) and `message`
// (for its user) into out.
func notesOf(o *value.Object, out *guard.Outcome) {
	if c, ok := o.Values["context"]; ok {
		out.Context = value.Text(c)
	}
	if m, ok := o.Values["message"]; ok {
		out.Message = value.Text(m)
	}
}

// replacementOf is a guard's replacement value: its own data, carrying
// the guarded value's descriptor merged with its own (SPEC §5.8).
func replacementOf(base, v *value.Variable, ev *guard.Evaluation) *value.Variable {
	c := *v
	c.Items = nil
	src := base
	if ev.Phase == guard.After && ev.Output != nil {
		src = ev.Output
	}
	c.Security = src.Security.Merge(v.Security)
	return &c
}

func stringsOf(x any) []string {
	switch v := x.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			out = append(out, value.Text(e))
		}
		return out
	}
	return nil
}

// guardFields is `@mx.guard` (SPEC §5.6).
func guardFields(gx *guardCtx) *value.Variable {
	ev := gx.ev
	base := gx.base()
	g := ev.Guard
	o := value.NewRecord()
	if g.Name != "" {
		o.SetData("name", g.Name)
	} else {
		o.SetData("name", nil)
	}
	saw := guardSaw(ev.Inputs, ev.Output)
	if ev.Input != nil {
		saw = saw.Merge(ev.Input.Security)
	}
	setAttempts(o, ev.Try, ev.Max, ev.History, saw)
	if ev.Phase == guard.After {
		o.SetData("timing", "after")
	} else {
		o.SetData("timing", "before")
	}
	o.Set("input", gx.input())
	o.Set("output", guardOutput(ev))
	o.SetData("labels", stringList(base.Security.Labels()))
	o.SetData("taint", stringList(base.Security.Taint()))
	o.SetData("sources", stringList(base.Security.Sources()))
	trace, hintObjs, reasons := traceObjects(ev.Trace, saw)
	o.Set("trace", trace)
	o.Set("hints", hintObjs)
	o.Set("reasons", reasons)
	if r, ok := reasons.Member("0"); ok {
		o.Set("reason", r)
	} else {
		o.SetData("reason", nil)
	}
	o.SetData("filter", g.Filter())
	o.Set("args", argsObject(ev.Call))
	return o.Variable()
}

// guardAmbient are the `@mx` keys a guard sees besides `guard`.
func guardAmbient(ev *guard.Evaluation, base *value.Variable) *value.Variable {
	o := value.NewRecord()
	o.SetData("labels", stringList(base.Security.Labels()))
	o.SetData("taint", stringList(base.Security.Taint()))
	o.SetData("sources", stringList(base.Security.Sources()))
	o.Set("args", argsObject(ev.Call))
	return o.Variable()
}

// traceObjects renders guard results as `@mx.guard.trace`, `.hints` and
// `.reasons`. A trace entry holds the guard's replacement with its
// descriptor; hints (and the reasons, which include them) are computed by
// guards that saw saw, and carry it.
func traceObjects(rs []guard.Result, saw taint.Descriptor) (trace, hints, reasons *value.Variable) {
	entries := make([]*value.Variable, 0, len(rs))
	var hintList, reasonList []*value.Variable
	for _, r := range rs {
		t := value.NewRecord()
		name := any(nil)
		if r.Guard.Name != "" {
			name = r.Guard.Name
		}
		t.SetData("guardName", name)
		t.SetData("decision", r.Action.String())
		if r.Reason != "" {
			t.SetData("reason", r.Reason)
		} else {
			t.SetData("reason", nil)
		}
		if r.Action == guard.Retry {
			h := value.NewRecord()
			h.SetData("guardName", name)
			h.Set("hint", &value.Variable{Data: r.Hint, Security: saw})
			hv := h.Variable()
			t.Set("hint", hv)
			hintList = append(hintList, hv)
			reasonList = append(reasonList, &value.Variable{Data: r.Hint, Security: saw})
		} else {
			t.SetData("hint", nil)
		}
		if r.Action == guard.Deny {
			reasonList = append(reasonList, value.New(r.Reason))
		}
		if r.Replacement != nil {
			t.Set("replacement", r.Replacement)
		} else {
			t.SetData("replacement", nil)
		}
		t.SetData("timing", r.Timing.String())
		t.SetData("scope", r.Scope.String())
		entries = append(entries, t.Variable())
	}
	return value.ListOf(entries), value.ListOf(hintList), value.ListOf(reasonList)
}

// argsObject is `@mx.args`: the operation's inputs by parameter name,
// each with its descriptor, and `names`.
func argsObject(c *hooks.Call) *value.Variable {
	o := value.NewRecord()
	var names []string
	if c.Op != nil {
		names = c.Op.Params
	}
	for i, name := range names {
		if name == "" || i >= len(c.Inputs) || c.Inputs[i] == nil {
			continue
		}
		o.Set(name, c.Inputs[i])
	}
	if _, taken := o.Get("names"); !taken {
		list := make([]any, len(names))
		for i, n := range names {
			list[i] = n
		}
		o.SetData("names", list)
	}
	return o.Variable()
}
