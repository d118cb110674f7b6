package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const samplePolicy = "../../examples/policy-tests"

func TestTestCommandPassingAndFailing(t *testing.T) {
	code, out, _ := runCLI("test", samplePolicy+"/agent.test.mld", samplePolicy+"/cases")
	require.Equal(t, exitOK, code, out)
	require.Equal(t, "5 passed, 0 failed\n", out)

	code, out, _ = runCLI("test", "-v", samplePolicy+"/agent.test.mld")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "PASS a secret never reaches the network ("+samplePolicy+"/agent.test.mld:13)\n")

	code, out, _ = runCLI("test", samplePolicy)
	require.Equal(t, exitFail, code)
	require.Contains(t, out, "FAIL expects a leak to be allowed ("+samplePolicy+"/failing/broken.test.mld:5)\n"+
		"    "+samplePolicy+"/failing/broken.test.mld:9: expect allow\n"+
		"        got: deny by policy @agent (defaults.rules.no-secret-exfil)")
	require.Contains(t, out, "9 passed, 3 failed\n")
}

func TestTestCommandRunPatternAndJSON(t *testing.T) {
	code, out, _ := runCLI("test", "--json", "--run", "wrong text|redacted", samplePolicy)
	require.Equal(t, exitFail, code)
	var got []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &obj), sc.Text())
		got = append(got, obj)
	}
	require.Len(t, got, 2, "one object per test")
	require.Equal(t, "a secret is redacted when shown", got[0]["name"])
	require.Equal(t, true, got[0]["pass"])
	require.Equal(t, "decision", got[0]["kind"])
	require.Equal(t, "expects the wrong text", got[1]["name"])
	require.Equal(t, false, got[1]["pass"])
	require.Contains(t, got[1]["failures"].([]any)[0], `got: "notified: hi"`)
}

func TestTestCommandCoverage(t *testing.T) {
	code, out, _ := runCLI("test", "--coverage", samplePolicy+"/agent.test.mld", samplePolicy+"/cases")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "coverage: 10 of 13 guards and when arms reached (76.9%)\n")
	require.Contains(t, out, "    "+samplePolicy+"/agent.mld:14:1: guard @noShellForUntrusted: not reached\n")
	require.Contains(t, out, "    "+samplePolicy+"/agent.mld:16:3: arm `* => allow`: not reached\n")
	require.NotContains(t, out, "agent.mld:10:3", "reached arms are listed only with -v")

	code, out, _ = runCLI("test", "--coverage", "--json", samplePolicy+"/agent.test.mld")
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var cov struct {
		Coverage struct {
			Reached, Total int
			Points         []map[string]any
		}
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &cov))
	require.Equal(t, 8, cov.Coverage.Total)
	require.Equal(t, "guard @redact", cov.Coverage.Points[0]["label"])
	require.Equal(t, true, cov.Coverage.Points[0]["reached"])
}

func TestTestCommandErrors(t *testing.T) {
	code, _, stderr := runCLI("test", "/no/such/dir")
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "guardrun test:")
	code, _, _ = runCLI("test", "--run", "(", samplePolicy)
	require.Equal(t, exitUsage, code)
}

func TestTestCommandOwnFixtures(t *testing.T) {
	// error-contains.md cases, and the timeout case with its short
	// command timeout.
	code, out, _ := runCLI("test", "--command-timeout", "2s", "../../fixtures/guards-errors", "../../fixtures/errors")
	require.Equal(t, exitOK, code, out)
	require.Regexp(t, `^\d+ passed, 0 failed\n$`, out)
}

func TestTestCommandEvents(t *testing.T) {
	code, out, _ := runCLI("test", "--coverage", samplePolicy+"/agent-session.test.mld")
	require.Equal(t, exitOK, code, out)
	require.Equal(t, "coverage: 11 of 12 guards and when arms reached (91.7%)\n"+
		"    "+samplePolicy+"/agent-session.guard:19:3: arm `* => allow`: not reached\n"+
		"4 passed, 0 failed\n", out)

	code, out, _ = runCLI("test", samplePolicy+"/failing/session.test.mld")
	require.Equal(t, exitFail, code)
	require.Contains(t, out, "FAIL expects the key to leave ("+samplePolicy+"/failing/session.test.mld:5)\n"+
		"    "+samplePolicy+"/failing/session.test.mld:8: expect allow (line 7, event tool.before Bash)\n"+
		"        got: deny by defaults.rules.no-secret-exfil")
	require.Contains(t, out, "0 passed, 1 failed\n")

	code, out, _ = runCLI("test", "--json", "--run", "pushing|key", samplePolicy+"/agent-session.test.mld", samplePolicy+"/failing")
	require.Equal(t, exitFail, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, "one object per events test")
	var push struct {
		Name   string
		Kind   string
		Pass   bool
		Events []map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &push))
	require.Equal(t, "pushing asks the user, skipping hooks retries", push.Name)
	require.Equal(t, "events", push.Kind)
	require.True(t, push.Pass)
	require.Len(t, push.Events, 4)
	require.Equal(t, map[string]any{"line": float64(24), "event": "tool.before", "tool": "Bash", "outcome": "ask",
		"reason": "Push to the remote?", "decider": "@push"}, push.Events[1])
	require.Equal(t, "allow", push.Events[2]["outcome"], "answer once")
	require.Equal(t, "retry", push.Events[3]["outcome"])
	var failed map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &failed))
	require.Equal(t, false, failed["pass"])
	require.Len(t, failed["failures"], 2)
}

func TestTestCommandEventsParseError(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.test.mld"), []byte("test \"x\" events [\n  event tool.before Bash { command: ls }\n]\n"), 0o644))
	code, _, stderr := runCLI("test", dir)
	require.Equal(t, exitFail, code)
	require.Equal(t, "guardrun test: "+dir+"/bad.test.mld:2:37: not a value: \"ls\"\n"+
		"hint: values are written as in scripts: \"text\", 'text', 12, true, null, [a, b], { field: value }; quote text\n", stderr)
}
