package agent

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// reasonPolicy's reasons are templates: they quote the call's
// arguments, a secret of the policy's own, and a value a tool returned
// as pii.
const reasonPolicy = `var tools @demo = {
  "get_user_info": { labels: ["read"], returns: ["pii"] },
  "get_page": { labels: ["read"], returns: ["thirdparty"] },
  "send_money": { labels: ["tool:w", "payment"] },
  "send_email": { labels: ["tool:w", "mail"] }
}
var secret @apiKey = "sk-live-reason-0123456789"
guard @payee before payment = when [
  @mx.args.amount > 1000 => ask ` + "`Send @mx.args.amount to @mx.args.recipient\\?`" + `
  @mx.args.recipient.mx.labels.includes("thirdparty") => deny ` + "`@mx.args.recipient was not typed by the user`" + `
  * => allow
]
guard @mail before mail = when [
  @mx.args.body.mx.labels.includes("pii") => deny ` + "`the mail to @mx.args.to carries @mx.args.body`" + `
  @mx.args.to == "keys@example.com" => deny ` + "`no mail with @apiKey`" + `
  @mx.args.to == "broken@example.com" => deny ` + "`@mx.args.to.noSuchMethod()`" + `
  @mx.args.to == "asking@example.com" => ask ` + "`Mail @mx.args.to.noSuchMethod()\\?`" + `
  * => allow
]
`

func reasonEngine(t *testing.T) (*Engine, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(reasonPolicy)}}, Store: NewMemoryStore(), Log: &log})
	require.NoError(t, err)
	t.Cleanup(e.Close)
	return e, &log
}

// A reason written as a template holds the values it quotes (on main a
// reason had to be a literal string: the policy did not load).
func TestReasonTemplateQuotesArguments(t *testing.T) {
	e, log := reasonEngine(t)
	ctx := context.Background()
	const iban = "GB29NWBK60161331926819"
	e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "get_page", Input: map[string]any{"url": "https://example.org"},
		Output: "pay your bill to " + iban})
	d := e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "send_money", Input: map[string]any{"recipient": iban, "amount": 10}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	require.True(t, strings.HasPrefix(d.Reason, iban+" was not typed by the user (guard @payee)"), d.Reason)

	d = e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "send_money", Input: map[string]any{"recipient": "CH9300762011623852957", "amount": 5000}})
	require.Equal(t, Ask, d.Outcome, d.Reason)
	require.Equal(t, "Send 5000 to CH9300762011623852957?", d.Question)

	// The log masks what it masks for a literal reason: the argument
	// carries a confidentiality label (thirdparty), so the reason's
	// quote of it is masked there, not in what the agent is told.
	recs := logLines(t, log)
	require.NotContains(t, log.String(), iban)
	var denied map[string]any
	for _, r := range recs {
		if r["decision"] == "deny" {
			denied = r
		}
	}
	require.NotNil(t, denied, log.String())
	require.True(t, strings.HasPrefix(denied["reason"].(string), Masked+" was not typed by the user"), denied["reason"])
}

// A secret or pii value a reason quotes is [REDACTED] in the denial the
// agent gets and in the decision log: one the policy holds, and one
// that reached the call's arguments from a tool's output.
func TestReasonTemplateRedactsSecrets(t *testing.T) {
	e, log := reasonEngine(t)
	ctx := context.Background()
	d := e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "send_email", Input: map[string]any{"to": "keys@example.com", "body": "hello"}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	require.True(t, strings.HasPrefix(d.Reason, "no mail with [REDACTED] (guard @mail)"), d.Reason)

	const passport = "passport HX4471902 of Emma Johnson"
	e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "get_user_info", Input: map[string]any{},
		Output: map[string]any{"passport": passport}})
	d = e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "send_email", Input: map[string]any{"to": "ann@example.com", "body": passport}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	require.True(t, strings.HasPrefix(d.Reason, "the mail to ann@example.com carries [REDACTED] (guard @mail)"), d.Reason)
	for _, s := range []string{"sk-live-reason", "HX4471902"} {
		require.NotContains(t, d.Reason, s)
		require.NotContains(t, log.String(), s)
	}
}

// A reason template that fails denies, saying why, where the rule would
// have asked or allowed nothing else.
func TestReasonTemplateErrorDenies(t *testing.T) {
	e, _ := reasonEngine(t)
	d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "send_email", Input: map[string]any{"to": "broken@example.com", "body": "hi"}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	require.Contains(t, d.Reason, "guard @mail failed")
	require.Contains(t, d.Reason, "the deny reason could not be rendered")
	require.Contains(t, d.Reason, "p.guard:16:")

	// An ask whose question fails is a denial, not a question.
	d = e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "send_email", Input: map[string]any{"to": "asking@example.com", "body": "hi"}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	require.Contains(t, d.Reason, "the ask question could not be rendered")
	require.Empty(t, d.Question)
}
