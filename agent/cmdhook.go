package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// CommandHook is an external hook: a program run without a shell that
// reads one event as JSON on stdin and answers on stdout, in the generic
// protocol (AGENT.md §7):
//
//	stdin:  {"event": "tool.before", "data": {…the event…}, "labels": [...]}
//	stdout: {"continue": true}
//	        {"continue": false, "systemMessage": "why"}            (deny)
//	        {"continue": true, "data": {…}}                        (modify)
//	        {"continue": false, "decision": "ask"|"retry"|"skip", "systemMessage": "…", "retry_delay_ms": 500}
//	        optional "retryable": true on a deny (HookResult.Retryable)
//	        optional "context" (for the agent) and "message" (for the user)
//
// It runs only while the SHA-256 of its file is the pinned one. A
// non-zero exit, output over the cap, malformed JSON or a missing
// "continue" denies.
type CommandHook struct {
	// Path is the program (absolute, or found in PATH); Args its
	// arguments.
	Path string
	Args []string
	// SHA256 is the hex digest the program's file must have.
	SHA256 string
	// MaxOutput caps stdout in bytes (default 1 MiB).
	MaxOutput int
	// Env, when set, is the program's whole environment.
	Env []string
}

// DefaultMaxHookOutput caps a command hook's stdout.
const DefaultMaxHookOutput = 1 << 20

// FileSHA256 returns the hex SHA-256 of a file, for pinning a command
// hook.
func FileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (c *CommandHook) check() error {
	if c.Path == "" {
		return errors.New("command hook without a path")
	}
	if len(c.SHA256) != 64 {
		return errors.New("command hook without a SHA-256 pin (use agent.FileSHA256)")
	}
	return nil
}

type cmdRequest struct {
	Event  Kind     `json:"event"`
	Data   Event    `json:"data"`
	Labels []string `json:"labels,omitempty"`
}

type cmdResponse struct {
	Continue      *bool           `json:"continue"`
	SystemMessage string          `json:"systemMessage"`
	Reason        string          `json:"reason"`
	Decision      string          `json:"decision"`
	Data          json.RawMessage `json:"data"`
	Context       string          `json:"context"`
	Message       string          `json:"message"`
	RetryDelayMS  int64           `json:"retry_delay_ms"`
	Retryable     bool            `json:"retryable"`
}

// cappedBuffer keeps at most max bytes and remembers that more came.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (c *CommandHook) run(ctx context.Context, in HookInput) (HookResult, error) {
	prog, err := exec.LookPath(c.Path)
	if err != nil {
		return HookResult{}, fmt.Errorf("command hook %s: %v", c.Path, err)
	}
	sum, err := FileSHA256(prog)
	if err != nil {
		return HookResult{}, fmt.Errorf("command hook %s: %v", prog, err)
	}
	if !strings.EqualFold(sum, c.SHA256) {
		return HookResult{}, fmt.Errorf("command hook %s changed: its SHA-256 is %s, pinned %s; re-approve it by updating the pin", prog, sum, c.SHA256)
	}
	req, err := json.Marshal(cmdRequest{Event: in.Event.Kind, Data: in.Event, Labels: in.Labels})
	if err != nil {
		return HookResult{}, err
	}
	max := c.MaxOutput
	if max <= 0 {
		max = DefaultMaxHookOutput
	}
	cmd := exec.CommandContext(ctx, prog, c.Args...)
	cmd.Stdin = bytes.NewReader(req)
	out := &cappedBuffer{max: max}
	var stderr cappedBuffer
	stderr.max = 4096
	cmd.Stdout, cmd.Stderr = out, &stderr
	cmd.Env = c.Env
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return HookResult{}, fmt.Errorf("command hook %s: %v", prog, ctx.Err())
		}
		msg := strings.TrimSpace(stderr.buf.String())
		return HookResult{}, fmt.Errorf("command hook %s failed: %v %s", prog, err, msg)
	}
	if out.over {
		return HookResult{}, fmt.Errorf("command hook %s: output over the %d-byte cap", prog, max)
	}
	return parseCmdResponse(out.buf.Bytes(), in.Event.Kind)
}

func parseCmdResponse(b []byte, kind Kind) (HookResult, error) {
	var r cmdResponse
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return HookResult{}, fmt.Errorf("command hook answered malformed JSON: %v", err)
	}
	if dec.More() {
		return HookResult{}, errors.New("command hook answered more than one JSON value")
	}
	if r.Continue == nil {
		return HookResult{}, errors.New(`command hook answer has no "continue"`)
	}
	res := HookResult{Context: r.Context, Message: r.Message, RetryDelay: time.Duration(r.RetryDelayMS) * time.Millisecond}
	res.Reason = r.SystemMessage
	if res.Reason == "" {
		res.Reason = r.Reason
	}
	switch {
	case r.Decision == "ask":
		res.Action = Ask
	case r.Decision == "retry":
		res.Action = Retry
	case r.Decision == "skip":
		res.Action = Skip
	case r.Decision != "" && r.Decision != "deny" && r.Decision != "allow":
		return HookResult{}, fmt.Errorf("command hook answered unknown decision %q", r.Decision)
	case !*r.Continue || r.Decision == "deny":
		res.Action, res.Retryable = Deny, r.Retryable
		if res.Reason == "" {
			res.Reason = "denied by a command hook"
		}
	case len(r.Data) > 0 && string(r.Data) != "null":
		res.Action = Modify
		if kind == ToolAfter {
			if err := json.Unmarshal(r.Data, &res.Output); err != nil {
				return HookResult{}, err
			}
		} else if err := json.Unmarshal(r.Data, &res.Input); err != nil {
			return HookResult{}, fmt.Errorf("command hook data must be the tool input object: %v", err)
		}
	}
	return res, nil
}
