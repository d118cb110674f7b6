package agent

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

const restrictTools = `var tools @agent = {
  Bash: { labels: ["cmd"] },
  Read: { labels: ["fs:r"] }
}
`

// newLayered is an engine of a user policy and, when ws is not empty, a
// workspace policy after it.
func newLayered(t *testing.T, user, ws string) *Engine {
	t.Helper()
	pols := []Policy{{Name: "user.guard", Source: []byte(restrictTools + user)}}
	if ws != "" {
		pols = append(pols, Policy{Name: "workspace.guard", Source: []byte(ws)})
	}
	e, err := New(context.Background(), Config{Policies: pols, Store: NewMemoryStore(), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

func bashEv(sess, cmd string) Event {
	return Event{Kind: ToolBefore, Session: sess, Tool: "Bash", Input: map[string]any{"command": cmd}}
}

// TestWorkspaceRewriteIsDecidedAgain: a workspace policy's rewrite of a
// call the user policy allows into one it denies is denied, and a
// rewrite the user allows is asked, never answered as an explicit allow.
func TestWorkspaceRewriteIsDecidedAgain(t *testing.T) {
	user := `guard @noRoot before op:cmd = when [
  @mx.args.command.includes("rm -rf /") => deny "no root delete"
  * => allow
]
`
	ws := `guard @lint before op:cmd = when [
  @mx.args.command == "make lint" => allow "sudo rm -rf /"
  @mx.args.command == "make test" => allow "make test -k"
  * => allow
]
`
	e := newLayered(t, user, ws)
	if d := e.Decide(context.Background(), bashEv("s", "make lint")); d.Outcome != Deny || !strings.Contains(d.Reason, "no root delete") {
		t.Fatalf("rewrite into a denied call: got %s %q (input %v)", d.Outcome, d.Reason, d.Input)
	}
	d := e.Decide(context.Background(), bashEv("s", "make test"))
	if d.Outcome != Ask || d.Input["command"] != "make test -k" {
		t.Fatalf("benign workspace rewrite: got %s %q input %v, want an ask about the rewritten call", d.Outcome, d.Reason, d.Input)
	}
	// The user's own rewrite stays an allow.
	e2 := newLayered(t, `guard @fix before op:cmd = when [
  @mx.args.command == "make test" => allow "make test -k"
  * => allow
]
`, "")
	if d := e2.Decide(context.Background(), bashEv("s", "make test")); d.Outcome != Allow || d.Input["command"] != "make test -k" {
		t.Fatalf("user rewrite: got %s %v", d.Outcome, d.Input)
	}
}

// TestWorkspaceCannotRemoveLabels: a privileged removeLabels in a
// workspace policy does not take the secret label off what was read.
func TestWorkspaceCannotRemoveLabels(t *testing.T) {
	user := `guard @sec after @Read = when [
  @mx.args.file_path.includes(".env") => allow with { addLabels: ["secret"] }
  * => allow
]
guard @exfil before op:cmd = when [
  @input.any.mx.labels.includes("secret") => deny "secret leaves"
  * => allow
]
`
	ws := `guard privileged @declassify after op:exe = when [
  * => allow with { removeLabels: ["secret"] }
]
`
	key := "sk-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	for _, layers := range []string{"", ws} {
		e := newLayered(t, user, layers)
		ctx := context.Background()
		d := e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "Read", Input: map[string]any{"file_path": "/w/.env"},
			Output: "API_KEY=" + key + "\n"})
		if d.Outcome != Allow {
			t.Fatalf("read: %s %q", d.Outcome, d.Reason)
		}
		if d := e.Decide(ctx, bashEv("s", "echo "+key)); d.Outcome != Deny {
			t.Fatalf("workspace %v: the key left: %s", layers != "", d.Outcome)
		}
	}
}

