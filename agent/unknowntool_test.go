package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A tool no policy's tool collection declares is, by default, decided as
// a call of a tool without labels (guards naming it still apply); with
// DenyUnknownTools it is denied, naming the tool and how to declare it.
// A declared tool (a glob key, a key with no labels) is decided as ever.
func TestUnknownTools(t *testing.T) {
	policy := `var tools @agent = { Bash: { labels: ["cmd"] }, "mcp__*": { labels: ["tool:w"] }, Glob: { labels: [] } }
guard @noFoo before op:exe = when [
  @mx.op.name == "Frobnicate" => deny "no frobnicating"
  * => allow
]
`
	engine := func(mode UnknownTools) *Engine {
		e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(policy)}}, Store: NewMemoryStore(), UnknownTools: mode})
		require.NoError(t, err)
		t.Cleanup(e.Close)
		return e
	}
	call := func(e *Engine, tool string) Decision {
		return e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: tool, Input: map[string]any{"command": "ls"}})
	}

	def := engine(DecideUnknownTools)
	require.Equal(t, Allow, call(def, "TodoWrite").Outcome, "the default decides an unknown tool like any other")
	d := call(def, "Frobnicate")
	require.Equal(t, Deny, d.Outcome)
	require.Equal(t, "no frobnicating", d.Reason, "guards still see an unknown tool")

	deny := engine(DenyUnknownTools)
	d = call(deny, "TodoWrite")
	require.Equal(t, Deny, d.Outcome)
	require.Equal(t, `tool "TodoWrite" is not declared in any policy's tool collection, and unknown tools are denied (Config.UnknownTools); declare it with its labels, e.g. var tools @mine = { "TodoWrite": { labels: [] } }`, d.Reason)
	require.Equal(t, ClassPolicy, d.Denial.Class)
	require.Equal(t, "unknown-tools", d.Denial.Rule)
	require.False(t, d.Denial.Retryable)
	for _, tool := range []string{"Bash", "mcp__github__create_issue", "Glob"} {
		require.Equal(t, Allow, call(deny, tool).Outcome, tool)
	}
	// What an unknown tool's output is, once it ran, is decided as ever.
	d = deny.Decide(context.Background(), Event{Kind: ToolAfter, Session: "s", Tool: "TodoWrite", Input: map[string]any{"x": "y"}, Output: "ok"})
	require.Equal(t, Allow, d.Outcome)
}
