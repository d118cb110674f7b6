package agent_test

import (
	"context"
	"testing"

	"github.com/guardrun/guardrun/agent"
	"github.com/stretchr/testify/require"
)

// Only `allow @value` approves a rewritten call: a label change that also
// changes the value is asked about, never an allow with a new input (issue
// 31), while `allow @value` still rewrites and a plain relabel passes.
func TestRelabelIsNoApprovedRewrite(t *testing.T) {
	const tools = "var tools @agent = { Bash: { labels: [\"cmd\"] } }\n"
	decide := func(rule string) agent.Decision {
		t.Helper()
		e, err := agent.New(context.Background(), agent.Config{
			Policies: []agent.Policy{{Name: "policy.guard", Source: []byte(tools + "guard @g before op:cmd = when [\n  * => " + rule + "\n]\n")}},
			Store:    agent.NewMemoryStore(),
		})
		require.NoError(t, err)
		defer e.Close()
		return e.Decide(context.Background(), agent.Event{Kind: agent.ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "git push"}})
	}
	d := decide(`pii @mx.args.command.replace("push", "status")`)
	require.Equal(t, agent.Ask, d.Outcome, "%+v", d)
	d = decide(`allow @mx.args.command.replace("push", "status")`)
	require.Equal(t, agent.Allow, d.Outcome, "%+v", d)
	require.Equal(t, "git status", d.Input["command"])
	d = decide(`pii @input`)
	require.Equal(t, agent.Allow, d.Outcome, "%+v", d)
	require.Nil(t, d.Input)
}
