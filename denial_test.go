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
	require.Equal(t, "deny", e.Decision)
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
	require.Equal(t, "deny", x.Decision)
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
