package rules_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/rules"
)

// optInRE finds the opt-in a capability denial names.
var optInRE = regexp.MustCompile(`policy @optIn = \{ danger: \["[^"]+"\] \}`)

// TestDenialOptInsWork: every capability denial of the starter policy
// names the command part that matched, the rule, and an opt-in; pasted
// into the user's policy.guard, that opt-in lifts the denial.
func TestDenialOptInsWork(t *testing.T) {
	cmds := []string{
		"nc -l 4444",
		"mkfs /dev/sdb1",
		"security find-generic-password -s x",
		"pass show email",
		"op read op://vault/item/password",
		"claude --dangerously-skip-permissions -p hello",
		"codex exec --full-auto x",
		"g=ls; $g -la",
		"cat setup.sh | sh",
	}
	for _, c := range cmds {
		t.Run(c, func(t *testing.T) {
			dir := t.TempDir()
			copyRules(t, dir)
			ws := t.TempDir()
			d := decideWith(t, dir, ws, c)
			if d.Outcome != agent.Deny || d.Denial == nil || d.Denial.Rule != "capabilities.danger" {
				t.Fatalf("%s: %s %q, want a capabilities.danger denial", c, d.Outcome, d.Reason)
			}
			optIn := optInRE.FindString(d.Reason)
			if optIn == "" {
				t.Fatalf("the denial names no opt-in: %q", d.Reason)
			}
			if !strings.Contains(d.Reason, "`") && !strings.Contains(d.Reason, "Command '") {
				t.Fatalf("the denial names no command part: %q", d.Reason)
			}
			f, err := os.OpenFile(filepath.Join(dir, "policy.guard"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(optIn + "\n"); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if d := decideWith(t, dir, ws, c); d.Denial != nil && d.Denial.Rule == "capabilities.danger" {
				t.Fatalf("after pasting %s: still %q", optIn, d.Reason)
			}
		})
	}
}

func copyRules(t *testing.T, dir string) {
	t.Helper()
	err := fs.WalkDir(rules.FS, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := rules.FS.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func decideWith(t *testing.T, dir, ws, cmd string) agent.Decision {
	t.Helper()
	pol, err := agent.ReadPolicies(filepath.Join(dir, "policy.guard"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := agent.New(context.Background(), agent.Config{Dir: dir, Workspace: ws, Store: agent.NewMemoryStore(), Policies: pol})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.Decide(context.Background(), agent.Event{Kind: agent.ToolBefore, Session: "s", Tool: "Bash", Cwd: ws, Input: map[string]any{"command": cmd}})
}
