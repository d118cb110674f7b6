package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// After Close, Decide fails closed with a clear error (it does not run
// guards on released policies, nor panic), and Close again does nothing.
func TestDecideAfterClose(t *testing.T) {
	var log logBuffer
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(concPolicy)}}, Store: NewMemoryStore(), Log: &log})
	require.NoError(t, err)
	ev := Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "ls"}}
	require.Equal(t, Allow, e.Decide(context.Background(), ev).Outcome)
	e.Close()
	e.Close()
	for _, ev := range []Event{ev, {Kind: PromptSubmit, Session: "s", Text: "hi"}, {Kind: ToolAfter, Session: "s", Tool: "Read", Input: map[string]any{"file_path": "a"}, Output: "x"}} {
		d := e.Decide(context.Background(), ev)
		require.Equal(t, Deny, d.Outcome, ev.Kind)
		require.Equal(t, ErrClosed.Error(), d.Reason)
		require.Equal(t, ClassError, d.Denial.Class)
	}
	inv := e.Invoke(context.Background(), ToolCall{Session: "s", Tool: "Bash", Input: map[string]any{"command": "ls"}}, func(context.Context, map[string]any) (any, error) {
		t.Fatal("a closed engine ran the tool")
		return nil, nil
	})
	require.NotNil(t, inv.Err)
	require.Contains(t, log.String(), `"reason":"agent: the engine is closed`)
}

// Close while decisions run: each decision is either decided or refused
// as closed, never a panic or an allow on released policies.
func TestCloseDuringDecisions(t *testing.T) {
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(concPolicy)}}, Store: NewMemoryStore()})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "echo forbidden"}})
				if d.Outcome != Deny {
					t.Errorf("goroutine %d: %s %s", i, d.Outcome, d.Reason)
					return
				}
				// The guard's reason (with what matched and its opt-in),
				// or the closed engine's.
				if !strings.HasPrefix(d.Reason, "forbidden (") && d.Reason != ErrClosed.Error() {
					t.Errorf("goroutine %d: %s", i, d.Reason)
					return
				}
			}
		}()
	}
	e.Close()
	wg.Wait()
}

// logBuffer is a bytes.Buffer safe for the log's concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
