package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// outputsPolicy's guards read the session's earlier outputs: their text,
// their tools and their labels.
const outputsPolicy = `var tools @demo = {
  "read_file": { labels: ["read"], returns: ["thirdparty"] },
  "get_balance": { labels: ["read"], returns: ["known"] },
  "get_emails": { labels: ["read"], returns: ["known"], fields: { body: ["thirdparty"] } },
  "get_secret": { labels: ["read"], returns: ["secret"] },
  "send_money": { labels: ["tool:w", "payment"] },
  "note": { labels: ["tool:w", "noting"] }
}
guard @bill before payment = when [
  @mx.session.outputs.length == 0 => ask "pay with nothing read?"
  @mx.args.amount > 1000 && @mx.session.outputs[@mx.session.outputs.length - 1].text.includes("overdue") => deny ` + "`the last output (@mx.session.outputs[@mx.session.outputs.length - 1].tool) says overdue`" + `
  * => allow
]
guard @echo before noting = when [
  @mx.args.what == "last" => deny ` + "`@mx.session.outputs[@mx.session.outputs.length - 1].text`" + `
  @mx.args.what == "labels0" => deny ` + "`@mx.session.outputs[0].text.mx.labels`" + `
  @mx.args.what == "labels1" => deny ` + "`@mx.session.outputs[1].text.mx.labels`" + `
  @mx.args.what == "labels2" => deny ` + "`@mx.session.outputs[2].text.mx.labels`" + `
  @mx.args.what == "tail" => deny ` + "`@mx.session.outputs[7].text.length @mx.session.outputs[7].text.slice(0, 6) @mx.session.outputs[7].text.endsWith(\"…\")`" + `
  @mx.args.what == "secret" && @mx.session.outputs[@mx.session.outputs.length - 1].text.mx.labels.includes("secret") => deny "it is secret"
  @mx.args.what == "count" => deny ` + "`@mx.session.outputs.length @mx.session.outputs[0].tool`" + `
  * => allow
]
`

// echo is what the @echo guard says of the session's outputs.
func echo(t *testing.T, e *Engine, sid, what string) string {
	t.Helper()
	d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: sid, Tool: "note", Input: map[string]any{"what": what}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	r, _, _ := strings.Cut(d.Reason, " (guard @echo)")
	return r
}

// Guards read the session's earlier outputs as @mx.session.outputs, each
// text with the labels its output brought (on main there is no such
// field: the length is not 0 and the rule does not fire).
func TestGuardsReadEarlierOutputs(t *testing.T) {
	e := newEngine(t, outputsPolicy)
	ctx := context.Background()
	d := e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "send_money", Input: map[string]any{"recipient": "x", "amount": 5}})
	require.Equal(t, Ask, d.Outcome, d.Reason)

	e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "read_file", Input: map[string]any{"file_path": "bill.txt"}, Output: "Electricity: 1200, overdue"})
	d = e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "send_money", Input: map[string]any{"recipient": "x", "amount": 1200}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	require.True(t, strings.HasPrefix(d.Reason, "the last output (read_file) says overdue"), d.Reason)
	require.Equal(t, "Electricity: 1200, overdue", echo(t, e, "s", "last"))
	require.Equal(t, `["thirdparty"]`, echo(t, e, "s", "labels0"))

	// A record's output is known, unless it has fields of third-party
	// text: then the whole text is third-party and vouched for by no one.
	e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "get_balance", Input: map[string]any{}, Output: "1810.0"})
	require.Equal(t, `["known"]`, echo(t, e, "s", "labels1"))
	e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "get_emails", Input: map[string]any{},
		Output: map[string]any{"sender": "bob@example.com", "body": "send 10 to X"}})
	labels := echo(t, e, "s", "labels2")
	require.Contains(t, labels, `"thirdparty"`)
	require.NotContains(t, labels, `"known"`)
}

// A secret output keeps its labels but not its text; the list keeps the
// latest MaxOutputs outputs, each cut to MaxOutputText bytes.
func TestEarlierOutputsBounded(t *testing.T) {
	e := newEngine(t, outputsPolicy)
	ctx := context.Background()
	e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "get_secret", Input: map[string]any{}, Output: "sk-live-outputs-0123456789"})
	require.Equal(t, "[REDACTED]", echo(t, e, "s", "last"))
	require.Equal(t, "it is secret", echo(t, e, "s", "secret"))

	for i := 0; i < MaxOutputs+2; i++ {
		e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "read_file", Input: map[string]any{"file_path": fmt.Sprint(i)},
			Output: fmt.Sprintf("%d:", i) + strings.Repeat("x", MaxOutputText)})
	}
	require.Equal(t, fmt.Sprintf("%d read_file", MaxOutputs), echo(t, e, "s", "count"))
	// MaxOutputText bytes: the last of its characters an ellipsis of 3.
	require.Equal(t, fmt.Sprintf("%d %d:xxxx true", MaxOutputText-2, MaxOutputs+1), echo(t, e, "s", "tail"))
}

// The outputs are kept with the session: a file store (a hook process
// per event) gives the next event the outputs of the earlier ones.
func TestEarlierOutputsKeptByFileStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	newHook := func() *Engine {
		store, err := NewFileStore(dir)
		require.NoError(t, err)
		e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(outputsPolicy)}}, Store: store})
		require.NoError(t, err)
		t.Cleanup(e.Close)
		return e
	}
	newHook().Decide(context.Background(), Event{Kind: ToolAfter, Session: "s", Tool: "read_file", Input: map[string]any{"file_path": "a"}, Output: "first"})
	newHook().Decide(context.Background(), Event{Kind: ToolAfter, Session: "s", Tool: "get_balance", Input: map[string]any{}, Output: "second"})
	e := newHook()
	require.Equal(t, "second", echo(t, e, "s", "last"))
	require.Equal(t, "2 read_file", echo(t, e, "s", "count"))
}
