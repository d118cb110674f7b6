package hook_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnattended: with --unattended (or GUARDRUN_UNATTENDED=1) an ask is
// a denial that says what needs approval and how to grant it, on every
// host: Gemini CLI headless would otherwise wait for a confirmation
// nobody gives. It names the opt-in that stops the guard asking.
func TestUnattended(t *testing.T) {
	const want = "approval required, and this run is unattended (guardrun hook --unattended): test ask? (guard @cmd) — approve it in an interactive session, or allow it in your policy"
	cases := []struct{ agent, event, deny string }{
		{"gemini", "BeforeTool", `"decision":"deny"`},
		{"claude", "PreToolUse", `"permissionDecision":"deny"`},
		{"codex", "PreToolUse", `"permissionDecision":"deny"`},
		{"cursor", "beforeShellExecution", `"permission":"deny"`},
	}
	for _, c := range cases {
		for _, how := range []string{"flag", "env"} {
			t.Run(c.agent+"/"+how, func(t *testing.T) {
				e := newEnv(t)
				p := payload(t, c.agent, c.event)
				setCommand(p, "run ASKME")
				args := []string{"hook", c.agent, "--policy", testPolicy(t)}
				if how == "flag" {
					args = append(args, "--unattended")
				} else {
					e.extra = append(e.extra, "GUARDRUN_UNATTENDED=1")
				}
				r := e.run(t, mustJSON(t, p), args...)
				if r.code != 0 || !strings.Contains(r.stdout, c.deny) || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, `"ask"`) {
					t.Errorf("got\n%s\nwant a denial with %q", r, want)
				}
				// The guard that asked can be turned off where it is
				// declared: the denial says how.
				if optIn := "(to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })"; !strings.Contains(r.stdout, optIn) {
					t.Errorf("got\n%s\nwant the opt-in %q", r, optIn)
				}
			})
		}
	}
}

// TestStopFailureLetsAgentStop: a policy that fails on the stop event
// (a guard error, or no policy at all) lets the agent stop: refusing a
// stop means "keep working" to every host. The failure is logged.
func TestStopFailureLetsAgentStop(t *testing.T) {
	cases := []struct {
		agent, event, field string
		stdout              string // substring, or "" for empty
	}{
		{"claude", "Stop", "last_assistant_message", `"systemMessage":"guardrun: `},
		{"claude", "SubagentStop", "last_assistant_message", `the agent is let stop`},
		{"codex", "Stop", "last_assistant_message", ""},
		{"gemini", "AfterAgent", "prompt_response", `"systemMessage":"guardrun: `},
	}
	for _, c := range cases {
		for _, broken := range []string{"guard error", "missing policy"} {
			t.Run(c.agent+"/"+c.event+"/"+broken, func(t *testing.T) {
				e := newEnv(t)
				p := payload(t, c.agent, c.event)
				p[c.field] = "done ERRORME"
				pol := testPolicy(t)
				if broken == "missing policy" {
					pol = filepath.Join(e.home, "nothing.guard")
				}
				r := e.run(t, mustJSON(t, p), "hook", c.agent, "--policy", pol)
				out := strings.TrimSpace(r.stdout)
				if r.code != 0 || strings.Contains(out, `"decision"`) || (c.stdout == "" && out != "") || !strings.Contains(out, c.stdout) {
					t.Errorf("got\n%s\nwant exit 0, no decision, stdout with %q", r, c.stdout)
				}
				if broken == "missing policy" && !strings.Contains(e.logged(t), "agent.stop  allow") {
					t.Errorf("the failure is not logged as a stop let through:\n%s", e.logged(t))
				}
			})
		}
	}
	t.Run("claude/Stop/oversized", func(t *testing.T) {
		e := newEnv(t)
		p := payload(t, "claude", "Stop")
		// The message comes last: the event name is read before the cap.
		p["zz_last_assistant_message"] = strings.Repeat("x", 5000)
		r := e.run(t, mustJSON(t, p), "hook", "claude", "--policy", testPolicy(t), "--max-input", "4096")
		if r.code != 0 || strings.Contains(r.stdout, `"decision"`) {
			t.Errorf("got\n%s\nwant the agent let stop", r)
		}
	})
	t.Run("cursor/stop", func(t *testing.T) {
		e := newEnv(t)
		p := payload(t, "cursor", "stop")
		r := e.run(t, mustJSON(t, p), "hook", "cursor", "--policy", filepath.Join(e.home, "nothing.guard"))
		if r.code != 0 || strings.TrimSpace(r.stdout) != "{}" {
			t.Errorf("got\n%s\nwant {} and exit 0", r)
		}
	})
}

