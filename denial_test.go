package guardrun_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/interp/hooks"
)

// runErr compiles and runs src (strict mode) and returns its *Error, which
// must exist.
func runErr(t *testing.T, src string, opts ...guardrun.RunOption) *guardrun.Error {
	t.Helper()
	prg, err := guardrun.Compile("t.mld", []byte(src))
	require.NoError(t, err)
	_, err = prg.Run(context.Background(), append([]guardrun.RunOption{guardrun.WithDir(t.TempDir())}, opts...)...)
	var ge *guardrun.Error
	require.True(t, errors.As(err, &ge), "want a *guardrun.Error, got %v", err)
	return ge
}

// TestGoHookDenialIsTyped: an embedder's pre-hook denial comes back with
// its reason, the hook's name and the labels of the data, as a Denial of
// class hook, and WithExplain receives it like any other denial (on main
// the Reason was empty, the hook named only in the hint, and explain was
// never called).
func TestGoHookDenialIsTyped(t *testing.T) {
	var explained []guardrun.Explanation
	e := runErr(t, "var secret @k = \"s3\"\nexe net:w @post(d) = `sent @d`\nshow @post(@k)\n",
		guardrun.WithHooks(func(m *hooks.Manager) {
			m.RegisterPre("no-exfil", func(c *hooks.Call) (hooks.Decision, error) {
				if c.Op.Type == "exe" && c.Op.Name == "post" && len(c.Inputs) > 0 && c.Inputs[0].Security.HasLabel("secret") {
					return hooks.Decision{Action: hooks.Deny, Reason: "secret data may not reach the network"}, nil
				}
				return hooks.Decision{}, nil
			})
		}),
		guardrun.WithExplain(func(x guardrun.Explanation) { explained = append(explained, x) }))

	require.Equal(t, guardrun.OperationDeniedName, e.Name)
	require.Equal(t, "secret data may not reach the network", e.Reason)
	require.Equal(t, guardrun.Deny, e.Decision)
	require.Equal(t, 3, e.Pos.Line)
	require.NotNil(t, e.Denial)
	require.Equal(t, guardrun.Deny, e.Denial.Action)
	require.Equal(t, guardrun.ClassHook, e.Denial.Class)
	require.Equal(t, "no-exfil", e.Denial.Hook)
	require.Equal(t, "secret data may not reach the network", e.Denial.Reason)
	require.Equal(t, []string{"secret"}, e.Denial.Labels)
	require.False(t, e.Denial.Retryable)
	require.NotEmpty(t, e.Denial.Lineage, "the run had WithExplain: the denial carries the label's lineage")

	require.Len(t, explained, 1, "the explain callback receives every denial, a Go hook's too")
	x := explained[0]
	require.Equal(t, "hook no-exfil", x.Decider)
	require.Equal(t, guardrun.Deny, x.Decision)
	require.Equal(t, "secret data may not reach the network", x.Reason)
	require.Contains(t, x.Labels, "secret")
	require.Equal(t, 3, x.Pos.Line)
}

// TestGoHookFailureIsClassError: a hook that panics denies (fail closed),
// and its denial says the hook failed rather than refused.
func TestGoHookFailureIsClassError(t *testing.T) {
	e := runErr(t, "show \"x\"\n", guardrun.WithHooks(func(m *hooks.Manager) {
		m.RegisterPre("buggy", func(c *hooks.Call) (hooks.Decision, error) { panic("nil map") })
	}))
	require.Equal(t, guardrun.OperationDeniedName, e.Name)
	require.NotNil(t, e.Denial)
	require.Equal(t, guardrun.ClassError, e.Denial.Class)
	require.Equal(t, "buggy", e.Denial.Hook)
	require.Contains(t, e.Reason, "nil map")
}

// TestGuardDenialIsTyped: a guard's deliberate deny is a GuardError whose
// Denial names the guard and the label it fired on.
func TestGuardDenialIsTyped(t *testing.T) {
	e := runErr(t, "var secret @k = \"s3\"\nguard @nosecret before secret = when [ * => deny \"no secrets shown\" ]\nshow @k\n")
	require.Equal(t, guardrun.GuardErrorName, e.Name)
	require.Equal(t, "a guard refused this operation; change the data's labels, the guard, or handle the denial with a denied => arm", e.Hint)
	require.Equal(t, &guardrun.Denial{Action: guardrun.Deny, Class: guardrun.ClassGuard, Guard: "@nosecret",
		Reason: "no secrets shown", Labels: []string{"secret"}, Retryable: true}, e.Denial)
}

// TestGuardFailureIsNotADenial: a guard that raises an error is a
// GuardFailure, positioned where the guard failed (not at the operation),
// unwrapping to the failure, with a hint that does not read as a refusal
// (on main it was a GuardError at the operation, "a guard refused this
// operation").
func TestGuardFailureIsNotADenial(t *testing.T) {
	src := "var secret @k = \"s3\"\n" +
		"guard @g before secret = when [\n" +
		"  @input.nosuchmethod() == \"x\" => deny \"bad\"\n" +
		"  * => allow\n" +
		"]\n" +
		"show @k\n"
	e := runErr(t, src)
	require.Equal(t, guardrun.GuardFailureName, e.Name, e.Render())
	require.Equal(t, 3, e.Pos.Line, "positioned where the guard failed: %s", e.Render())
	require.Contains(t, e.Message, "t.mld:6:1", "the message names the operation the guard was deciding")
	require.NotContains(t, e.Hint, "refused")
	require.Equal(t, guardrun.ClassError, e.Denial.Class)
	require.False(t, e.Denial.Retryable)
	var cause *guardrun.Error
	require.False(t, errors.As(errors.Unwrap(e), &cause), "the cause is the evaluator's error, not another facade error")
	require.True(t, strings.Contains(errors.Unwrap(e).Error(), "nosuchmethod"))
}

