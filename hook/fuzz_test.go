package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/agent"
)

// The event decoders of `guardrun hook`, one fuzz target per protocol:
// whatever the host sends, no panic; an event that cannot be read is
// denied in the protocol's words; one that can is decoded into events
// the engine can decide, and every decision about it renders, a denial
// of a tool call as a denial.

func FuzzClaude(f *testing.F) { fuzzAdapter(f, "claude") }
func FuzzCodex(f *testing.F)  { fuzzAdapter(f, "codex") }
func FuzzGemini(f *testing.F) { fuzzAdapter(f, "gemini") }
func FuzzCursor(f *testing.F) { fuzzAdapter(f, "cursor") }

func fuzzAdapter(f *testing.F, name string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "payloads", name, "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
			// A cut event is a malformed one.
			f.Add(b[:len(b)/2])
		}
	}
	for _, s := range []string{``, `null`, `[]`, `"x"`, `{}`, `{"hook_event_name":1}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"","tool_input":{}}`,
		`{"hook_event_name":"beforeShellExecution","command":["x"]}`,
		`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"cwd":7}`,
		`{"hook_event_name":"stop","loop_count":"2"}`,
		"\xef\xbb\xbf{\"hook_event_name\":\"Stop\"}"} {
		f.Add([]byte(s))
	}
	a := Adapters[name]
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, err := readEvent(bytes.NewReader(b), DefaultMaxInput)
		var call *Call
		if err == nil {
			call, err = a.Decode(raw)
		}
		if err != nil {
			if call != nil {
				t.Fatalf("Decode returned a call and an error")
			}
			checkDenied(t, name, a.Fail(nil, err.Error()), "")
			return
		}
		if call.Observed {
			if len(call.Events) != 0 {
				t.Fatalf("an observed event with events to decide")
			}
			return
		}
		if len(call.Events) == 0 {
			t.Fatalf("decoded %q into no events", call.Native)
		}
		for _, ev := range call.Events {
			if ev.Kind == "" {
				t.Fatalf("%q: an event without a kind", call.Native)
			}
			if (ev.Kind == agent.ToolBefore || ev.Kind == agent.ToolAfter) && (ev.Tool == "" || ev.Input == nil && name != "cursor") {
				t.Fatalf("%q: a tool event without its tool (%q) or input", call.Native, ev.Tool)
			}
		}
		for _, d := range []agent.Decision{
			{Outcome: agent.Allow},
			{Outcome: agent.Allow, Input: map[string]any{"command": "x"}, Output: "y", Context: []agent.Injection{{Text: "c"}}, Messages: []agent.Injection{{Text: "m"}}},
			{Outcome: agent.Ask, Question: "q?"},
			{Outcome: agent.Retry, Hint: "h"},
			{Outcome: agent.Deny, Reason: "r", Denial: &agent.Denial{Denial: guardrun.Denial{Class: agent.ClassPolicy, Rule: "x"}}},
		} {
			ans := a.Answer(call, d)
			if len(bytes.TrimSpace(ans.Stdout)) > 0 && !json.Valid(ans.Stdout) {
				t.Fatalf("%q: %s answer is not JSON: %q", call.Native, d.Outcome, ans.Stdout)
			}
			if d.Outcome == agent.Deny && call.Events[0].Kind == agent.ToolBefore {
				checkDenied(t, name, ans, call.Native)
			}
		}
		if call.Events[0].Kind == agent.ToolBefore {
			checkDenied(t, name, a.Fail(call, "broken"), call.Native)
		}
	})
}

// checkDenied fails t unless ans refuses the tool call of event native
// ("" for an event that could not be read) in protocol name's words.
func checkDenied(t *testing.T, name string, ans Answer, native string) {
	t.Helper()
	out := string(ans.Stdout)
	var ok bool
	switch name {
	case "claude", "codex":
		ok = ans.Code == 2 && ans.Stderr != "" ||
			strings.Contains(out, `"permissionDecision":"deny"`) || strings.Contains(out, `"behavior":"deny"`)
	case "gemini":
		ok = ans.Code == 2 && ans.Stderr != "" || strings.Contains(out, `"decision":"deny"`)
	case "cursor":
		if native != "" && !permissionEvent(native) {
			// An after event or prompt cannot refuse a tool call.
			return
		}
		ok = ans.Code == 2 || strings.Contains(out, `"permission":"deny"`)
	}
	if !ok {
		t.Fatalf("%s %q: not a denial: exit %d, stdout %q, stderr %q", name, native, ans.Code, out, ans.Stderr)
	}
}
