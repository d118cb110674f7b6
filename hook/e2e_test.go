package hook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/hook"
)

var update = flag.Bool("update", false, "rewrite the .want files of TestPayloads")

// bin is the guardrun binary the end-to-end tests run, built once; slim
// is guardrun-hook, built beside it, and lone a guardrun-hook with no
// guardrun beside it.
var bin, slim, lone string

// goBuild builds pkg into out as the README installs it: static
// (CGO_ENABLED=0), so a hook process maps no dynamic loader or libc.
func goBuild(out, pkg string) ([]byte, error) {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd.CombinedOutput()
}

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "guardrun-hook-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "guardrun")
	if out, err := goBuild(bin, "github.com/guardrun/guardrun/cmd/guardrun"); err != nil {
		fmt.Fprintf(os.Stderr, "building guardrun: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	slim = filepath.Join(dir, "guardrun-hook")
	lone = filepath.Join(dir, "lone", "guardrun-hook")
	for _, out := range []string{slim, lone} {
		if out, err := goBuild(out, "github.com/guardrun/guardrun/cmd/guardrun-hook"); err != nil {
			fmt.Fprintf(os.Stderr, "building guardrun-hook: %v\n%s", err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one test's private XDG directories and home.
type env struct {
	home, config, state, data string
	extra                     []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{home: filepath.Join(root, "home"), config: filepath.Join(root, "config"),
		state: filepath.Join(root, "state"), data: filepath.Join(root, "data")}
	for _, d := range []string{e.home, e.config, e.state, e.data} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *env) vars() []string {
	keep := []string{}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "PATH" || k == "TMPDIR" || k == "GOCOVERDIR" {
			keep = append(keep, kv)
		}
	}
	// A hook's 3 s deadline is a product setting; these tests are about
	// what it decides, and a loaded machine must not make them deny
	// (a test of the deadline passes --deadline, which wins).
	return append(append(keep, "HOME="+e.home, "XDG_CONFIG_HOME="+e.config, "XDG_STATE_HOME="+e.state, "XDG_DATA_HOME="+e.data, "XDG_CACHE_HOME="+filepath.Join(e.home, ".cache"),
		hook.DeadlineEnv+"=60s"), e.extra...)
}

// logged lists the decision log's records as "logged: EVENT TOOL
// DECISION" lines: what the payload was decoded and decided as.
func (e *env) logged(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.state, "guardrun", "decisions.jsonl"))
	if err != nil {
		return "logged: nothing\n"
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct{ Event, Tool, Decision string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("torn log line %q: %v", line, err)
		}
		fmt.Fprintf(&out, "logged: %s %s %s\n", r.Event, r.Tool, r.Decision)
	}
	return out.String()
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, strings.TrimSpace(r.stdout), strings.TrimSpace(r.stderr))
}

// run runs guardrun with args and stdin in e.
func (e *env) run(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	return e.runBin(t, bin, stdin, args...)
}

// runBin runs the program path with args and stdin in e.
func (e *env) runBin(t *testing.T, path string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = e.vars()
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running guardrun: %v", err)
	}
	return r
}

// userPolicy writes src as the user's policy and pins it the way a user
// does after writing one by hand: guardrun trust --user.
func (e *env) userPolicy(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(e.config, "guardrun", "policy.guard")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run(t, nil, "trust", "--user"); r.code != 0 || !strings.Contains(r.stdout, "pinned your policy "+p) {
		t.Fatalf("trust --user: got\n%s", r)
	}
	return p
}

// brokenUserPolicy writes src, a policy the hook cannot load, as the
// user's policy and pins it as guardrun trust --user would if it did not
// load it first (trust refuses such a policy): the state a user is in
// when their pinned policy stops loading, e.g. after an upgrade that
// validates more.
func (e *env) brokenUserPolicy(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(e.config, "guardrun", "policy.guard")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", e.home)
	t.Setenv("XDG_CONFIG_HOME", e.config)
	t.Setenv("XDG_DATA_HOME", e.data)
	store, err := hook.DefaultTrustStore()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.TrustUser(); err != nil {
		t.Fatal(err)
	}
	if r := e.run(t, nil, "trust", "--user"); r.code == 0 {
		t.Fatalf("trust --user pinned a policy the hook cannot load:\n%s", r)
	}
	return p
}