// TestPolicyDenialIsTyped: a policy's label-flow denial names the rule,
// the policy and the label.
func TestPolicyDenialIsTyped(t *testing.T) {
	e := runErr(t, "policy @p = { defaults: { rules: [\"no-secret-exfil\"] } }\nvar secret @k = \"s3\"\nexe exfil @send(d) = `sent @d`\nshow @send(@k)\n")
	require.Equal(t, guardrun.PolicyErrorName, e.Name, e.Render())
	require.NotNil(t, e.Denial)
	require.Equal(t, guardrun.ClassPolicy, e.Denial.Class)
	require.Equal(t, "p", e.Denial.Policy)
	require.Equal(t, e.Rule, e.Denial.Rule)
	require.Contains(t, e.Denial.Labels, "secret")
	require.False(t, e.Denial.Retryable)
}

// TestNonDenialHasNoDenial: an ordinary error carries no Denial.
func TestNonDenialHasNoDenial(t *testing.T) {
	e := runErr(t, "show @missing\n")
	require.Equal(t, guardrun.VariableErrorName, e.Name)
	require.Nil(t, e.Denial)
}

// TestGoHookDecisionIsAValue: what an embedder's pre-hook decides reaches
// a script's Denial and a Machine's Verdict as the same value: a deny is
// final unless the hook says a changed operation may pass
// (hooks.Decision.Retryable), a retry carries its hint, a failure is
// class error; a Machine's verdict names the hook and its class (on main
// a hook's deny came out of Machine.Before as class error, naming no
// hook, and no hook could say a changed operation may pass).
func TestGoHookDecisionIsAValue(t *testing.T) {
	cases := []struct {
		name      string
		decide    func(*hooks.Call) (hooks.Decision, error)
		action    guardrun.Action
		class     guardrun.Class
		retryable bool
		hint      string
	}{
		{"deny", func(*hooks.Call) (hooks.Decision, error) {
			return hooks.Decision{Action: hooks.Deny, Reason: "no"}, nil
		}, guardrun.Deny, guardrun.ClassHook, false, ""},
		{"deny, retryable", func(*hooks.Call) (hooks.Decision, error) {
			return hooks.Decision{Action: hooks.Deny, Reason: "no", Retryable: true}, nil
		}, guardrun.Deny, guardrun.ClassHook, true, ""},
		{"retry", func(*hooks.Call) (hooks.Decision, error) {
			return hooks.Decision{Action: hooks.Retry, Reason: "no", Hint: "smaller"}, nil
		}, guardrun.Retry, guardrun.ClassHook, true, "smaller"},
		{"failed, retryable asked", func(*hooks.Call) (hooks.Decision, error) {
			return hooks.Decision{Action: hooks.Deny, Retryable: true}, errors.New("broken")
		}, guardrun.Deny, guardrun.ClassError, false, ""},
	}
	src := "exe @post(d) = `sent @d`\nshow @post(\"x\")\n"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The hook decides the call, not the exe's definition (a
			// Machine's Load runs it before the hook is armed).
			armed := true
			register := guardrun.WithHooks(func(m *hooks.Manager) {
				m.RegisterPre("h", func(call *hooks.Call) (hooks.Decision, error) {
					if armed && call.Op.Type == "exe" && call.Op.Name == "post" && call.Op.Subtype == "" {
						return c.decide(call)
					}
					return hooks.Decision{}, nil
				})
			})
			e := runErr(t, src, register)
			require.NotNil(t, e.Denial)
			require.Equal(t, c.action, e.Denial.Action)
			require.Equal(t, c.class, e.Denial.Class)
			require.Equal(t, "h", e.Denial.Hook)
			require.Equal(t, c.retryable, e.Denial.Retryable)

			prg, err := guardrun.Compile("t.mld", []byte("exe @post(d) = `sent @d`\n"))
			require.NoError(t, err)
			armed = false
			m, err := prg.Load(context.Background(), guardrun.WithDir(t.TempDir()), register)
			require.NoError(t, err)
			defer m.Close()
			armed = true
			v := m.Before(context.Background(), guardrun.Operation{Op: &hooks.OperationContext{Type: "exe", Name: "post"}})
			require.Equal(t, c.action, v.Action)
			require.Equal(t, c.class, v.Class)
			require.Equal(t, "h", v.Hook)
			require.Equal(t, c.retryable, v.Retryable)
			require.Equal(t, c.hint, v.Hint)
			// Eval is the same decision as a value, phase given.
			require.Equal(t, v, m.Eval(context.Background(), guardrun.BeforePhase, guardrun.Operation{Op: &guardrun.OperationContext{Type: "exe", Name: "post"}}, nil))
		})
	}
}

// TestEvalUnknownPhaseDenies: Machine.Eval fails closed on a phase it
// does not know.
func TestEvalUnknownPhaseDenies(t *testing.T) {
	prg, err := guardrun.Compile("t.mld", []byte("exe @post(d) = `sent @d`\n"))
	require.NoError(t, err)
	m, err := prg.Load(context.Background(), guardrun.WithDir(t.TempDir()))
	require.NoError(t, err)
	defer m.Close()
	op := guardrun.Operation{Op: &guardrun.OperationContext{Type: "exe", Name: "post"}}
	require.Equal(t, guardrun.Allow, m.Eval(context.Background(), guardrun.BeforePhase, op, nil).Action)
	v := m.Eval(context.Background(), guardrun.Phase(7), op, nil)
	require.Equal(t, guardrun.Deny, v.Action)
	require.Equal(t, guardrun.ClassError, v.Class)
	require.Contains(t, v.Reason, "unknown decision phase 7")
}
