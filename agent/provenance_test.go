package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// newEngine loads one policy source into an engine with a memory store.
func newEngine(t *testing.T, src string) *Engine {
	t.Helper()
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(src)}}, Store: NewMemoryStore()})
	require.NoError(t, err)
	t.Cleanup(e.Close)
	return e
}

// Labels a policy's own tool list declares are known to its guards: a
// guard on "pay" (one edit from "pii") or on "tool:w" loads and fires
// (on main the load failed: "never fires … did you mean pii?", and the
// hook then denied every call).
func TestToolListLabelsAreKnown(t *testing.T) {
	e := newEngine(t, `var tools @demo = {
  "read_file": { labels: ["tool:r"], returns: ["lookup"] },
  "send_money": { labels: ["tool:w", "pay"] }
}
guard @w before tool:r = when [
  * => allow
]
guard @p before pay = when [
  * => ask "pay?"
]
guard @l after lookup = when [
  * => allow
]
`)
	d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "send_money", Input: map[string]any{"recipient": "x"}})
	require.Equal(t, Ask, d.Outcome, d.Reason)
	require.Equal(t, "pay?", d.Question)
}
