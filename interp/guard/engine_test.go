package guard

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// fixture is a registry whose guards decide what decide says, recording
// every evaluation.
type fixture struct {
	reg    *Registry
	en     *Engine
	decide map[string]Outcome
	fail   map[string]error
	seen   []string
	tries  []int
}

func newFixture(t *testing.T, guards ...*ast.GuardDirective) *fixture {
	f := &fixture{reg: NewRegistry(), decide: map[string]Outcome{}, fail: map[string]error{}}
	for _, d := range guards {
		require.NoError(t, f.reg.Add(New(d, nil)))
	}
	f.en = NewEngine(f.reg, func(ev *Evaluation) (Outcome, error) {
		name := ev.Guard.Label()
		tag := name + "/" + ev.Scope.String()
		if ev.Scope == PerInput {
			tag += ":" + value.Text(ev.Input.Data)
		}
		f.seen = append(f.seen, tag)
		f.tries = append(f.tries, ev.Try)
		if err := f.fail[name]; err != nil {
			return Outcome{}, err
		}
		return f.decide[name], nil
	})
	return f
}

func gd(name, timing, trigger string) *ast.GuardDirective {
	return &ast.GuardDirective{Name: name, Timing: timing, Trigger: trigger, Body: &ast.WhenExpr{}}
}

func labelled(text string, labels ...string) *value.Variable {
	v := value.New(text)
	v.Security = taint.New(labels...)
	return v
}

func exeCall(inputs ...*value.Variable) *hooks.Call {
	return &hooks.Call{Op: &hooks.OperationContext{Type: "exe", Name: "f"}, Inputs: inputs}
}

func deny(reason string) Outcome { return Outcome{Action: Deny, Matched: true, Reason: reason} }
func retry(hint string) Outcome  { return Outcome{Action: Retry, Matched: true, Hint: hint} }

func TestSelectionPerInputByLabels(t *testing.T) {
	f := newFixture(t, gd("s", "before", "secret"), gd("p", "before", "pii"), gd("s2", "before", "secret"))
	d := f.en.Before(exeCall(labelled("a", "secret", "pii"), labelled("b", "pii"), labelled("c")), Options{})
	require.Equal(t, Allow, d.Action)
	// Per input, in registration order, each guard once per input.
	require.Equal(t, []string{"@s/perInput:a", "@p/perInput:a", "@s2/perInput:a", "@p/perInput:b"}, f.seen)
}

func TestSelectionPerOperationKeys(t *testing.T) {
	f := newFixture(t,
		gd("exe", "before", "op:exe"), gd("cmd", "before", "op:cmd"), gd("run", "before", "op:run"),
		gd("git", "before", "op:cmd:git"), gd("fn", "before", "@f"), gd("other", "before", "@g"),
		gd("show", "before", "op:show"))
	c := exeCall(labelled("a"))
	c.Op.OpLabels = []string{"op:cmd", "op:cmd:git:push"}
	f.en.Before(c, Options{})
	require.Equal(t, []string{"@exe/perOperation", "@cmd/perOperation", "@run/perOperation",
		"@git/perOperation", "@fn/perOperation"}, f.seen)

	// The hierarchical filter matches a label or its descendants only.
	f.seen = nil
	c.Op.OpLabels = []string{"op:cmd", "op:cmd:gitx"}
	f.en.Before(c, Options{})
	require.NotContains(t, f.seen, "@git/perOperation")

	// A run directive exposes exe and cmd.
	f.seen = nil
	f.en.Before(&hooks.Call{Op: &hooks.OperationContext{Type: "run", Subtype: "runCommand"}}, Options{})
	require.Equal(t, []string{"@exe/perOperation", "@cmd/perOperation", "@run/perOperation"}, f.seen)
}

