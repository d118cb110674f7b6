package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const logKey = "sk-live-7Hq2ZpX9vB4nR8tY3mW6kJ1cF5dG0sLa"

// starterEngine is the starter policy deciding into a log buffer.
func starterEngine(t *testing.T, log *bytes.Buffer) *Engine {
	t.Helper()
	p, err := filepath.Abs("../rules/policy.guard")
	require.NoError(t, err)
	pol, err := ReadPolicies(p)
	require.NoError(t, err)
	pol[0].Dir = filepath.Dir(p)
	e, err := New(context.Background(), Config{Policies: pol, Store: NewMemoryStore(), Log: log})
	require.NoError(t, err)
	t.Cleanup(e.Close)
	return e
}

func logLines(t *testing.T, log *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		out = append(out, m)
	}
	return out
}

// A capability denial quotes the command's first word: when the command
// carries a confidentiality label, the reason must not hold it either.
func TestLogMasksReasonQuotingConfidentialInput(t *testing.T) {
	var log bytes.Buffer
	e := starterEngine(t, &log)
	ctx := context.Background()
	dir := t.TempDir()
	env := filepath.Join(dir, ".env")
	e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Cwd: dir, Tool: "Read", Input: map[string]any{"file_path": env},
		Output: map[string]any{"type": "text", "file": map[string]any{"filePath": env, "content": "API_KEY=" + logKey + "\nDEBUG=false\n"}}})
	d := e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Cwd: dir, Tool: "Bash", Input: map[string]any{"command": logKey + "$(true) --version"}})
	require.Equal(t, Deny, d.Outcome)
	require.Contains(t, d.Reason, logKey, "the agent is told; only the log masks")
	require.NotContains(t, log.String(), logKey)
	recs := logLines(t, &log)
	last := recs[len(recs)-1]
	require.Equal(t, map[string]any{"command": Masked}, last["input"])
	require.Contains(t, last["reason"], Masked)
}

// A record written for an event that failed before it was decided masks
// the event's values in its reason: which carry a label is not known.
func TestLogMasksFailedEventReason(t *testing.T) {
	var log bytes.Buffer
	e := starterEngine(t, &log)
	ev := Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "echo " + logKey}}
	d := failed("internal error while deciding: bad word " + logKey[3:20])
	e.logDecision(ev, &d, Record{})
	require.NotContains(t, log.String(), logKey[3:20])
	require.Contains(t, log.String(), "bad word "+Masked)
}

// Prompts and model requests and responses are logged as their length
// and a SHA-256 prefix, never as text.
func TestLogDigestsModelText(t *testing.T) {
	var log bytes.Buffer
	e := starterEngine(t, &log)
	ctx := context.Background()
	text := "user: the staging db password is hunter2-prod-db, please fix the migration. " + strings.Repeat("x", 100000)
	for _, k := range []Kind{PromptSubmit, ModelBefore, ModelAfter} {
		e.Decide(ctx, Event{Kind: k, Session: "s", Text: text})
	}
	require.False(t, strings.Contains(log.String(), "hunter2"), "the prompt is in the log")
	require.Less(t, log.Len(), 3000)
	sum := sha256.Sum256([]byte(text))
	want := map[string]any{"text": Masked, "bytes": float64(len(text)), "sha256": hex.EncodeToString(sum[:8])}
	recs := logLines(t, &log)
	require.Len(t, recs, 3)
	for i, field := range []string{"prompt", "request", "response"} {
		require.Equal(t, map[string]any{field: want}, recs[i]["input"], "record %d", i)
	}
}

// A tool output that carries a confidentiality label is not logged, and
// a reason that quotes it is masked.
func TestLogMasksReasonQuotingConfidentialOutput(t *testing.T) {
	var log bytes.Buffer
	e := starterEngine(t, &log)
	ev := Event{Kind: ToolAfter, Session: "s", Tool: "Read", Input: map[string]any{"file_path": ".env"},
		Output: map[string]any{"content": "API_KEY=" + logKey}}
	d := Decision{Outcome: Deny, Reason: "refused: the file says " + logKey[:30], Labels: []string{"secret"}}
	e.logDecision(ev, &d, e.record(ev, &d, nil, nil))
	require.NotContains(t, log.String(), logKey[:30])
	require.Contains(t, log.String(), "refused: the file says "+Masked)
}
