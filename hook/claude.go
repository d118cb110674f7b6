package hook

import (
	"fmt"
	"strings"

	"github.com/guardrun/guardrun/agent"
)

// claude speaks Claude Code's hook protocol; with codex set, Codex CLI's
// stricter version of it (no ask, allow only with updatedInput, a deny
// needs a reason, no fields the parser does not know).
type claude struct{ codex bool }

func (a claude) Name() string {
	if a.codex {
		return "codex"
	}
	return "claude"
}

// toolEvent fills the tool fields of a Claude-style event.
func toolEvent(raw map[string]any, ev *agent.Event) error {
	ev.Tool = str(raw, "tool_name")
	if ev.Tool == "" {
		return fmt.Errorf("malformed event: %s without tool_name", str(raw, "hook_event_name"))
	}
	in, err := object(raw, "tool_input")
	if err != nil {
		return err
	}
	ev.Input = in
	ev.CallID = str(raw, "tool_use_id")
	return nil
}

func (a claude) Decode(raw map[string]any) (*Call, error) {
	name := str(raw, "hook_event_name")
	if name == "" {
		return nil, fmt.Errorf("malformed event: no hook_event_name (is this a %s hook event?)", a.Name())
	}
	c := &Call{Native: name, Cwd: str(raw, "cwd")}
	ev := agent.Event{Session: str(raw, "session_id"), Cwd: c.Cwd}
	switch name {
	case "PreToolUse", "PermissionRequest":
		// A permission request is the tool call the host is about to
		// ask its user about: decided as the call it is.
		ev.Kind = agent.ToolBefore
		if err := toolEvent(raw, &ev); err != nil {
			return nil, err
		}
	case "PostToolUse", "PostToolUseFailure":
		ev.Kind = agent.ToolAfter
		if err := toolEvent(raw, &ev); err != nil {
			return nil, err
		}
		ev.Output = raw["tool_response"]
		if name == "PostToolUseFailure" {
			ev.Error = str(raw, "error")
			if ev.Error == "" {
				ev.Error = flatten(raw["error"])
			}
			if ev.Error == "" {
				ev.Error = "the tool failed"
			}
		}
	case "UserPromptSubmit":
		ev.Kind, ev.Text = agent.PromptSubmit, str(raw, "prompt")
	case "Stop", "SubagentStop":
		ev.Kind, ev.Text = agent.AgentStop, str(raw, "last_assistant_message")
		ev.StopActive = boolean(raw, "stop_hook_active")
	case "SessionStart":
		ev.Kind, ev.Source = agent.SessionStart, str(raw, "source")
	case "SessionEnd":
		ev.Kind, ev.Source = agent.SessionEnd, str(raw, "reason")
	case "PreCompact":
		ev.Kind, ev.Source = agent.ContextCompress, str(raw, "trigger")
	case "Notification":
		ev.Kind, ev.Text = agent.Notification, str(raw, "message")
		ev.Source = str(raw, "notification_type")
	default:
		return unknownEvent(c, raw)
	}
	c.MCP = strings.HasPrefix(ev.Tool, "mcp__")
	c.Events = []agent.Event{ev}
	return c, nil
}

// unknownEvent handles an event an adapter does not know: hosts add
// events often, so one without a tool call is observed (logged, no
// objection); one that carries a tool call cannot be judged and is
// refused.
func unknownEvent(c *Call, raw map[string]any) (*Call, error) {
	for _, k := range []string{"tool_name", "tool_input", "command"} {
		if _, ok := raw[k]; ok {
			return nil, fmt.Errorf("unknown event %q carries a tool call (%s), which guardrun cannot judge; update guardrun, or remove its hook for this event", c.Native, k)
		}
	}
	c.Observed = true
	return c, nil
}

// hso is a hookSpecificOutput object.
func hso(event string) map[string]any { return map[string]any{"hookEventName": event} }

