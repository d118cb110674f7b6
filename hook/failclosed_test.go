package hook_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/hook"
)

// TestFailClosed: every failure is the protocol's denial with a reason,
// never a pass. Claude's is exit 2 with the reason on stderr; a guard
// error and the engine's own failures are its JSON deny.
func TestFailClosed(t *testing.T) {
	bash := func(cmd string) map[string]any {
		p := payload(t, "claude", "PreToolUse")
		setCommand(p, cmd)
		return p
	}
	writePolicy := func(e *env, name, src string) string {
		p := filepath.Join(e.home, name)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, e *env) (stdin []byte, args []string)
		// want is a substring of the reason.
		want string
		// json: the denial is Claude's JSON deny (exit 0), not exit 2.
		json bool
	}{
		{"malformed JSON", func(t *testing.T, e *env) ([]byte, []string) {
			return []byte(`{"hook_event_name": "PreToolUse", `), []string{"--policy", testPolicy(t)}
		}, "malformed event", false},
		{"not an object", func(t *testing.T, e *env) ([]byte, []string) {
			return []byte(`["PreToolUse"]`), []string{"--policy", testPolicy(t)}
		}, "not a JSON object", false},
		{"empty stdin", func(t *testing.T, e *env) ([]byte, []string) {
			return nil, []string{"--policy", testPolicy(t)}
		}, "stdin is empty", false},
		{"oversized stdin", func(t *testing.T, e *env) ([]byte, []string) {
			return mustJSON(t, bash("echo "+strings.Repeat("x", 5000))), []string{"--policy", testPolicy(t), "--max-input", "4096"}
		}, "over the 4096-byte limit", false},
		{"no event name", func(t *testing.T, e *env) ([]byte, []string) {
			return []byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`), []string{"--policy", testPolicy(t)}
		}, "no hook_event_name", false},
		{"unknown event with a tool call", func(t *testing.T, e *env) ([]byte, []string) {
			p := bash("rm -rf build")
			p["hook_event_name"] = "PreToolUseV2"
			return mustJSON(t, p), []string{"--policy", testPolicy(t)}
		}, `unknown event "PreToolUseV2" carries a tool call`, false},
		{"tool event without a tool", func(t *testing.T, e *env) ([]byte, []string) {
			p := bash("ls")
			delete(p, "tool_name")
			return mustJSON(t, p), []string{"--policy", testPolicy(t)}
		}, "without tool_name", false},
		{"tool_input not an object", func(t *testing.T, e *env) ([]byte, []string) {
			p := bash("ls")
			p["tool_input"] = 42
			return mustJSON(t, p), []string{"--policy", testPolicy(t)}
		}, "tool_input is not an object", false},
		{"no session id", func(t *testing.T, e *env) ([]byte, []string) {
			p := bash("ls")
			delete(p, "session_id")
			return mustJSON(t, p), []string{"--policy", testPolicy(t)}
		}, "no session id", true},
		{"missing policy", func(t *testing.T, e *env) ([]byte, []string) {
			return mustJSON(t, bash("ls")), nil
		}, "no policy", false},
		{"missing --policy file", func(t *testing.T, e *env) ([]byte, []string) {
			return mustJSON(t, bash("ls")), []string{"--policy", filepath.Join(e.home, "nope.guard")}
		}, "nope.guard", false},
		{"invalid policy", func(t *testing.T, e *env) ([]byte, []string) {
			return mustJSON(t, bash("ls")), []string{"--policy", writePolicy(e, "bad.guard", "guard @g before op:cmd = when [\n")}
		}, "policy:", false},
		{"invalid user policy", func(t *testing.T, e *env) ([]byte, []string) {
			e.brokenUserPolicy(t, "policy @p = { defaults: 3 }\nvar @x = @nope.y\n")
			return mustJSON(t, bash("ls")), nil
		}, "policy:", false},
		{"untrusted workspace policy", func(t *testing.T, e *env) ([]byte, []string) {
			ws := workspace(t, e, "* => allow")
			p := bash("ls")
			p["cwd"] = filepath.Join(ws, "sub")
			return mustJSON(t, p), nil
		}, "is not approved, so every tool call is denied; review it, then approve it with: guardrun trust ", false},
		{"changed workspace policy", func(t *testing.T, e *env) ([]byte, []string) {
			ws := workspace(t, e, "* => allow")
			if r := e.run(t, nil, "trust", filepath.Join(ws, ".guardrun", "policy.guard")); r.code != 0 {
				t.Fatalf("trust: %s", r)
			}
			os.WriteFile(filepath.Join(ws, ".guardrun", "policy.guard"), []byte(wsPolicy("* => deny \"changed\"")), 0o600)
			p := bash("ls")
			p["cwd"] = ws
			return mustJSON(t, p), nil
		}, "changed since you approved it", false},
		{"changed module of a workspace policy", func(t *testing.T, e *env) ([]byte, []string) {
			ws := workspace(t, e, "* => allow")
			mod := filepath.Join(ws, ".guardrun", "mod.guard")
			os.WriteFile(mod, []byte("var @m = 1\nexport { @m }\n"), 0o600)
			os.WriteFile(filepath.Join(ws, ".guardrun", "policy.guard"), []byte("import { @m } from \"./mod.guard\"\n"+wsPolicy("* => allow")), 0o600)
			if r := e.run(t, nil, "trust", filepath.Join(ws, ".guardrun", "policy.guard")); r.code != 0 {
				t.Fatalf("trust: %s", r)
			}
			os.WriteFile(mod, []byte("var @m = 2\nexport { @m }\n"), 0o600)
			p := bash("ls")
			p["cwd"] = ws
			return mustJSON(t, p), nil
		}, "mod.guard imported by workspace policy", false},
		{"guard error", func(t *testing.T, e *env) ([]byte, []string) {
			return mustJSON(t, bash("ERRORME")), []string{"--policy", testPolicy(t)}
		}, "guard @cmd failed", true},
		{"guard outruns the deadline", func(t *testing.T, e *env) ([]byte, []string) {
			return mustJSON(t, bash("SLOWME")), []string{"--policy", testPolicy(t), "--deadline", "300ms"}
		}, "deadline", false},
		{"deadline from the environment is not a duration", func(t *testing.T, e *env) ([]byte, []string) {
			e.extra = append(e.extra, hook.DeadlineEnv+"=soon")
			return mustJSON(t, bash("ls")), []string{"--policy", testPolicy(t)}
		}, "GUARDRUN_HOOK_DEADLINE=\"soon\" is not a duration", false},
		{"deadline from the environment", func(t *testing.T, e *env) ([]byte, []string) {
			e.extra = append(e.extra, hook.DeadlineEnv+"=300ms")
			return mustJSON(t, bash("SLOWME")), []string{"--policy", testPolicy(t)}
		}, "deadline", false},
		{"unwritable store", func(t *testing.T, e *env) ([]byte, []string) {
			// A file where the state directory should be: nothing can be
			// created under it (root ignores permission bits).
			os.WriteFile(filepath.Join(e.state, "guardrun"), []byte("x"), 0o600)
			return mustJSON(t, bash("ls")), []string{"--policy", testPolicy(t)}
		}, "not a directory", false},
		{"unwritable log", func(t *testing.T, e *env) ([]byte, []string) {
			os.MkdirAll(filepath.Join(e.state, "guardrun", "decisions.jsonl"), 0o700)
			return mustJSON(t, bash("ls")), []string{"--policy", testPolicy(t)}
		}, "decision log", false},
		{"corrupt session file", func(t *testing.T, e *env) ([]byte, []string) {
			// A first call creates the session; then its file is garbage.
			p := bash("ls")
			e.run(t, mustJSON(t, p), "hook", "claude", "--policy", testPolicy(t))
			files, _ := filepath.Glob(filepath.Join(e.state, "guardrun", "sessions", "*"))
			for _, f := range files {
				if !strings.HasSuffix(f, ".lock") {
					os.WriteFile(f, []byte("{garbage"), 0o600)
				}
			}
			return mustJSON(t, p), []string{"--policy", testPolicy(t)}
		}, "session", true},
		{"bad command line", func(t *testing.T, e *env) ([]byte, []string) {
			return mustJSON(t, bash("ls")), []string{"--no-such-flag"}
		}, "bad hook command line", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			stdin, args := c.setup(t, e)
			r := e.run(t, stdin, append([]string{"hook", "claude"}, args...)...)
			if c.json {
				if r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, c.want) {
					t.Fatalf("got\n%s\nwant a JSON deny with %q", r, c.want)
				}
				return
			}
			if r.code != 2 || strings.TrimSpace(r.stdout) != "" || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("got\n%s\nwant exit 2, no stdout, stderr with %q", r, c.want)
			}
		})
	}
}

// TestFailClosedEachProtocol: the failure answer of every protocol.
func TestFailClosedEachProtocol(t *testing.T) {
	cases := []struct {
		agent, stdout string
		code          int
	}{
		{"claude", "", 2},
		{"codex", "", 2},
		{"gemini", "", 2},
		{"cursor", `{"agent_message":"guardrun: malformed event: unexpected EOF","permission":"deny","user_message":"guardrun: malformed event: unexpected EOF"}`, 2},
		{"generic", `{"continue":false,"error":"guardrun: malformed event: unexpected EOF","systemMessage":"guardrun: malformed event: unexpected EOF"}`, 1},
	}
	for _, c := range cases {
		t.Run(c.agent, func(t *testing.T) {
			e := newEnv(t)
			r := e.run(t, []byte(`{"x":`), "hook", c.agent, "--policy", testPolicy(t))
			if r.code != c.code || strings.TrimSpace(r.stdout) != c.stdout || !strings.Contains(r.stderr+r.stdout, "malformed event") {
				t.Fatalf("got\n%s\nwant exit %d stdout %s", r, c.code, c.stdout)
			}
		})
	}
}

func wsPolicy(rule string) string {
	return "var tools @agent = { Bash: { labels: [\"cmd\"] } }\nguard @ws before op:cmd = when [\n  " + rule + "\n]\n"
}

// workspace makes a repository with a workspace policy and returns its
// root.
func workspace(t *testing.T, e *env, rule string) string {
	t.Helper()
	ws := filepath.Join(e.home, "repo")
	for _, d := range []string{".git", ".guardrun", "sub"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".guardrun", "policy.guard"), []byte(wsPolicy(rule)), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws
}
