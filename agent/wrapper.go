package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// ToolFunc runs a tool with its (possibly rewritten) input.
type ToolFunc func(ctx context.Context, input map[string]any) (any, error)

// ToolCall is one call for Invoke.
type ToolCall struct {
	Session string
	Tool    string
	Input   map[string]any
	Cwd     string
}

// ToolError is the structured result of a call that did not produce
// output: refused before it ran, failed, or its output refused.
type ToolError struct {
	// Type is always "tool_error".
	Type string `json:"type"`
	// Code is denied, needs_approval, retry, failed or output_blocked.
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Meta    map[string]any `json:"meta,omitempty"`
}

// Error implements error.
func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// Invocation is what Invoke did.
type Invocation struct {
	// ID is the invocation id both events carried (CallID).
	ID     string
	Output any
	Err    *ToolError
	// Before and After are the decisions of the two events; After is
	// always set: post-hooks run after a block or a failure too.
	Before, After Decision
	// Context is text for the agent and Messages text for the user, from
	// both events.
	Context  []Injection
	Messages []Injection
}

// Invoke runs one tool call through the chain: a fresh invocation id,
// the tool.before event, the tool only if allowed (with the input as the
// chain left it), then the tool.after event, always, also after a block
// or an error. A refusal is a ToolError, never a Go error.
func (e *Engine) Invoke(ctx context.Context, c ToolCall, run ToolFunc) Invocation {
	inv := Invocation{ID: invocationID()}
	ev := Event{Kind: ToolBefore, Session: c.Session, Tool: c.Tool, CallID: inv.ID, Input: c.Input, Cwd: c.Cwd}
	inv.Before = e.Decide(ctx, ev)
	after := ev
	after.Kind = ToolAfter
	if !inv.Before.Allowed() {
		inv.Err = refusal(inv.Before)
		after.Error = "blocked: " + inv.Before.Reason
		inv.After = e.Decide(ctx, after)
		inv.collect()
		return inv
	}
	input := c.Input
	if inv.Before.Input != nil {
		input = inv.Before.Input
	}
	start := time.Now()
	out, err := safeRun(ctx, run, input)
	after.Input, after.Output, after.Duration = input, out, time.Since(start)
	if err != nil {
		after.Error = err.Error()
	}
	inv.After = e.Decide(ctx, after)
	switch {
	case err != nil:
		inv.Err = &ToolError{Type: "tool_error", Code: "failed", Message: err.Error()}
	case !inv.After.Allowed():
		inv.Err = refusal(inv.After)
		inv.Err.Code = "output_blocked"
	case inv.After.Output != nil:
		inv.Output = inv.After.Output
	default:
		inv.Output = out
	}
	inv.collect()
	return inv
}

func (inv *Invocation) collect() {
	inv.Context = append(append(inv.Context, inv.Before.Context...), inv.After.Context...)
	inv.Messages = append(append(inv.Messages, inv.Before.Messages...), inv.After.Messages...)
}

// refusal is the ToolError of a decision that did not allow.
func refusal(d Decision) *ToolError {
	te := &ToolError{Type: "tool_error", Code: "denied", Message: d.Reason, Meta: map[string]any{}}
	switch d.Outcome {
	case Ask:
		te.Code = "needs_approval"
		te.Meta["question"] = d.Question
	case Retry:
		te.Code = "retry"
	}
	if dn := d.Denial; dn != nil {
		te.Meta["class"] = string(dn.Class)
		te.Meta["retryable"] = dn.Retryable
		for k, v := range map[string]string{"rule": dn.Rule, "guard": dn.Guard, "hint": dn.Hint} {
			if v != "" {
				te.Meta[k] = v
			}
		}
		if len(dn.Labels) > 0 {
			te.Meta["labels"] = dn.Labels
		}
	}
	return te
}

// safeRun runs the tool; a panic is its error.
func safeRun(ctx context.Context, run ToolFunc, input map[string]any) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("tool panicked: %v", r)
		}
	}()
	return run(ctx, input)
}

func invocationID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("inv-%d", time.Now().UnixNano())
	}
	return "inv_" + hex.EncodeToString(b[:])
}
