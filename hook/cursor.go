package hook

import (
	"fmt"
	"strings"

	"github.com/guardrun/guardrun/agent"
)

// cursor speaks Cursor's hook protocol (snake_case answers).
type cursor struct{}

func (cursor) Name() string { return "cursor" }

func (a cursor) Decode(raw map[string]any) (*Call, error) {
	name := str(raw, "hook_event_name")
	if name == "" {
		return nil, fmt.Errorf("malformed event: no hook_event_name (is this a cursor hook event?)")
	}
	c := &Call{Native: name, Cwd: str(raw, "cwd")}
	if c.Cwd == "" {
		// cwd is often "": the first workspace root is the project.
		if roots, ok := raw["workspace_roots"].([]any); ok && len(roots) > 0 {
			c.Cwd, _ = roots[0].(string)
		}
	}
	session := str(raw, "conversation_id")
	if session == "" {
		session = str(raw, "session_id")
	}
	ev := agent.Event{Session: session, Cwd: c.Cwd}
	events := []agent.Event{}
	switch name {
	case "beforeShellExecution":
		ev.Kind, ev.Tool = agent.ToolBefore, "Shell"
		ev.Input = map[string]any{"command": str(raw, "command"), "cwd": str(raw, "cwd")}
	case "afterShellExecution":
		ev.Kind, ev.Tool = agent.ToolAfter, "Shell"
		ev.Input = map[string]any{"command": str(raw, "command"), "cwd": str(raw, "cwd")}
		ev.Output = str(raw, "output")
	case "beforeMCPExecution", "afterMCPExecution", "preToolUse", "postToolUse", "postToolUseFailure":
		ev.Kind = agent.ToolBefore
		if name[0] == 'a' || name[:4] == "post" {
			ev.Kind = agent.ToolAfter
		}
		if err := toolEvent(raw, &ev); err != nil {
			return nil, err
		}
		if (name == "beforeMCPExecution" || name == "afterMCPExecution") && !strings.HasPrefix(ev.Tool, "MCP:") {
			// Cursor names the MCP tool alone; its own matchers (and
			// tool collections) know MCP tools as MCP:<tool>.
			ev.Tool = "MCP:" + ev.Tool
		}
		switch name {
		case "afterMCPExecution":
			ev.Output = maybeJSON(raw["result_json"])
		case "postToolUse":
			ev.Output = maybeJSON(raw["tool_output"])
		case "postToolUseFailure":
			ev.Error = nonEmpty(str(raw, "error_message"), "the tool failed")
		}
	case "beforeReadFile":
		// Cursor has no after-read event: the content it is about to hand
		// the agent is the read's output.
		ev.Kind, ev.Tool = agent.ToolBefore, "Read"
		ev.Input = map[string]any{"file_path": str(raw, "file_path")}
		after := ev
		after.Kind, after.Output = agent.ToolAfter, str(raw, "content")
		events = append(events, ev)
		ev = after
	case "afterFileEdit":
		ev.Kind, ev.Tool = agent.ToolAfter, "Edit"
		ev.Input = map[string]any{"file_path": str(raw, "file_path"), "edits": raw["edits"]}
	case "beforeSubmitPrompt":
		ev.Kind, ev.Text = agent.PromptSubmit, str(raw, "prompt")
	case "stop":
		ev.Kind, ev.Source = agent.AgentStop, str(raw, "status")
		// A follow-up already kept the agent going: do not loop.
		if n, ok := raw["loop_count"].(float64); ok && n > 0 {
			ev.StopActive = true
		}
	case "sessionStart":
		ev.Kind = agent.SessionStart
	case "sessionEnd":
		ev.Kind, ev.Source = agent.SessionEnd, str(raw, "reason")
	case "preCompact":
		ev.Kind, ev.Source = agent.ContextCompress, str(raw, "trigger")
	default:
		return unknownEvent(c, raw)
	}
	c.Events = append(events, ev)
	return c, nil
}

// permissionEvent reports whether the event takes a permission answer.
func permissionEvent(native string) bool {
	switch native {
	case "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "preToolUse":
		return true
	}
	return false
}

func (a cursor) Answer(c *Call, d agent.Decision) Answer {
	out := map[string]any{}
	ctx := joinInjections(d.Context)
	msg := joinInjections(d.Messages)
	switch {
	case permissionEvent(c.Native):
		deny := func(r string) {
			out["permission"], out["user_message"], out["agent_message"] = "deny", r, r
		}
		switch {
		case d.Outcome == agent.Ask && (c.Native == "beforeShellExecution" || c.Native == "beforeMCPExecution"):
			q := askText(d)
			out["permission"], out["user_message"], out["agent_message"] = "ask", q, q
		case d.Outcome == agent.Ask:
			// Cursor does not enforce ask elsewhere.
			deny(askReason(d))
		case d.Outcome != agent.Allow:
			deny(reason(d))
			// agent_message is all the model reads of a denial.
			out["agent_message"] = withContext(reason(d), ctx)
		case d.Input != nil && c.Native != "preToolUse":
			deny(cut("guardrun: the policy rewrote the input, and Cursor cannot apply a rewrite on " + c.Native))
		default:
			out["permission"] = "allow"
			if d.Input != nil {
				out["updated_input"] = d.Input
			}
			if ctx != "" {
				out["agent_message"] = cut(ctx)
			}
			if msg != "" {
				out["user_message"] = cut(msg)
			}
		}
	case c.Native == "beforeSubmitPrompt":
		out["continue"] = d.Outcome == agent.Allow
		switch d.Outcome {
		case agent.Allow:
			if msg != "" {
				out["user_message"] = cut(msg)
			}
		case agent.Ask:
			out["user_message"] = askReason(d)
		default:
			out["user_message"] = reason(d)
		}
	case c.Native == "stop":
		if d.Outcome == agent.Retry || d.Outcome == agent.Deny {
			out["followup_message"] = cut(nonEmpty(d.Hint, d.Reason))
		}
	case c.Native == "sessionStart":
		if ctx != "" {
			out["additional_context"] = cut(ctx)
		}
	case c.Native == "postToolUse":
		if ctx != "" {
			out["additional_context"] = cut(ctx)
		}
	}
	// after* events are observe-only: {} whatever was decided.
	return Answer{Stdout: encode(out)}
}

// Fail denies with the reason. Exit 2 also means deny to Cursor, so the
// event is refused even if it does not read the JSON.
//
// On stop a failure lets the agent stop: a follow-up message would keep
// it working.
func (a cursor) Fail(c *Call, reason string) Answer {
	r := failText(reason)
	if c != nil && c.Native == "stop" {
		return Answer{Stdout: []byte("{}\n"), Stderr: r + " (on stop: the agent is let stop)\n"}
	}
	if c != nil && c.Native == "beforeSubmitPrompt" {
		return Answer{Stdout: encode(map[string]any{"continue": false, "user_message": r}), Stderr: r + "\n", Code: 2}
	}
	return Answer{Stdout: encode(map[string]any{"permission": "deny", "user_message": r, "agent_message": r}), Stderr: r + "\n", Code: 2}
}
