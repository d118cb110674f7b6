package agent

import (
	"context"
	"github.com/guardrun/guardrun"
	"time"

	"github.com/guardrun/guardrun/interp/value"
)

// flow is an event's data as the chain passes it along: hooks see and
// change the Go form, guard scripts the Variables (with the session's
// labels).
type flow struct {
	input   map[string]any
	vars    []*value.Variable
	params  []string
	labels  []string
	origins []Origin
	// out is the tool output (tool.after), nil before.
	out          *value.Variable
	inputChanged bool
	retryDelay   time.Duration
}

// hookVerdict turns a hook's refusal into a chain verdict.
func hookVerdict(h *Hook, a guardrun.Action, reason string) verdict {
	return verdict{Verdict: guardrun.Verdict{Action: a, Reason: reason, Class: guardrun.ClassHook, Guard: "hook:" + h.Name}}
}

// chain runs an event through the hooks and the guard scripts in priority
// order. The strongest verdict wins (deny > retry > ask > allow); a deny
// ends the chain. op builds the operation for the current data.
func (e *Engine) chain(ctx context.Context, s *Session, ev Event, f *flow, op func(*flow) *guardrun.OperationContext, try int) verdict {
	var best verdict
	var notes []guardrun.Note
	var warnings []string
	skip := false
	consider := func(v verdict) {
		notes = append(notes, v.Notes...)
		warnings = append(warnings, v.Warnings...)
		if rankOf(v.Action) > rankOf(best.Action) {
			best = v
		}
	}
	scriptsRan := false
	rewrittenBy := ""
	runScripts := func() {
		scriptsRan = true
		opFor := func(in []*value.Variable) *guardrun.OperationContext {
			if in == nil || sameData(in, f.vars) {
				return op(f)
			}
			g := *f
			g.vars, g.input = in, goInput(f.params, in)
			return op(&g)
		}
		v, rewritten, out := e.run(ctx, opFor, f.vars, f.out, try, func() *value.Object { return e.toolsObject(s) }, func() *value.Variable { return e.sessionValue(s, ev) }, e.workspaceOf(ev))
		if rewritten != nil {
			f.vars, f.inputChanged = rewritten, true
			f.input = goInput(f.params, rewritten)
		}
		if f.out != nil && out != nil {
			f.out = out
		}
		rewrittenBy = v.rewrittenBy
		consider(v)
	}
	for _, h := range e.hooks {
		if !scriptsRan && h.Priority >= e.cfg.ScriptPriority && best.Action != guardrun.Deny {
			runScripts()
		}
		// After a deny only observers still see the event: they cannot
		// change it, and an audit trail wants the refusals too.
		if (best.Action == guardrun.Deny && !h.Async) || skip || !h.matches(ev, f.input) {
			continue
		}
		in := HookInput{Event: ev, Labels: f.labels}
		in.Event.Input = f.input
		if f.out != nil {
			in.Event.Output = goValue(f.out.Data)
		}
		if h.Async {
			runAsync(h, in)
			continue
		}
		r, err := runHook(ctx, h, in)
		if err != nil {
			v := hookVerdict(h, guardrun.Deny, "hook "+h.Name+" failed: "+err.Error())
			v.Class = guardrun.ClassError
			consider(v)
			continue
		}
		var v verdict
		switch r.Action {
		case Modify:
			if f.out != nil {
				c := *f.out
				c.Data = value.FromGo(r.Output)
				f.out = &c
			} else if r.Input == nil {
				v = hookVerdict(h, guardrun.Deny, "hook "+h.Name+" modified the input to nothing")
				v.Class = guardrun.ClassError
			} else {
				f.input, f.inputChanged = r.Input, true
				f.vars, f.params, f.labels, f.origins = e.inputs(s, r.Input)
			}
		case Deny:
			v = hookVerdict(h, guardrun.Deny, r.Reason)
			v.retryable = r.Retryable
		case Ask:
			v = hookVerdict(h, guardrun.Ask, r.Reason)
		case Retry:
			v = hookVerdict(h, guardrun.Retry, "")
			v.Hint = r.Reason
			if r.RetryDelay > f.retryDelay {
				f.retryDelay = r.RetryDelay
			}
		case Skip:
			skip = true
		}
		if r.Context != "" || r.Message != "" {
			v.Notes = []guardrun.Note{{Guard: "hook:" + h.Name, Context: r.Context, Message: r.Message}}
		}
		consider(v)
	}
	if !scriptsRan && best.Action != guardrun.Deny {
		runScripts()
	}
	best.Notes, best.Warnings = notes, warnings
	best.rewrittenBy = rewrittenBy
	return best
}