func testPolicy(t *testing.T) string {
	p, err := filepath.Abs("testdata/policy.guard")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func starterPolicy(t *testing.T) string {
	p, err := filepath.Abs("../rules/policy.guard")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func payload(t *testing.T, agent, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/payloads", agent, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPayloads runs every recorded payload (written from the hosts' docs,
// one per event each host sends) through the binary with the test policy
// and compares exit code, stdout and stderr with its .want file.
func TestPayloads(t *testing.T) {
	agents, err := os.ReadDir("testdata/payloads")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		files, _ := filepath.Glob(filepath.Join("testdata/payloads", a.Name(), "*.json"))
		sort.Strings(files)
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".json")
			t.Run(a.Name()+"/"+name, func(t *testing.T) {
				e := newEnv(t)
				in, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				got := e.run(t, in, "hook", a.Name(), "--policy", testPolicy(t)).String() + "\n" + e.logged(t)
				wantFile := strings.TrimSuffix(f, ".json") + ".want"
				if *update {
					if err := os.WriteFile(wantFile, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(wantFile)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got != string(want) {
					t.Errorf("got\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

// outcomeCase is one decision rendered in one protocol.
type outcomeCase struct {
	agent, event, marker string
	code                 int
	stdout               string // exact ("" for none), or ~substring
	stderr               string // substring
}

// setCommand puts cmd into a payload's command, wherever the host keeps it.
func setCommand(p map[string]any, cmd string) {
	if in, ok := p["tool_input"].(map[string]any); ok {
		in["command"] = cmd
		return
	}
	if d, ok := p["data"].(map[string]any); ok {
		d["input"] = map[string]any{"command": cmd}
		return
	}
	p["command"] = cmd
}

// deniedByCmd is the reason, JSON-escaped, of the test policy's guard
// @cmd denying command: what matched, the guard, and its opt-in.
func deniedByCmd(command string) string {
	return "guardrun: test deny (`" + command + "`; guard @cmd). To allow it, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } }"
}

// TestOutcomes checks each outcome (deny, ask, retry, rewrite, context)
// in each protocol's words on its tool-call event, and the stop retry.
func TestOutcomes(t *testing.T) {
	cases := []outcomeCase{
		{"claude", "PreToolUse", "DENYME", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + deniedByCmd("run DENYME") + `"}}`, ""},
		{"claude", "PreToolUse", "ASKME", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"guardrun asks: test ask? (guard @cmd). If nobody can answer here (a non-interactive run): approve it in an interactive session, or allow it in your policy (to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })"}}`, ""},
		{"claude", "PreToolUse", "RETRYME", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guardrun: test hint (guard @cmd)"}}`, ""},
		{"claude", "PreToolUse", "REWRITEME", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"guardrun: input rewritten by the policy","updatedInput":{"command":"echo rewritten","description":"List files","timeout":120000}}}`, ""},
		{"claude", "PreToolUse", "CONTEXTME", 0, `{"hookSpecificOutput":{"additionalContext":"test context","hookEventName":"PreToolUse"}}`, ""},
		{"codex", "PreToolUse", "DENYME", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + deniedByCmd("run DENYME") + `"}}`, ""},
		{"codex", "PreToolUse", "ASKME", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guardrun: approval required, and this host cannot ask for it here: test ask? (guard @cmd) — approve it in an interactive session, or allow it in your policy (to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })"}}`, ""},
		{"codex", "PreToolUse", "REWRITEME", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"guardrun: input rewritten by the policy","updatedInput":{"command":"echo rewritten"}}}`, ""},
		{"codex", "PreToolUse", "CONTEXTME", 0, ``, ""},
		{"gemini", "BeforeTool", "DENYME", 0, `{"decision":"deny","reason":"` + deniedByCmd("run DENYME") + `"}`, ""},
		{"gemini", "BeforeTool", "ASKME", 0, `{"decision":"ask","reason":"guardrun asks: test ask? (guard @cmd). If nobody can answer here (a non-interactive run): approve it in an interactive session, or allow it in your policy (to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })"}`, ""},
		{"gemini", "BeforeTool", "RETRYME", 0, `{"decision":"deny","reason":"guardrun: test hint (guard @cmd)"}`, ""},
		{"gemini", "BeforeTool", "REWRITEME", 0, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"echo rewritten","description":"list"}}}`, ""},
		{"gemini", "BeforeTool", "CONTEXTME", 0, `{"hookSpecificOutput":{"additionalContext":"test context","hookEventName":"BeforeTool"}}`, ""},
		{"cursor", "beforeShellExecution", "DENYME", 0, `{"agent_message":"` + deniedByCmd("run DENYME") + `","permission":"deny","user_message":"` + deniedByCmd("run DENYME") + `"}`, ""},
		{"cursor", "beforeShellExecution", "ASKME", 0, `{"agent_message":"guardrun asks: test ask? (guard @cmd). If nobody can answer here (a non-interactive run): approve it in an interactive session, or allow it in your policy (to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })","permission":"ask","user_message":"guardrun asks: test ask? (guard @cmd). If nobody can answer here (a non-interactive run): approve it in an interactive session, or allow it in your policy (to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })"}`, ""},
		{"cursor", "beforeShellExecution", "REWRITEME", 0, `{"agent_message":"guardrun: the policy rewrote the input, and Cursor cannot apply a rewrite on beforeShellExecution","permission":"deny","user_message":"guardrun: the policy rewrote the input, and Cursor cannot apply a rewrite on beforeShellExecution"}`, ""},
		{"cursor", "preToolUse", "ASKME", 0, `{"agent_message":"guardrun: approval required, and this host cannot ask for it here: test ask? (guard @cmd) — approve it in an interactive session, or allow it in your policy (to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })","permission":"deny","user_message":"guardrun: approval required, and this host cannot ask for it here: test ask? (guard @cmd) — approve it in an interactive session, or allow it in your policy (to stop asking, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } })"}`, ""},
		{"cursor", "preToolUse", "REWRITEME", 0, `{"permission":"allow","updated_input":{"command":"echo rewritten"}}`, ""},
		{"cursor", "preToolUse", "CONTEXTME", 0, `{"agent_message":"test context","permission":"allow"}`, ""},
		{"generic", "tool.before", "DENYME", 0, `{"continue":false,"systemMessage":"` + deniedByCmd("run DENYME") + `"}`, ""},
		{"generic", "tool.before", "ASKME", 0, `{"continue":false,"decision":"ask","systemMessage":"guardrun: approval required: test ask?"}`, ""},
		{"generic", "tool.before", "RETRYME", 0, `{"continue":false,"decision":"retry","systemMessage":"guardrun: test hint (guard @cmd)"}`, ""},
		{"generic", "tool.before", "REWRITEME", 0, `{"continue":true,"data":{"command":"echo rewritten"}}`, ""},
		{"claude", "PreToolUse", "ERRORME", 0, `~"permissionDecision":"deny","permissionDecisionReason":"guardrun: guard @cmd failed: `, ""},
	}
	for _, c := range cases {
		t.Run(c.agent+"/"+c.event+"/"+c.marker, func(t *testing.T) {
			e := newEnv(t)
			p := payload(t, c.agent, c.event)
			setCommand(p, "run "+c.marker)
			r := e.run(t, mustJSON(t, p), "hook", c.agent, "--policy", testPolicy(t))
			same := strings.TrimSpace(r.stdout) == c.stdout
			if sub, ok := strings.CutPrefix(c.stdout, "~"); ok {
				same = strings.Contains(r.stdout, sub)
			}
			if r.code != c.code || !same || !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("got\n%s\nwant exit %d\nstdout: %s\nstderr containing %q", r, c.code, c.stdout, c.stderr)
			}
		})
	}
}

// TestStopRetry: a stop retry keeps the agent working in each protocol's
// words, and not once a stop hook is already active.
func TestStopRetry(t *testing.T) {
	cases := []struct {
		agent, event, field, active string
		activeVal                   any
		want                        string
	}{
		{"claude", "Stop", "last_assistant_message", "stop_hook_active", true, `{"decision":"block","reason":"keep going: run the tests"}`},
		{"claude", "SubagentStop", "last_assistant_message", "stop_hook_active", true, `{"decision":"block","reason":"keep going: run the tests"}`},
		{"codex", "Stop", "last_assistant_message", "stop_hook_active", true, `{"decision":"block","reason":"keep going: run the tests"}`},
		{"gemini", "AfterAgent", "prompt_response", "stop_hook_active", true, `{"decision":"deny","reason":"keep going: run the tests"}`},
	}
	for _, c := range cases {
		t.Run(c.agent+"/"+c.event, func(t *testing.T) {
			e := newEnv(t)
			p := payload(t, c.agent, c.event)
			p[c.field] = "done RETRYME"
			r := e.run(t, mustJSON(t, p), "hook", c.agent, "--policy", testPolicy(t))
			if r.code != 0 || strings.TrimSpace(r.stdout) != c.want {
				t.Errorf("got\n%s\nwant %s", r, c.want)
			}
			p[c.active] = c.activeVal
			r = e.run(t, mustJSON(t, p), "hook", c.agent, "--policy", testPolicy(t))
			if r.code != 0 || strings.Contains(r.stdout, "decision") {
				t.Errorf("with the stop hook active: got\n%s\nwant no objection", r)
			}
		})
	}
	t.Run("cursor/stop", func(t *testing.T) {
		e := newEnv(t)
		p := payload(t, "cursor", "stop")
		// Cursor's stop carries no message: the status is the source.
		e.extra = nil
		r := e.run(t, mustJSON(t, p), "hook", "cursor", "--policy", testPolicy(t))
		if r.code != 0 || strings.TrimSpace(r.stdout) != "{}" {
			t.Errorf("got\n%s", r)
		}
	})
}

// TestTransformOutput: an after-guard's transform in each protocol that
// has one.
func TestTransformOutput(t *testing.T) {
	e := newEnv(t)
	cl := payload(t, "claude", "PostToolUse")
	cl["tool_name"] = "Redactor"
	cl["tool_response"] = "user=a PASSWORD=hunter2"
	r := e.run(t, mustJSON(t, cl), "hook", "claude", "--policy", testPolicy(t))
	if want := `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"user=a PASSWORD=[redacted] hunter2"}}`; strings.TrimSpace(r.stdout) != want {
		t.Errorf("claude: got\n%s\nwant %s", r, want)
	}
	gm := payload(t, "gemini", "AfterTool")
	gm["tool_name"] = "Redactor"
	gm["tool_response"] = map[string]any{"llmContent": "user=a PASSWORD=hunter2", "returnDisplay": "x"}
	r = e.run(t, mustJSON(t, gm), "hook", "gemini", "--policy", testPolicy(t))
	if want := `{"decision":"deny","reason":"user=a PASSWORD=[redacted] hunter2"}`; strings.TrimSpace(r.stdout) != want {
		t.Errorf("gemini: got\n%s\nwant %s", r, want)
	}
}

// TestBOM: byte-order marks before the JSON are skipped.
func TestBOM(t *testing.T) {
	e := newEnv(t)
	in := append([]byte("\xEF\xBB\xBF\xEF\xBB\xBF"), mustJSON(t, payload(t, "cursor", "beforeShellExecution"))...)
	r := e.run(t, in, "hook", "cursor", "--policy", testPolicy(t))
	if r.code != 0 || strings.TrimSpace(r.stdout) != `{"permission":"allow"}` {
		t.Errorf("got\n%s", r)
	}
}
