package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// TestProtectedPathSpellings: random spellings of guardrun's own files
// and the agents' hook settings, written through every writing tool and
// shell form, are all refused; the same spellings of ordinary workspace
// files are allowed.
func TestProtectedPathSpellings(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(root, "ws")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(ws, "src"), filepath.Join(home, ".config", "guardrun"),
		filepath.Join(home, ".local", "state", "guardrun", "sessions"), filepath.Join(home, ".claude")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	// A link in the workspace to the user's guardrun config.
	if err := os.Symlink(filepath.Join(home, ".config", "guardrun"), filepath.Join(ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	// Protected files, relative to home ("~") or to the workspace ("@").
	protected := []string{"~/.config/guardrun/exfil.guard", "~/.config/guardrun/policy.guard", "~/.config/guardrun/trust.json",
		"~/.local/state/guardrun/sessions/abc.journal", "~/.local/state/guardrun/sessions.seen", "~/.cache/guardrun/ast/x",
		"~/.claude/settings.json", "~/.claude/settings.local.json", "~/.gemini/settings.json", "~/.codex/config.toml",
		"~/.cursor/hooks.json", "@/.claude/settings.json", "@/.guardrun/policy.guard", "@/.cursor/hooks.json", "@/cfg/exfil.guard"}
	ordinary := []string{"@/src/main.go", "@/notes.md", "@/build/out.txt", "@/docs/guide.md", "~/projects/other/x.txt"}

	spell := func(r *rand.Rand, p string) string {
		var abs string
		if strings.HasPrefix(p, "~/") {
			rest := p[2:]
			switch r.Intn(4) {
			case 0:
				return "~/" + rest
			case 1:
				return "$HOME/" + rest
			case 2:
				return "${HOME}/" + rest
			}
			abs = filepath.Join(home, rest)
		} else {
			rest := p[2:]
			if r.Intn(2) == 0 {
				return rest // relative to the workspace (the cwd)
			}
			abs = filepath.Join(ws, rest)
		}
		// Respell an absolute path: doubled slashes, /./, a detour.
		parts := strings.Split(strings.TrimPrefix(abs, "/"), "/")
		var b strings.Builder
		for i, x := range parts {
			b.WriteString("/")
			switch r.Intn(6) {
			case 0:
				b.WriteString("/")
			case 1:
				b.WriteString("./")
			case 2:
				if i < len(parts)-1 {
					b.WriteString("zz/../")
				}
			}
			b.WriteString(x)
		}
		return b.String()
	}
	type form struct {
		tool string
		in   func(p string) map[string]any
	}
	shell := func(f string) form {
		return form{"Bash", func(p string) map[string]any {
			q := p
			if strings.ContainsAny(p, "$") {
				q = `"` + p + `"`
			} else if !strings.HasPrefix(p, "~") {
				q = "'" + p + "'"
			}
			return map[string]any{"command": strings.ReplaceAll(f, "P", q)}
		}}
	}
	forms := []form{
		{"Write", func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} }},
		{"Edit", func(p string) map[string]any {
			return map[string]any{"file_path": p, "old_string": "a", "new_string": "b"}
		}},
		{"MultiEdit", func(p string) map[string]any { return map[string]any{"file_path": p, "edits": []any{}} }},
		{"write_file", func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} }},
		{"replace", func(p string) map[string]any {
			return map[string]any{"file_path": p, "old_string": "a", "new_string": "b"}
		}},
		{"apply_patch", func(p string) map[string]any {
			return map[string]any{"input": "*** Begin Patch\n*** Update File: " + p + "\n@@\n-a\n+b\n*** End Patch\n"}
		}},
		shell("printf x > P"), shell("echo x >> P"), shell("true | tee P"), shell("tee -a P < /dev/null"),
		shell("cp src/main.go P"), shell("mv src/main.go P"), shell("sed -i s/a/b/ P"), shell("truncate -s 0 P"),
		shell("rm -f P"), shell("ln -sf /tmp/x P"), shell("touch P"), shell("install -m 600 src/main.go P"),
		shell("bash -c 'cat >> P' < /dev/null"), shell("cd src && cp main.go P"),
	}
	e := starter(t, ws)
	ctx := context.Background()
	r := rand.New(rand.NewSource(27))
	n := 300
	if testing.Short() {
		n = 60
	}
	for i := 0; i < n; i++ {
		f := forms[r.Intn(len(forms))]
		p := protected[r.Intn(len(protected))]
		sp := spell(r, p)
		if f.tool == "apply_patch" && strings.Contains(sp, "$") {
			sp = filepath.Join(home, strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(sp, "${HOME}/"), "$HOME/"), "~/"))
		}
		in := f.in(sp)
		if strings.HasPrefix(fmt.Sprint(in["command"]), "cd src") && !filepath.IsAbs(sp) && !strings.HasPrefix(sp, "~") && !strings.HasPrefix(sp, "$") {
			in = f.in("../" + sp)
		}
		d := e.Decide(ctx, agent.Event{Kind: agent.ToolBefore, Session: fmt.Sprintf("p%d", i), Tool: f.tool, Cwd: ws, Input: in})
		if d.Outcome == agent.Allow {
			b, _ := json.Marshal(in)
			t.Errorf("protected %s through %s %s: allowed", p, f.tool, b)
		}
		o := ordinary[r.Intn(len(ordinary))]
		so := spell(r, o)
		if f.tool == "apply_patch" && strings.Contains(so, "$") {
			continue
		}
		if strings.HasPrefix(fmt.Sprint(f.in("P")["command"]), "rm ") && strings.Contains(so, "$") {
			// The built-in danger list reads a quoted ${HOME} word as
			// possibly -rf: not what this test measures.
			continue
		}
		in = f.in(so)
		if strings.HasPrefix(fmt.Sprint(in["command"]), "cd src") && !filepath.IsAbs(so) && !strings.HasPrefix(so, "~") && !strings.HasPrefix(so, "$") {
			in = f.in("../" + so)
		}
		d = e.Decide(ctx, agent.Event{Kind: agent.ToolBefore, Session: fmt.Sprintf("o%d", i), Tool: f.tool, Cwd: ws, Input: in})
		if cmd := fmt.Sprint(f.in("P")["command"]); strings.HasPrefix(o, "~") && (strings.HasPrefix(cmd, "rm ") || strings.HasPrefix(cmd, "truncate ")) {
			// A delete outside the workspace is denied as one, not as a
			// protected path.
			if d.Outcome != agent.Deny || d.Denial == nil || d.Denial.Guard != "@deleteOutside" {
				b, _ := json.Marshal(in)
				t.Errorf("ordinary %s outside the workspace through %s %s: %s %s, want the delete denied by @deleteOutside", o, f.tool, b, d.Outcome, d.Reason)
			}
			continue
		}
		if d.Outcome != agent.Allow {
			b, _ := json.Marshal(in)
			t.Errorf("ordinary %s through %s %s: %s %s", o, f.tool, b, d.Outcome, d.Reason)
		}
	}
}

