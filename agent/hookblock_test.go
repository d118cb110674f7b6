package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A hook's Deny is not retryable unless the hook says it is: the agent
// is told not to try variations of a call a hook refused.
func TestHookBlockRetryable(t *testing.T) {
	for _, retryable := range []bool{false, true} {
		h := Hook{Name: "gate", Func: func(ctx context.Context, in HookInput) (HookResult, error) {
			return HookResult{Action: Deny, Reason: "not now", Retryable: retryable}, nil
		}}
		e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(concPolicy)}}, Store: NewMemoryStore(), Hooks: []Hook{h}})
		require.NoError(t, err)
		d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "ls"}})
		e.Close()
		require.Equal(t, Deny, d.Outcome)
		require.Equal(t, ClassHook, d.Denial.Class)
		require.Equal(t, "hook:gate", d.Denial.Guard)
		require.Equal(t, "not now", d.Denial.Reason)
		require.Equal(t, retryable, d.Denial.Retryable)
	}
}

// A command hook says so with "retryable": true.
func TestCommandHookRetryable(t *testing.T) {
	for body, want := range map[string]bool{
		`{"continue": false, "systemMessage": "no"}`:                    false,
		`{"continue": false, "systemMessage": "no", "retryable": true}`: true,
		`{"continue": true, "decision": "deny", "retryable": false}`:    false,
	} {
		r, err := parseCmdResponse([]byte(body), ToolBefore)
		require.NoError(t, err, body)
		require.Equal(t, Deny, r.Action, body)
		require.Equal(t, want, r.Retryable, body)
	}
}
