package policytest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/policytest"
	"github.com/stretchr/testify/require"
)

// writeTree writes files (path → content) under a temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// Several use lines layer the policies as the hook does: the workspace
// policy's op:cmd guard sees the commands the user policy's tool
// collection labels, each policy imports from its own folder, and a
// later policy restricts what an earlier allows (issue 31: with one
// policy per file, tests passed that the hook failed).
func TestLayeredPolicies(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"user/policy.guard": `import { @agent } from "./tools.guard"
guard @noRm before op:cmd:rm = when [
  * => deny "no rm"
]
`,
		"user/tools.guard": `var tools @agent = { Bash: { labels: ["cmd"] } }
export { @agent }
`,
		"ws/.guardrun/policy.guard": `import guards from "./git.guard"
`,
		"ws/.guardrun/git.guard": `guard @push before op:cmd:git = when [
  @mx.args.command.includes("push") => ask "Push?"
  * => allow
]
`,
		"ws/layers.test.mld": `use "../user/policy.guard"
use ".guardrun/policy.guard"

test "the workspace asks before a push" events [
  event tool.before Bash { command: "git push" }
    expect ask
    expect decider "@push"
  event tool.before Bash { command: "rm -rf build" }
    expect deny
    expect reason "no rm"
  event tool.before Bash { command: "git status" }
    expect allow
]
`,
		"ws/alone.test.mld": `use ".guardrun/policy.guard"

test "alone, the workspace policy has no command tool" events [
  event tool.before Bash { command: "git push" }
    expect allow
]
`,
	})
	cov := policytest.NewCoverage()
	rs, err := policytest.Run(context.Background(), []string{filepath.Join(dir, "ws")}, policytest.Options{Coverage: cov})
	require.NoError(t, err)
	require.Len(t, rs, 2)
	for _, r := range rs {
		require.True(t, r.Pass, "%s: %s", r.Name, strings.Join(r.Failures, "\n"))
	}
	// Coverage counts the imported modules' guards and arms: the two
	// policies hold none of their own.
	var points []string
	reached := 0
	for _, p := range cov.Points() {
		points = append(points, filepath.Base(p.Pos.File)+":"+p.Kind)
		if p.Reached {
			reached++
		}
	}
	require.Contains(t, points, "git.guard:guard")
	require.Contains(t, points, "policy.guard:guard")
	require.Len(t, points, 5, "%v", points)
	require.Equal(t, 5, reached, "%v", cov.Points())
}

// A script test runs with one policy: layered use lines are refused with
// a hint.
func TestScriptTestWithLayersIsRefused(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.guard":      "var @a = 1\n",
		"b.guard":      "var @b = 2\n",
		"x.test.mld":   "use \"a.guard\"\nuse \"b.guard\"\n\ntest \"t\" [\n  show \"hi\"\n]\nexpect allow\n",
		"dup.test.mld": "use \"a.guard\"\nuse \"a.guard\"\n",
	})
	_, err := policytest.Run(context.Background(), []string{filepath.Join(dir, "dup.test.mld")}, policytest.Options{})
	require.ErrorContains(t, err, "is already used")
	rs, err := policytest.Run(context.Background(), []string{filepath.Join(dir, "x.test.mld")}, policytest.Options{})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.False(t, rs[0].Pass)
	require.Contains(t, strings.Join(rs[0].Failures, "\n"), "a script test runs with one policy")
}

// A policy that does not load is reported as a run reports an error:
// position, the offending line with a caret, and the hint (issue 31:
// hints appeared in `guardrun x.mld` but not in test's messages).
func TestUnloadablePolicyShowsHint(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"p.guard":    "guard @g before op:cmd:git = when [\n  * => block \"Push?\"\n]\n",
		"a.test.mld": "use \"p.guard\"\ntest \"x\" events [\n  event tool.before Bash { command: \"git push\" }\n    expect ask\n]\n",
	})
	rs, err := policytest.Run(context.Background(), []string{dir}, policytest.Options{})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.False(t, rs[0].Pass)
	f := rs[0].Failures[0]
	require.Contains(t, f, "p.guard:2:8: Unknown guard action block")
	require.Contains(t, f, "\n      * => block \"Push?\"\n           ^\nhint: did you mean deny")
}