// TestAgentCannotApprove: the agent cannot run guardrun's trust, init or
// revocation through any spelling of the shell, so it cannot approve a
// policy it wrote.
func TestAgentCannotApprove(t *testing.T) {
	ws := t.TempDir()
	e := starter(t, ws)
	for _, c := range []string{
		"guardrun trust .guardrun/policy.guard",
		"mkdir -p .guardrun && echo 'x' > p.guard && guardrun trust p.guard",
		"/usr/local/bin/guardrun trust --user",
		"env guardrun init claude",
		"bash -c 'guardrun trust --revoke x'",
		"cd /tmp && \"guardrun\" trust x",
		"guardrun-hook trust x",
	} {
		d := e.Decide(context.Background(), agent.Event{Kind: agent.ToolBefore, Session: "s", Tool: "Bash", Cwd: ws, Input: map[string]any{"command": c}})
		if d.Outcome != agent.Deny {
			t.Errorf("%s: %s %s", c, d.Outcome, d.Reason)
		}
	}
	for _, c := range []string{"guardrun log --session s", "guardrun check rules/x.guard", "guardrun trust --list"} {
		d := e.Decide(context.Background(), agent.Event{Kind: agent.ToolBefore, Session: "s", Tool: "Bash", Cwd: ws, Input: map[string]any{"command": c}})
		if d.Outcome != agent.Allow {
			t.Errorf("%s: %s %s", c, d.Outcome, d.Reason)
		}
	}
}
