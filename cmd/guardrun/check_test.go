package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mld")
	require.NoError(t, os.WriteFile(bad, []byte("var secret @k = \"sk\"\nguard @g before secret = when [\n  @inptu.mx.labels.includes(\"x\") => deny \"no\"\n  * => allow\n]\nshow @k\n"), 0o644))
	code, out, _ := runCLI("check", bad)
	require.Equal(t, exitFail, code)
	require.Contains(t, out, bad+":3:3: error: unknown variable @inptu in a guard")

	code, out, _ = runCLI("check", "--json", bad)
	require.Equal(t, exitFail, code)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Len(t, got, 1)
	require.Equal(t, "error", got[0]["severity"])
	require.Equal(t, "unknown-name", got[0]["kind"])
	require.EqualValues(t, 3, got[0]["line"])

	leaky := filepath.Join(dir, "leaky.mld")
	require.NoError(t, os.WriteFile(leaky, []byte("var secret @k = \"sk\"\nexe net:w @post(b) = `sent @b`\nshow @post(@k)\n"), 0o644))
	code, out, _ = runCLI("check", leaky)
	require.Equal(t, exitOK, code, "label flow is a warning")
	require.Contains(t, out, "leaky.mld:3:6: warning: secret from @k (line 1) reaches @post (net:w) at line 3")

	code, out, _ = runCLI("check", "../../examples/guards.mld", "../../examples/policy.mld")
	require.Equal(t, exitOK, code)
	require.Empty(t, out)
}

// An agent policy is strict: junk in a .guard file is a parse error with
// its position, the offending line and a hint, for check and fmt alike
// (both read it as prose before issue 31 and said nothing).
func TestCheckAndFmtReadGuardStrict(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "junk.guard")
	require.NoError(t, os.WriteFile(junk, []byte("this is not a policy {{{\n"), 0o644))
	for _, cmd := range [][]string{{"check", junk}, {"fmt", junk}, {"fmt", "--check", junk}} {
		code, _, stderr := runCLI(cmd...)
		require.Equal(t, exitFail, code, cmd)
		require.Contains(t, stderr, junk+":1:1: ", cmd)
		require.Contains(t, stderr, "    this is not a policy {{{\n    ^\n", cmd)
		require.Contains(t, stderr, "hint: ", cmd)
		require.NotContains(t, stderr, ".mld.md", cmd)
	}
}

// check --user: a workspace policy is checked with the user policy's
// tool collections (and its modules') in scope, as the hook layers them.
func TestCheckWorkspaceUnderUserPolicy(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user", "policy.guard")
	require.NoError(t, os.MkdirAll(filepath.Dir(user), 0o755))
	require.NoError(t, os.WriteFile(user, []byte("import { @agent } from \"./tools.guard\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "user", "tools.guard"), []byte("var tools @agent = { Grip: { labels: [\"fs:r\"] } }\nexport { @agent }\n"), 0o644))
	ws := filepath.Join(dir, "ws.guard")
	require.NoError(t, os.WriteFile(ws, []byte("guard @g before @Grip = when [\n  * => deny \"no\"\n]\n"), 0o644))
	code, out, _ := runCLI("check", ws)
	require.Equal(t, exitFail, code)
	require.Contains(t, out, "did you mean @Grep?")
	code, out, stderr := runCLI("check", "--user", user, ws)
	require.Equal(t, exitOK, code, out+stderr)
	require.Empty(t, out)
}

// A policy test file (*.test.mld) is checked as one, not as a script.
func TestCheckPolicyTestFile(t *testing.T) {
	code, out, stderr := runCLI("check", "../../examples/policy-tests/agent.test.mld", "../../examples/policy-tests/agent-session.test.mld")
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, out)
	bad := filepath.Join(t.TempDir(), "b.test.mld")
	require.NoError(t, os.WriteFile(bad, []byte("use \"x.guard\"\nbogus\n"), 0o644))
	code, _, stderr = runCLI("check", bad)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, bad+":2:1: expected use")
	require.Contains(t, stderr, "hint: ")
}