func TestDataGuardOnExeLabel(t *testing.T) {
	f := newFixture(t, gd("s", "before", "secret"))
	c := exeCall(labelled("a"))
	c.Op.Labels = []string{"secret"}
	f.en.Before(c, Options{})
	require.Equal(t, []string{"@s/perOperation"}, f.seen)

	// Not without inputs (the exe's definition).
	f.seen = nil
	c.Inputs = nil
	f.en.Before(c, Options{})
	require.Empty(t, f.seen)

	// Not twice: selected per input, it is not run per operation.
	f.seen = nil
	c.Inputs = []*value.Variable{labelled("a", "secret")}
	f.en.Before(c, Options{})
	require.Equal(t, []string{"@s/perInput:a"}, f.seen)
}

func TestOverrides(t *testing.T) {
	priv := gd("priv", "before", "secret")
	priv.Privileged = true
	f := newFixture(t, gd("a", "before", "secret"), gd("", "before", "secret"), priv)
	in := labelled("x", "secret")
	for _, tc := range []struct {
		o    *Override
		want []string
	}{
		{nil, []string{"@a/perInput:x", "data:secret/perInput:x", "@priv/perInput:x"}},
		{&Override{Disabled: true}, []string{"@priv/perInput:x"}},
		{&Override{Only: []string{"a"}}, []string{"@a/perInput:x", "@priv/perInput:x"}},
		{&Override{Except: []string{"a", "priv"}}, []string{"data:secret/perInput:x", "@priv/perInput:x"}},
	} {
		f.seen = nil
		f.en.Before(exeCall(in), Options{Override: tc.o})
		require.Equal(t, tc.want, f.seen, "%+v", tc.o)
	}
}

func TestReduction(t *testing.T) {
	type step struct{ name, kind string }
	cases := []struct {
		name    string
		guards  []*ast.GuardDirective
		decide  map[string]Outcome
		phase   Timing
		opts    Options
		action  Action
		reason  string
		reasons []string
		guard   string
	}{
		{"per-input deny then retry", []*ast.GuardDirective{gd("d", "before", "secret"), gd("r", "before", "secret")},
			map[string]Outcome{"@d": deny("no"), "@r": retry("again")}, Before, Options{Pipeline: true},
			Deny, "no", []string{"no", "again"}, "@d"},
		{"per-op deny then retry before", []*ast.GuardDirective{gd("d", "before", "op:exe"), gd("r", "before", "op:exe")},
			map[string]Outcome{"@d": deny("no"), "@r": retry("again")}, Before, Options{Pipeline: true},
			Retry, "no", []string{"no", "again"}, "@d"},
		{"per-op retry then deny before", []*ast.GuardDirective{gd("r", "before", "op:exe"), gd("d", "before", "op:exe")},
			map[string]Outcome{"@d": deny("no"), "@r": retry("again")}, Before, Options{Pipeline: true},
			Deny, "again", []string{"again", "no"}, "@r"},
		{"after deny then retry", []*ast.GuardDirective{gd("d", "after", "op:exe"), gd("r", "after", "op:exe")},
			map[string]Outcome{"@d": deny("no"), "@r": retry("again")}, After, Options{},
			Deny, "no", []string{"no", "again"}, "@d"},
		{"after retry then deny", []*ast.GuardDirective{gd("r", "after", "op:exe"), gd("d", "after", "op:exe")},
			map[string]Outcome{"@d": deny("no"), "@r": retry("again")}, After, Options{},
			Deny, "again", []string{"again", "no"}, "@r"},
		{"multiple denies keep order", []*ast.GuardDirective{gd("a", "before", "op:exe"), gd("b", "before", "op:exe")},
			map[string]Outcome{"@a": deny("first"), "@b": deny("second")}, Before, Options{},
			Deny, "first", []string{"first", "second"}, "@a"},
		{"retry outside a pipeline", []*ast.GuardDirective{gd("r", "before", "op:exe")},
			map[string]Outcome{"@r": retry("again")}, Before, Options{},
			Deny, ReasonNeedsPipeline, []string{"again"}, "@r"},
		{"retry of an effect", []*ast.GuardDirective{gd("r", "before", "op:exe")},
			map[string]Outcome{"@r": retry("again")}, Before, Options{Pipeline: true, Effect: true},
			Deny, "Guard retry not supported for effects: again", []string{"again"}, "@r"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.guards...)
			f.decide = tc.decide
			c := exeCall(labelled("x", "secret"))
			var d Decision
			if tc.phase == After {
				d = f.en.After(c, labelled("out"), tc.opts)
			} else {
				d = f.en.Before(c, tc.opts)
			}
			require.Equal(t, tc.action, d.Action)
			require.NotNil(t, d.Err)
			require.Equal(t, tc.reason, d.Err.Reason)
			require.Equal(t, tc.reasons, d.Reasons)
			require.Equal(t, tc.guard, d.Err.Guard.Label())
			require.Len(t, d.Results, len(tc.guards))
		})
	}
}