// TestPermissionRequest: Claude Code's and Codex's PermissionRequest is
// decided as the tool call it is and answered in its format:
// hookSpecificOutput.decision {behavior, message}; an ask leaves the
// host's own prompt to ask; exit 2 is not honoured there, so a failure
// is the JSON denial too.
func TestPermissionRequest(t *testing.T) {
	for _, agent := range []string{"claude", "codex"} {
		noObjection := "{}"
		if agent == "codex" {
			noObjection = ""
		}
		cases := []struct{ name, cmd, want string }{
			{"deny", "run DENYME", `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"` + deniedByCmd("run DENYME") + `"},"hookEventName":"PermissionRequest"}}`},
			{"deny with context", "run DENYCTXME", `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"` + deniedByCmd("run DENYCTXME") + `\ntest deny details"},"hookEventName":"PermissionRequest"}}`},
			{"allow", "ls", noObjection},
			{"ask", "run ASKME", noObjection},
			{"error", "run ERRORME", `~"behavior":"deny","message":"guardrun: guard @cmd failed`},
		}
		for _, c := range cases {
			t.Run(agent+"/"+c.name, func(t *testing.T) {
				e := newEnv(t)
				p := payload(t, "codex", "PermissionRequest")
				setCommand(p, c.cmd)
				r := e.run(t, mustJSON(t, p), "hook", agent, "--policy", testPolicy(t))
				got := strings.TrimSpace(r.stdout)
				same := got == c.want
				if sub, ok := strings.CutPrefix(c.want, "~"); ok {
					same = strings.Contains(got, sub)
				}
				if r.code != 0 || !same {
					t.Errorf("got\n%s\nwant %s", r, c.want)
				}
				if !strings.Contains(e.logged(t), "tool.before Bash") {
					t.Errorf("not decided as a tool call:\n%s", e.logged(t))
				}
			})
		}
		t.Run(agent+"/broken policy", func(t *testing.T) {
			e := newEnv(t)
			p := payload(t, "codex", "PermissionRequest")
			r := e.run(t, mustJSON(t, p), "hook", agent, "--policy", filepath.Join(e.home, "nothing.guard"))
			if r.code != 0 || !strings.Contains(r.stdout, `"behavior":"deny"`) {
				t.Errorf("got\n%s\nwant the JSON denial, exit 0", r)
			}
		})
	}
}

