package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
)

// A guard using a name that does not exist is refused when the policy
// loads (a CheckError at the name), not left to deny every decision (on
// main New succeeded and every Bash call was denied by the failing
// guard).
func TestTypoInGuardFailsAtLoad(t *testing.T) {
	src := `var tools @agent = { Bash: { labels: ["cmd"] } }
guard @g before op:cmd = when [
  @tpyo.x == 1 => deny "never"
  * => allow
]
`
	_, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(src)}}, Store: NewMemoryStore()})
	require.Error(t, err)
	var pe *PolicyCheckError
	require.True(t, errors.As(err, &pe), "%T: %v", err, err)
	require.Equal(t, "p.guard", pe.Policy)
	require.Len(t, pe.Findings, 1)
	require.Equal(t, 3, pe.Findings[0].Pos.Line)
	var ge *guardrun.Error
	require.True(t, errors.As(err, &ge))
	require.Equal(t, guardrun.CheckErrorName, ge.Name)
	require.Equal(t, "p.guard:3:3", ge.Pos.String())
	require.Contains(t, err.Error(), "unknown variable @tpyo")
}

// A policy's guard may call the embedder's Go functions (Config.Functions);
// the strict load knows them.
func TestPolicyCallsGoFunction(t *testing.T) {
	owner := guardrun.Function{Name: "owner", Params: []guardrun.Param{{Name: "path", Type: guardrun.StringType}},
		Call: func(ctx context.Context, args []guardrun.Var) (any, error) {
			if args[0].Value == "/etc/passwd" {
				return "root", nil
			}
			return "me", nil
		}}
	src := `var tools @agent = { Write: { labels: ["fs:w"] } }
guard @mine before op:exe = when [
  @mx.op.name == "Write" && @owner(@mx.args.file_path) != "me" => deny "not your file"
  * => allow
]
`
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(src)}}, Store: NewMemoryStore(),
		Functions: []guardrun.Function{owner}})
	require.NoError(t, err)
	defer e.Close()
	d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Write", Input: map[string]any{"file_path": "/etc/passwd", "content": "x"}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	require.Equal(t, "not your file", d.Reason)
	d = e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Write", Input: map[string]any{"file_path": "notes.txt", "content": "x"}})
	require.Equal(t, Allow, d.Outcome, d.Reason)
}
