package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUndecidedAfterTaints: a tool.after the engine cannot decide (here
// too large) still records that its output reached the agent.
func TestUndecidedAfterTaints(t *testing.T) {
	ctx := context.Background()
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "sessions"))
	require.NoError(t, err)
	e := stateEngine(t, fs, Config{MaxEventBytes: 4096})
	big := readEnv("s")
	big.Output = "API_KEY=" + stateKey + "\n" + strings.Repeat("#", 8192)
	d := e.Decide(ctx, big)
	require.Equal(t, Deny, d.Outcome)
	require.Contains(t, d.Reason, "too large")
	d = e.Decide(ctx, bash("s", exfil))
	require.Equal(t, Deny, d.Outcome, "the undecided read is secret")
	require.Contains(t, strings.Join(whys(d), ";"), "output not decided: event too large")

	// A web fetch brings its declared untrusted in; the engine entry
	// point records the same for the hook's refusals.
	require.NoError(t, e.Undecided(Event{Kind: ToolAfter, Session: "w", Tool: "WebFetch"}, "malformed event"))
	require.Equal(t, Ask, e.Decide(ctx, bash("w", "ls")).Outcome)
	require.Equal(t, Allow, e.Decide(ctx, bash("w2", exfil)).Outcome, "control")
	require.NoError(t, e.Undecided(Event{Kind: ToolBefore, Session: "w2", Tool: "Read"}, "x"), "only tool.after records")
	require.Equal(t, Allow, e.Decide(ctx, bash("w2", exfil)).Outcome)
}