func TestFailingGuardDeniesAndStops(t *testing.T) {
	f := newFixture(t, gd("bad", "before", "op:exe"), gd("", "before", "op:exe"))
	f.fail["@bad"] = errors.New("boom")
	d := f.en.Before(exeCall(labelled("x")), Options{})
	require.Equal(t, Deny, d.Action)
	require.Equal(t, "guard @bad failed: boom", d.Err.Reason)
	require.ErrorContains(t, d.Err.Unwrap(), "boom")
	require.Equal(t, []string{"@bad/perOperation"}, f.seen, "evaluation stops at a failure")
}

func TestErrorMessage(t *testing.T) {
	g := New(gd("nosecret", "before", "secret"), nil)
	op := &hooks.OperationContext{Type: "show", Subtype: "showVariable"}
	e := &Error{Guard: g, Op: op, Reason: "no secrets", Decision: Deny}
	require.Equal(t, "Guard blocked operation: no secrets\n  Guard: @nosecret (for data:secret)\n  Operation: /show (showVariable)", e.Error())
	require.Equal(t, "@nosecret", e.GuardName())

	u := New(gd("", "before", "op:exe"), nil)
	e = &Error{Guard: u, Op: &hooks.OperationContext{Type: "exe"}, Reason: "x", RetryHint: "shorter", Decision: Deny}
	require.Equal(t, "Guard retry failed: x\n  Guard: operation:exe\n  Operation: /exe\n  Hint: shorter", e.Error())
	require.Equal(t, "", e.GuardName())
	require.Equal(t, "operation:exe", e.Filter())
}

func TestRetryAttempts(t *testing.T) {
	f := newFixture(t, gd("r", "after", "op:exe"))
	f.decide["@r"] = retry("again")
	c := exeCall(labelled("x"))
	out := labelled("o")
	for try := 1; try <= 2; try++ {
		d := f.en.After(c, out, Options{})
		require.Equal(t, Retry, d.Action, "try %d", try)
		require.Equal(t, Retry, d.Err.Decision)
		require.Equal(t, "again", d.Err.RetryHint)
	}
	d := f.en.After(c, out, Options{})
	require.Equal(t, Deny, d.Action)
	require.Equal(t, ReasonLimitPrefix+" (3)", d.Err.Reason)
	require.Equal(t, []int{1, 2, 3}, f.tries)
	require.Len(t, d.Err.History, 2)

	// A decision other than retry ends the operation's attempts.
	f.tries = nil
	f.decide["@r"] = Outcome{}
	require.Equal(t, Allow, f.en.After(c, out, Options{}).Action)
	f.decide["@r"] = retry("again")
	f.en.After(c, out, Options{})
	require.Equal(t, []int{1, 1}, f.tries)
	require.Empty(t, f.en.attempts[attemptKey(After, c.Op)].history[1:])
}

func TestAllowAllocatesNothing(t *testing.T) {
	f := newFixture(t, gd("s", "before", "secret"), gd("p", "before", "pii"), gd("o", "before", "op:exe"))
	f.en.Eval = func(*Evaluation) (Outcome, error) { return Outcome{}, nil }
	c := exeCall(labelled("a", "secret"), labelled("b", "pii"), labelled("c"))
	f.en.Before(c, Options{})
	allocs := testing.AllocsPerRun(100, func() { f.en.Before(c, Options{}) })
	require.Zero(t, allocs)
}