// TestFailuresLogged: a fail-closed answer (a broken or unapproved
// policy, a malformed event) is on the decision log with its reason:
// on Codex the user sees only that the call was blocked.
func TestFailuresLogged(t *testing.T) {
	e := newEnv(t)
	p := payload(t, "codex", "PreToolUse")
	r := e.run(t, mustJSON(t, p), "hook", "codex", "--policy", filepath.Join(e.home, "nothing.guard"))
	if r.code != 2 {
		t.Fatalf("got\n%s\nwant exit 2", r)
	}
	b, err := os.ReadFile(filepath.Join(e.state, "guardrun", "decisions.jsonl"))
	if err != nil {
		t.Fatalf("no decision log: %v", err)
	}
	if s := string(b); !strings.Contains(s, `"decision":"deny"`) || !strings.Contains(s, "guardrun could not decide") || !strings.Contains(s, "nothing.guard") || !strings.Contains(s, `"tool":"Bash"`) {
		t.Errorf("log:\n%s", s)
	}
	// An event that cannot be read is logged with what could be.
	e = newEnv(t)
	e.run(t, []byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}`), "hook", "claude", "--policy", testPolicy(t))
	if got := e.logged(t); !strings.Contains(got, "host:PreToolUse Bash deny") {
		t.Errorf("log:\n%s", got)
	}
}

// TestDenialContextInReason: a denial's context for the model (the
// STALE_FILE details) reaches it on hosts that show a denial's reason
// but drop its additionalContext: Gemini CLI's BeforeTool, Codex's
// PreToolUse, Cursor's agent_message.
func TestDenialContextInReason(t *testing.T) {
	cases := []struct{ agent, event, want string }{
		{"gemini", "BeforeTool", `"reason":"` + deniedByCmd("run DENYCTXME") + `\ntest deny details"`},
		{"codex", "PreToolUse", `"permissionDecisionReason":"` + deniedByCmd("run DENYCTXME") + `\ntest deny details"`},
		{"cursor", "beforeShellExecution", `"agent_message":"` + deniedByCmd("run DENYCTXME") + `\ntest deny details"`},
		{"claude", "PreToolUse", `"additionalContext":"test deny details"`},
	}
	for _, c := range cases {
		t.Run(c.agent, func(t *testing.T) {
			e := newEnv(t)
			p := payload(t, c.agent, c.event)
			setCommand(p, "run DENYCTXME")
			r := e.run(t, mustJSON(t, p), "hook", c.agent, "--policy", testPolicy(t))
			if !strings.Contains(r.stdout, strings.ReplaceAll(c.want, `\n`, `\n`)) {
				t.Errorf("got\n%s\nwant %s", r, c.want)
			}
		})
	}
}

// A host started headless (gemini -p, here a stand-in named gemini that
// runs the hook through its shell) gets a denial naming the opt-in for
// an ask, without --unattended: on main it got the ask, and Gemini CLI
// headless waits for that confirmation until it is killed. The same
// host started interactively still asks.
func TestHeadlessHostDetected(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc: the host's command line cannot be read here")
	}
	for _, c := range []struct {
		host, event string
		args        []string
		deny        string
	}{
		{"gemini", "BeforeTool", []string{"-p", "fix the build"}, `"decision":"deny"`},
		{"gemini", "BeforeTool", []string{"--yolo"}, `"decision":"deny"`},
		{"claude", "PreToolUse", []string{"-p", "fix the build"}, `"permissionDecision":"deny"`},
		{"gemini", "BeforeTool", nil, ""},
	} {
		t.Run(c.host+strings.Join(c.args, ""), func(t *testing.T) {
			e := newEnv(t)
			p := payload(t, c.host, c.event)
			setCommand(p, "run ASKME")
			in := filepath.Join(t.TempDir(), "event.json")
			write(t, in, string(mustJSON(t, p)))
			host := filepath.Join(t.TempDir(), c.host)
			write(t, host, "\""+bin+"\" hook "+c.host+" --policy \""+testPolicy(t)+"\" < \""+in+"\"\nexit $?\n")
			r := e.runBin(t, "/bin/sh", nil, append([]string{host}, c.args...)...)
			if c.deny == "" {
				if r.code != 0 || !strings.Contains(r.stdout, `"ask"`) {
					t.Fatalf("interactive: want the ask, got\n%s", r)
				}
				return
			}
			want := "approval required, and this run is unattended (" + c.host + " " + c.args[0] + "): test ask? (guard @cmd)"
			optIn := "(to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })"
			if r.code != 0 || !strings.Contains(r.stdout, c.deny) || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, optIn) {
				t.Fatalf("got\n%s\nwant a denial with %q and %q", r, want, optIn)
			}
		})
	}
}
