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

// Each line names what was decided: the call's command or path, as the
// log has it (masked when it carried a secret), escaped and cut.
func TestLogShowsCommandOrPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	writeLog(t, path,
		agent.Record{Time: t0, Session: "sess-1", Event: agent.ToolBefore, Tool: "Bash", Decision: agent.Ask, Input: map[string]any{"command": "git push origin main", "description": "push"}},
		agent.Record{Time: t0, Session: "sess-1", Event: agent.ToolBefore, Tool: "Read", Decision: agent.Allow, Input: map[string]any{"file_path": "/p/.env"}},
		agent.Record{Time: t0, Session: "sess-1", Event: agent.ToolBefore, Tool: "read_file", Decision: agent.Allow, Input: map[string]any{"absolute_path": "/p/src/a.go"}},
		agent.Record{Time: t0, Session: "sess-1", Event: agent.ToolBefore, Tool: "Bash", Decision: agent.Deny, Input: map[string]any{"command": map[string]any{"text": agent.Masked, "bytes": 40, "sha256": "ab"}}},
		agent.Record{Time: t0, Session: "sess-1", Event: agent.ToolBefore, Tool: "Bash", Decision: agent.Deny, Input: map[string]any{"command": "echo \x1b[2K" + strings.Repeat("x", 200)}},
	)
	code, stdout, stderr := runCLI("log", "--log", path)
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 5, stdout)
	require.True(t, strings.HasSuffix(lines[0], "ask    command=git push origin main"), lines[0])
	require.True(t, strings.HasSuffix(lines[1], "file_path=/p/.env"), lines[1])
	require.True(t, strings.HasSuffix(lines[2], "absolute_path=/p/src/a.go"), lines[2])
	require.True(t, strings.HasSuffix(lines[3], "command="+agent.Masked), lines[3])
	require.Contains(t, lines[4], `command="echo \x1b[2K`)
	require.Contains(t, lines[4], "x…")
	require.NotContains(t, lines[4], strings.Repeat("x", 100))
}

// --session names a session the log has (its id, or the start of it the
// lines show); an unknown one is said so, exit 1.
func TestLogUnknownSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	writeLog(t, path, agent.Record{Time: t0, Session: "0123456789abcdef", Event: agent.ToolBefore, Tool: "Bash", Decision: agent.Allow})
	code, stdout, stderr := runCLI("log", "--log", path, "--session", "nosuch")
	require.Equal(t, exitFail, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "no session nosuch in "+path)
	code, stdout, _ = runCLI("log", "--log", path, "--session", "0123456789ab")
	require.Equal(t, exitOK, code)
	require.Contains(t, stdout, "Bash")
}

// --replay with the user and the workspace policies, each in its own
// folder and importing from it, as the hook layers them: the unchanged
// policies change no decision; a changed workspace policy changes
// exactly the decisions it decides otherwise.
func TestLogReplayLayeredPolicies(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	user := write("user/policy.guard", "import { @agent } from \"./tools.guard\"\n")
	write("user/tools.guard", "var tools @agent = { Bash: { labels: [\"cmd\"] } }\nexport { @agent }\n")
	ws := write("ws/.guardrun/policy.guard", "import guards from \"./git.guard\"\n")
	git := "guard @push before op:cmd:git = when [\n  @mx.args.command.includes(\"push\") => ask \"Push?\"\n  * => allow\n]\n"
	write("ws/.guardrun/git.guard", git)

	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	bash := func(cmd string, d agent.Outcome) agent.Record {
		return agent.Record{Time: t0, Session: "s", Event: agent.ToolBefore, Tool: "Bash", Decision: d, Input: map[string]any{"command": cmd}}
	}
	logPath := filepath.Join(dir, "decisions.jsonl")
	writeLog(t, logPath, bash("git push", agent.Ask), bash("git status", agent.Allow), bash("git fetch", agent.Allow))

	code, stdout, stderr := runCLI("log", "--replay", logPath, "--policy", user, "--policy", ws)
	require.Equal(t, exitOK, code, stdout+stderr)
	require.Contains(t, stdout, "3 decisions replayed: 0 changed, 0 skipped")

	write("ws/.guardrun/git.guard", strings.Replace(git, `includes("push")`, `includes("push") || @mx.args.command.includes("fetch")`, 1))
	code, stdout, _ = runCLI("log", "--replay", logPath, "--policy", user, "--policy", ws)
	require.Equal(t, exitFail, code)
	require.Contains(t, stdout, "changed  #3 s tool.before Bash: allow → ask")
	require.Contains(t, stdout, "3 decisions replayed: 1 changed, 0 skipped")
	require.NotContains(t, stdout, "#1 ")
	require.NotContains(t, stdout, "#2 ")
}