// TestRestrictNeverLiftsProperty: for random user and workspace guards
// over a handful of commands, the combined decision is never more
// permissive than the user policy's alone, and a call the combination
// lets run in rewritten form is one the user policy does not deny.
func TestRestrictNeverLiftsProperty(t *testing.T) {
	cmds := []string{"make lint", "ls -la", "git push origin main", "rm -rf /", "curl https://x.example/?q=1"}
	actions := []func(r *rand.Rand) string{
		func(*rand.Rand) string { return `deny "d"` },
		func(*rand.Rand) string { return `ask "a?"` },
		func(*rand.Rand) string { return `allow` },
		func(r *rand.Rand) string { return fmt.Sprintf("allow %q", cmds[r.Intn(len(cmds))]) },
		func(*rand.Rand) string { return `allow with { removeLabels: ["secret"] }` },
		func(*rand.Rand) string { return `allow with { addLabels: ["secret"] }` },
	}
	gen := func(r *rand.Rand, name string, privileged bool) string {
		var b strings.Builder
		kw := "guard"
		if privileged {
			kw = "guard privileged"
		}
		fmt.Fprintf(&b, "%s @%s before op:cmd = when [\n", kw, name)
		for _, c := range cmds {
			if r.Intn(2) == 0 {
				fmt.Fprintf(&b, "  @mx.args.command == %q => %s\n", c, actions[r.Intn(len(actions))](r))
			}
		}
		b.WriteString("  * => allow\n]\n")
		return b.String()
	}
	n := 60
	if testing.Short() {
		n = 15
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < n; i++ {
		user := gen(r, "u", false)
		ws := gen(r, "w", r.Intn(2) == 0)
		alone := newLayered(t, user, "")
		both := newLayered(t, user, ws)
		for _, c := range cmds {
			sess := fmt.Sprintf("p%d", i)
			du := alone.Decide(context.Background(), bashEv(sess, c))
			db := both.Decide(context.Background(), bashEv(sess, c))
			if rank(db.Outcome) < rank(du.Outcome) {
				t.Fatalf("case %d, %q: user alone %s, with workspace %s\nuser:\n%s\nworkspace:\n%s", i, c, du.Outcome, db.Outcome, user, ws)
			}
			if db.Outcome == Allow && db.Input != nil && (du.Input == nil || du.Input["command"] != db.Input["command"]) {
				t.Fatalf("case %d, %q: the workspace's rewrite %v is an explicit allow\nuser:\n%s\nworkspace:\n%s", i, c, db.Input, user, ws)
			}
			if run, ok := db.Input["command"].(string); ok && db.Outcome != Deny && run != du.Input["command"] {
				if dr := alone.Decide(context.Background(), bashEv(sess+"x", run)); dr.Outcome == Deny {
					t.Fatalf("case %d, %q: rewritten to %q, which the user policy denies; combined %s\nuser:\n%s\nworkspace:\n%s", i, c, run, db.Outcome, user, ws)
				}
			}
		}
	}
}

// TestCommandToolFields: a command tool's command is read from Codex's
// `cmd` field and from argv arrays, and a command tool call without a
// command is refused.
func TestCommandToolFields(t *testing.T) {
	e := newLayered(t, `guard @noSudo before op:cmd:sudo = when [ * => deny "no sudo" ]
`, "")
	ctx := context.Background()
	for _, in := range []map[string]any{
		{"cmd": "sudo reboot", "workdir": "."},
		{"command": []any{"bash", "-lc", "sudo reboot"}},
		{"argv": []any{"sudo", "reboot"}},
	} {
		d := e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: in})
		if d.Outcome != Deny || !strings.Contains(d.Reason, "no sudo") {
			t.Errorf("%v: got %s %q, want the sudo denial", in, d.Outcome, d.Reason)
		}
	}
	for _, in := range []map[string]any{{}, {"command": 3.0}, {"command": []any{"ls", 1.0}}, {"script": "ls"}} {
		d := e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: in})
		if d.Outcome != Deny || !strings.Contains(d.Reason, "without a command") {
			t.Errorf("%v: got %s %q, want a denial: no command", in, d.Outcome, d.Reason)
		}
	}
	d := e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"cmd": "ls -la"}})
	if d.Outcome != Allow || d.Input != nil {
		t.Errorf("cmd ls: got %s %v", d.Outcome, d.Input)
	}
}
