package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
)

// An agent's denial is a guardrun.Denial, the shape a script's denials
// have: the action, the class, the deciding guard or hook by name, and
// the JSON keys the decision log has always had (lineage last, as the
// session's origins).
func TestDenialIsTheScriptsShape(t *testing.T) {
	var _ guardrun.Action = Deny // one spelling of deny
	var _ HookAction = guardrun.Deny

	h := Hook{Name: "gate", Func: func(ctx context.Context, in HookInput) (HookResult, error) {
		if in.Event.Input["command"] == "make deploy" {
			return HookResult{Action: guardrun.Deny, Reason: "not that"}, nil
		}
		return HookResult{}, nil
	}}
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(concPolicy)}}, Store: NewMemoryStore(), Hooks: []Hook{h}})
	require.NoError(t, err)
	defer e.Close()

	d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "make deploy"}})
	require.Equal(t, guardrun.Deny, d.Outcome)
	require.Equal(t, guardrun.Deny, d.Denial.Action)
	require.Equal(t, guardrun.ClassHook, d.Denial.Class)
	require.Equal(t, "gate", d.Denial.Hook)
	require.Equal(t, "hook:gate", d.Denial.Guard, "the log's readers keep the guard field they know")

	d = e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "echo forbidden"}})
	require.Equal(t, Deny, d.Outcome)
	require.Equal(t, guardrun.Denial{Action: guardrun.Deny, Class: guardrun.ClassGuard, Guard: "@g", Reason: "forbidden",
		Retryable: true, Policy: "p.guard"}, d.Denial.Denial)

	dn := Denial{Denial: guardrun.Denial{Action: Deny, Class: ClassPolicy, Rule: "r", Reason: "why", Labels: []string{"secret"}},
		Lineage: []Origin{{Seq: 1, Event: ToolAfter, Tool: "Read", Labels: []string{"secret"}}}}
	b, err := json.Marshal(dn)
	require.NoError(t, err)
	require.Equal(t, `{"class":"policy","rule":"r","reason":"why","retryable":false,"labels":["secret"],`+
		`"lineage":[{"seq":1,"event":"tool.after","tool":"Read","labels":["secret"]}]}`, string(b))
	var back Denial
	require.NoError(t, json.Unmarshal(b, &back))
	back.Action = Deny // not in the JSON form: the decision's outcome carries it
	require.Equal(t, dn, back)
}
