package hook

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/agent"
)

// exitCode finds the non-zero exit status Gemini's shell tool appends to
// a failed command's output.
var exitCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit Code: -?[1-9][0-9]*[ \t\r]*$`) })

// gemini speaks Gemini CLI's hook protocol.
type gemini struct{}

func (gemini) Name() string { return "gemini" }

func (a gemini) Decode(raw map[string]any) (*Call, error) {
	name := str(raw, "hook_event_name")
	if name == "" {
		return nil, fmt.Errorf("malformed event: no hook_event_name (is this a gemini hook event?)")
	}
	c := &Call{Native: name, Cwd: str(raw, "cwd")}
	ev := agent.Event{Session: str(raw, "session_id"), Cwd: c.Cwd}
	switch name {
	case "BeforeTool":
		ev.Kind = agent.ToolBefore
		if err := toolEvent(raw, &ev); err != nil {
			return nil, err
		}
	case "AfterTool":
		ev.Kind = agent.ToolAfter
		if err := toolEvent(raw, &ev); err != nil {
			return nil, err
		}
		resp := raw["tool_response"]
		if m, ok := resp.(map[string]any); ok {
			if e := m["error"]; e != nil {
				ev.Error = flatten(e)
			}
			if lc, ok := m["llmContent"]; ok {
				// What the model reads is what the session must remember.
				resp = lc
			}
		}
		ev.Output = resp
		if ev.Error == "" {
			// The shell tool reports a failed command in its text, not
			// as an error: the session must know the run failed (tests.guard).
			if m := exitCode().FindStringSubmatch(flatten(resp)); m != nil {
				ev.Error = strings.TrimSpace(m[0])
			}
		}
	case "BeforeAgent":
		ev.Kind, ev.Text = agent.PromptSubmit, str(raw, "prompt")
	case "AfterAgent":
		ev.Kind, ev.Text = agent.AgentStop, str(raw, "prompt_response")
		ev.StopActive = boolean(raw, "stop_hook_active")
	case "BeforeModel":
		ev.Kind, ev.Text = agent.ModelBefore, flatten(raw["llm_request"])
		modelCall(raw, &ev)
	case "AfterModel":
		ev.Kind, ev.Text = agent.ModelAfter, flatten(raw["llm_response"])
		modelCall(raw, &ev)
	case "SessionStart":
		ev.Kind, ev.Source = agent.SessionStart, str(raw, "source")
	case "SessionEnd":
		ev.Kind, ev.Source = agent.SessionEnd, str(raw, "reason")
	case "PreCompress":
		ev.Kind, ev.Source = agent.ContextCompress, str(raw, "trigger")
	case "Notification":
		ev.Kind, ev.Text, ev.Source = agent.Notification, str(raw, "message"), str(raw, "notification_type")
	default:
		return unknownEvent(c, raw)
	}
	c.MCP = strings.HasPrefix(ev.Tool, "mcp_")
	c.Events = []agent.Event{ev}
	return c, nil
}

func (a gemini) Answer(c *Call, d agent.Decision) Answer {
	out := map[string]any{}
	spec := hso(c.Native)
	switch d.Outcome {
	case agent.Deny:
		out["decision"], out["reason"] = "deny", reason(d)
	case agent.Retry:
		out["decision"], out["reason"] = "deny", reason(d)
		if c.Native == "AfterAgent" {
			// The reason is the agent's next prompt.
			out["reason"] = cut(nonEmpty(d.Hint, d.Reason))
		}
	case agent.Ask:
		if c.Native == "BeforeTool" {
			// Gemini CLI ≥ 0.36 asks its user on BeforeTool.
			out["decision"], out["reason"] = "ask", askText(d)
		} else {
			out["decision"], out["reason"] = "deny", askReason(d)
		}
	default:
		if d.Input != nil && c.Native == "BeforeTool" {
			// Gemini merges tool_input over the call's arguments, so a
			// rewrite that drops a field cannot be applied: refuse it.
			if gone := removedKeys(c.Events[0].Input, d.Input); len(gone) > 0 {
				out["decision"] = "deny"
				out["reason"] = cut("guardrun: the policy's rewrite removes " + strings.Join(gone, ", ") + " from the tool input, which Gemini CLI cannot apply")
			} else {
				spec["tool_input"] = d.Input
			}
		}
		if d.Output != nil && c.Native == "AfterTool" {
			// AfterTool's only way to replace a result: a denial whose
			// reason the model reads instead.
			out["decision"], out["reason"] = "deny", cut(outputText(d.Output))
		}
	}
	if ctx := joinInjections(d.Context); ctx != "" {
		spec["additionalContext"] = cut(ctx)
		if r, ok := out["reason"].(string); ok && out["decision"] == "deny" && c.Native == "BeforeTool" {
			// Gemini CLI shows the model a BeforeTool denial's reason,
			// not its additionalContext.
			out["reason"] = withContext(r, ctx)
		}
	}
	if len(spec) > 1 {
		out["hookSpecificOutput"] = spec
	}
	if msg := joinInjections(d.Messages); msg != "" {
		out["systemMessage"] = cut(msg)
	}
	return Answer{Stdout: encode(out)}
}

// Fail is exit 2 with the reason on stderr and nothing on stdout: Gemini
// CLI denies on a non-zero exit with text. On AfterAgent a denial means
// "keep working, with the reason as the next prompt": a failure there
// lets the agent stop (no objection; the reason is in the decision log
// and shown to the user).
func (gemini) Fail(c *Call, reason string) Answer {
	if c != nil && c.Native == "AfterAgent" {
		return Answer{Stdout: encode(map[string]any{"systemMessage": failText(reason) + " (on AfterAgent: the agent is let stop)"})}
	}
	return Answer{Stderr: failText(reason) + "\n", Code: 2}
}

// modelCall reads a model event's model (llm_request.model) and the
// tokens Gemini reported (llm_response.usageMetadata: promptTokenCount,
// candidatesTokenCount), which the session's account prefers to
// counting the text.
func modelCall(raw map[string]any, ev *agent.Event) {
	if req, ok := raw["llm_request"].(map[string]any); ok {
		ev.Model = str(req, "model")
	}
	resp, _ := raw["llm_response"].(map[string]any)
	um, ok := resp["usageMetadata"].(map[string]any)
	if !ok {
		return
	}
	in, okIn := tokenCount(um["promptTokenCount"])
	out, okOut := tokenCount(um["candidatesTokenCount"])
	if okIn || okOut {
		ev.Usage = &agent.Usage{Input: in, Output: out}
	}
}

// tokenCount reads a JSON token count; anything else is not one.
func tokenCount(v any) (int64, bool) {
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case int64:
		return max(t, 0), true
	case json.Number:
		n, err := t.Float64()
		if err != nil {
			return 0, false
		}
		f = n
	default:
		return 0, false
	}
	if f < 0 || f > 1e15 {
		return 0, false
	}
	return int64(f), true
}

func outputText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return strings.TrimSpace(string(encode(v)))
}
