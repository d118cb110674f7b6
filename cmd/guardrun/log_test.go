package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/agent"
)

// writeLog writes recs as a decision log at path (0600).
func writeLog(t *testing.T, path string, recs ...agent.Record) {
	t.Helper()
	var b []byte
	for i := range recs {
		b = append(recs[i].AppendJSON(b), '\n')
	}
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

// A record's fields come from the agent: `guardrun log` shows each on
// its line, escaped, so none can move the cursor, erase a line or forge
// a record line of its own.
func TestLogEscapesControlCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	forged := "\x1b[1A\x1b[2K\r\n2026-01-01 00:00:00  sess-forged  tool.before      Bash         allow"
	hostile := []string{"\x1b", "\r", "\n", "\x00", "\x7f", "\u0085", "\u009b", "\u2028", "\u2029", "\u202e", "\u2066", "\u200f", "\xff"}
	now := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	writeLog(t, path,
		agent.Record{Time: now, Session: "s\x1b]0;x\a", Event: agent.ToolBefore, Tool: "Bash\r", Decision: agent.Deny,
			Reason: "Command '\"$(true)" + forged + "' cannot be checked", Rule: "r\n", Guard: "g\u202e", Labels: []string{"secret\u2028"}},
		agent.Record{Time: now, Session: "s\x1b]0;x\a", Event: agent.ToolBefore, Tool: "Bash", Decision: agent.Deny,
			Reason: strings.Join(hostile, " ")},
	)
	code, stdout, stderr := runCLI("log", "--all", "--log", path)
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 2, stdout)
	for _, l := range lines {
		require.False(t, strings.HasPrefix(l, "2026-01-01"), "forged line: %q", l)
		for _, h := range hostile {
			require.NotContains(t, l, h, "line %q", l)
		}
		require.NotContains(t, l, "\a")
	}
	require.Contains(t, lines[0], `\x1b[1A\x1b[2K\r\n2026-01-01`)
	require.Contains(t, lines[1], `\u202e`)
}

// `guardrun log` reads the records rotated out of the log before the log.
func TestLogReadsRotatedLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	writeLog(t, agent.RotatedLogPath(path), agent.Record{Time: t0, Session: "s1", Event: agent.ToolBefore, Tool: "Read", Decision: agent.Allow})
	writeLog(t, path, agent.Record{Time: t0.Add(time.Second), Session: "s1", Event: agent.ToolBefore, Tool: "Bash", Decision: agent.Deny})
	code, stdout, stderr := runCLI("log", "--log", path)
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 2, stdout)
	require.Contains(t, lines[0], "Read")
	require.Contains(t, lines[1], "Bash")
}