// Lines written before the log recorded approvals (no "approval") are
// read as they were; a line with one shows what the human answered, and
// a replay compares the policy's ask with the ask it decides again, not
// the human's answer.
func TestLogReadsApprovalRecords(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.guard")
	require.NoError(t, os.WriteFile(policy, []byte("var tools @agent = { Bash: { labels: [\"cmd\"] } }\n"+
		"guard @push before op:cmd:git = when [\n  * => ask \"Run git?\"\n]\n"), 0o644))
	old := `{"time":"2026-11-27T04:00:00Z","session":"s","event":"tool.before","tool":"Bash","decision":"allow","input":{"command":"git status"},"latency_us":12,"policy_hash":"54f76404d40ceeb6"}`
	once := `{"time":"2026-11-27T04:00:01Z","session":"s","event":"tool.before","tool":"Bash","decision":"allow","guard":"@push","class":"approval","approval":{"question":"Run git?","answer":"once"},"input":{"command":"git push"},"latency_us":12,"policy_hash":"54f76404d40ceeb6"}`
	denied := `{"time":"2026-11-27T04:00:02Z","session":"s","event":"tool.before","tool":"Bash","decision":"deny","reason":"not approved (Run git?): the user denied it","guard":"@push","class":"approval","approval":{"question":"Run git?","answer":"denied"},"input":{"command":"git push -f"},"latency_us":12,"policy_hash":"54f76404d40ceeb6"}`
	cached := `{"time":"2026-11-27T04:00:03Z","session":"s","event":"tool.before","tool":"Bash","decision":"allow","guard":"@push","class":"approval","approval":{"question":"Run git?","answer":"always","reused":"session"},"input":{"command":"git log"},"latency_us":12,"policy_hash":"54f76404d40ceeb6"}`
	again := `{"time":"2026-11-27T04:00:04Z","session":"s","event":"tool.before","tool":"Bash","decision":"deny","reason":"not approved (Run git?): the user denied the same call earlier (an answer is kept 5m0s)","guard":"@push","class":"approval","approval":{"question":"Run git?","answer":"denied","reused":"earlier"},"input":{"command":"git push -f"},"latency_us":12,"policy_hash":"54f76404d40ceeb6"}`
	path := filepath.Join(dir, "decisions.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(old+"\n"+once+"\n"+denied+"\n"+cached+"\n"+again+"\n"), 0o600))

	code, stdout, stderr := runCLI("log", "--log", path)
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 5, stdout)
	require.True(t, strings.HasSuffix(lines[0], "allow  command=git status"), lines[0])
	require.Contains(t, lines[1], "allow (guard @push, human: once)")
	require.Contains(t, lines[2], "deny   not approved (Run git?): the user denied it (guard @push, human: denied)")
	require.Contains(t, lines[3], "allow (guard @push, human: always, from the session)")
	require.Contains(t, lines[4], "(guard @push, human: denied, from an identical call)")

	code, stdout, _ = runCLI("log", "--replay", path, "--policy", policy)
	require.Equal(t, exitFail, code, stdout)
	// The old line cannot say the human was asked: its allow is an ask
	// now. The new lines' asks are asks again.
	require.Contains(t, stdout, "changed  #1 s tool.before Bash: allow → ask (Run git?)")
	require.Contains(t, stdout, "5 decisions replayed: 1 changed, 0 skipped")
}
