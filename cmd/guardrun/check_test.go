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
