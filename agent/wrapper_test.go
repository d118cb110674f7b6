package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

const wrapPolicy = `var tools @agent = { Bash: { labels: ["cmd"] }, Read: { labels: ["fs:r"] } }
guard @nosudo before op:cmd:sudo = when [
  * => deny "no sudo" with { context: "ask the user to run it" }
]
guard @dry before op:cmd:make = when [
  @mx.op.labels.includes("op:cmd:make:deploy") => allow "make deploy-dry-run"
  * => allow
]
guard @keys after @Read = when [
  @output.includes("PRIVATE KEY") => deny "private key in the output"
  * => allow
]
`

func TestInvoke(t *testing.T) {
	var mu sync.Mutex
	var post []Event
	observe := Hook{Name: "post", Priority: -1, Events: []Kind{ToolAfter}, Func: func(_ context.Context, in HookInput) (HookResult, error) {
		mu.Lock()
		post = append(post, in.Event)
		mu.Unlock()
		return HookResult{}, nil
	}}
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "w.guard", Source: []byte(wrapPolicy)}},
		Store: NewMemoryStore(), Hooks: []Hook{observe}})
	require.NoError(t, err)
	defer e.Close()

	cases := []struct {
		name    string
		call    ToolCall
		run     ToolFunc
		ran     bool
		code    string
		output  any
		postErr string
		context string
	}{
		{name: "allowed", call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "ls"}},
			run: func(_ context.Context, in map[string]any) (any, error) { return "a.txt", nil }, ran: true, output: "a.txt"},
		{name: "blocked", call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "sudo ls"}},
			code: "denied", postErr: "blocked: no sudo (`sudo ls`; guard @nosudo). To allow it, add to w.guard: policy @optIn = { guards: { except: ['@nosudo'] } }", context: "ask the user to run it"},
		{name: "rewritten input reaches the tool", call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "make deploy"}},
			run: func(_ context.Context, in map[string]any) (any, error) { return in["command"], nil }, ran: true, output: "make deploy-dry-run"},
		{name: "tool error", call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "false"}},
			run: func(context.Context, map[string]any) (any, error) { return nil, errors.New("exit status 1") }, ran: true, code: "failed", postErr: "exit status 1"},
		{name: "tool panic", call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "x"}},
			run: func(context.Context, map[string]any) (any, error) { panic("boom") }, ran: true, code: "failed", postErr: "tool panicked: boom"},
		{name: "output blocked", call: ToolCall{Tool: "Read", Input: map[string]any{"file_path": "id_rsa"}},
			run: func(context.Context, map[string]any) (any, error) { return "-----BEGIN PRIVATE KEY-----", nil }, ran: true, code: "output_blocked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mu.Lock()
			post = nil
			mu.Unlock()
			c.call.Session = "wrap-" + strings.ReplaceAll(c.name, " ", "-")
			ran := false
			run := c.run
			if run == nil {
				run = func(context.Context, map[string]any) (any, error) { return nil, nil }
			}
			inv := e.Invoke(context.Background(), c.call, func(ctx context.Context, in map[string]any) (any, error) {
				ran = true
				return run(ctx, in)
			})
			require.Equal(t, c.ran, ran, "tool ran")
			require.NotEmpty(t, inv.ID)
			mu.Lock()
			seen := append([]Event(nil), post...)
			mu.Unlock()
			require.Len(t, seen, 1, "post-hooks run exactly once")
			require.Equal(t, inv.ID, seen[0].CallID, "both events carry the invocation id")
			require.Equal(t, c.postErr, seen[0].Error)
			if c.code == "" {
				require.Nil(t, inv.Err)
				require.Equal(t, c.output, inv.Output)
				return
			}
			require.NotNil(t, inv.Err)
			require.Equal(t, "tool_error", inv.Err.Type)
			require.Equal(t, c.code, inv.Err.Code)
			require.NotEmpty(t, inv.Err.Message)
			require.Nil(t, inv.Output)
			if c.code == "denied" {
				require.Equal(t, "guard", inv.Err.Meta["class"])
				require.Equal(t, "@nosudo", inv.Err.Meta["guard"])
			}
			if c.context != "" {
				require.Equal(t, []Injection{{Source: "@nosudo", Text: c.context}}, inv.Context)
			}
		})
	}
}