func (a claude) Answer(c *Call, d agent.Decision) Answer {
	ctx := joinInjections(d.Context)
	out := map[string]any{}
	spec := hso(c.Native)
	blocked := d.Outcome != agent.Allow
	switch c.Native {
	case "PreToolUse":
		switch {
		case d.Outcome == agent.Ask && !a.codex:
			spec["permissionDecision"] = "ask"
			spec["permissionDecisionReason"] = askText(d)
			if d.Input != nil {
				// The user is asked about the call in its final form.
				spec["updatedInput"] = d.Input
			}
		case d.Outcome == agent.Ask:
			spec["permissionDecision"] = "deny"
			spec["permissionDecisionReason"] = askReason(d)
		case blocked && a.codex:
			// Codex drops a PreToolUse's additionalContext.
			spec["permissionDecision"] = "deny"
			spec["permissionDecisionReason"] = withContext(reason(d), ctx)
		case blocked:
			spec["permissionDecision"] = "deny"
			spec["permissionDecisionReason"] = reason(d)
		case d.Input != nil:
			// A rewrite is the policy's positive answer about the new
			// input; Claude still applies its own deny and ask rules.
			spec["permissionDecision"] = "allow"
			spec["permissionDecisionReason"] = "guardrun: input rewritten by the policy"
			spec["updatedInput"] = d.Input
		}
		if ctx != "" && !a.codex {
			spec["additionalContext"] = cut(ctx)
		}
	case "PermissionRequest":
		if ans, ok := a.permission(d, ctx); ok {
			return ans
		}
		return a.noObjection()
	case "PostToolUse", "PostToolUseFailure":
		switch {
		case blocked:
			out["decision"] = "block"
			out["reason"] = reason(d)
		case d.Output != nil && c.Native == "PostToolUse":
			if c.MCP {
				spec["updatedMCPToolOutput"] = d.Output
			} else {
				spec["updatedToolOutput"] = d.Output
			}
		}
		if ctx != "" {
			spec["additionalContext"] = cut(ctx)
		}
	case "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact":
		if blocked {
			out["decision"] = "block"
			out["reason"] = reason(d)
			if d.Outcome == agent.Ask {
				out["reason"] = askReason(d)
			}
			if d.Outcome == agent.Retry && c.Native != "UserPromptSubmit" && c.Native != "PreCompact" {
				// The hint is the agent's next instruction.
				out["reason"] = cut(nonEmpty(d.Hint, d.Reason))
			}
		}
		if ctx != "" && c.Native != "PreCompact" {
			spec["additionalContext"] = cut(ctx)
		}
	default:
		// SessionStart, SessionEnd, Notification cannot be blocked: a
		// refusal is reported to the user (exit 2, stderr).
		if blocked {
			return Answer{Stderr: reason(d) + "\n", Code: 2}
		}
		if ctx != "" && c.Native == "SessionStart" {
			spec["additionalContext"] = cut(ctx)
		}
	}
	if len(spec) > 1 {
		out["hookSpecificOutput"] = spec
	}
	if msg := joinInjections(d.Messages); msg != "" && !a.codex {
		out["systemMessage"] = cut(msg)
	}
	if len(out) == 0 {
		return a.noObjection()
	}
	return Answer{Stdout: encode(out)}
}

// noObjection is the answer that leaves the call to the host's own
// permission flow.
func (a claude) noObjection() Answer {
	if a.codex {
		// Codex reads no output as no decision.
		return Answer{}
	}
	// No objection: never an explicit allow, which would skip
	// Claude's own permission prompt.
	return Answer{Stdout: []byte("{}\n")}
}

// permission renders a decision about a PermissionRequest: the host is
// about to ask its user whether the call may run. A denial is
// hookSpecificOutput.decision {behavior: deny, message}; an ask is no
// answer (the host's own prompt is the question); a rewrite is an allow
// with updatedInput on Claude, which Codex cannot apply (a denial
// there). ok is false for no objection.
func (a claude) permission(d agent.Decision, ctx string) (Answer, bool) {
	deny := func(msg string) (Answer, bool) {
		spec := hso("PermissionRequest")
		spec["decision"] = map[string]any{"behavior": "deny", "message": msg}
		return Answer{Stdout: encode(map[string]any{"hookSpecificOutput": spec})}, true
	}
	switch {
	case d.Outcome == agent.Ask:
		return Answer{}, false
	case d.Outcome != agent.Allow:
		return deny(withContext(reason(d), ctx))
	case d.Input != nil && a.codex:
		return deny(failText("the policy rewrote the input, and Codex cannot apply a rewrite on PermissionRequest"))
	case d.Input != nil:
		spec := hso("PermissionRequest")
		spec["decision"] = map[string]any{"behavior": "allow", "updatedInput": d.Input}
		return Answer{Stdout: encode(map[string]any{"hookSpecificOutput": spec})}, true
	}
	return Answer{}, false
}

// Fail is exit 2 with the reason on stderr: Claude and Codex block a
// blockable event on it, whatever stdout holds. Two events differ. On
// Stop and SubagentStop, blocking means "keep working": a failure must
// let the agent stop, so it is no objection (the reason is in the
// decision log). A PermissionRequest ignores exit 2: its denial is the
// JSON decision.
func (a claude) Fail(c *Call, reason string) Answer {
	if c != nil {
		switch c.Native {
		case "Stop", "SubagentStop":
			if a.codex {
				return Answer{}
			}
			return Answer{Stdout: encode(map[string]any{"systemMessage": failText(reason) + " (on " + c.Native + ": the agent is let stop)"})}
		case "PermissionRequest":
			spec := hso("PermissionRequest")
			spec["decision"] = map[string]any{"behavior": "deny", "message": failText(reason)}
			return Answer{Stdout: encode(map[string]any{"hookSpecificOutput": spec}), Stderr: failText(reason) + "\n"}
		}
	}
	return Answer{Stderr: failText(reason) + "\n", Code: 2}
}

func nonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
