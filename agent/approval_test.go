package agent

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// askPolicy asks before every git command; what WebFetch returns is
// untrusted.
const askPolicy = `var tools @agent = { Bash: { labels: ["cmd"] }, WebFetch: { labels: ["net:r"], returns: ["untrusted"] } }
guard @push before op:cmd:git = when [
  * => ask "Run git?"
]
`

// askEngine is askPolicy with approver a, deciding in a memory store.
func askEngine(t *testing.T, a Approver, cfg Config) *Engine {
	t.Helper()
	cfg.Policies = []Policy{{Name: "p.guard", Source: []byte(askPolicy)}}
	if cfg.Store == nil {
		cfg.Store = NewMemoryStore()
	}
	cfg.Approver = a
	e, err := New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(e.Close)
	return e
}

func gitPush(session string) Event {
	return Event{Kind: ToolBefore, Session: session, Tool: "Bash", Input: map[string]any{"command": "git push"}}
}

// waitingApprover answers only when its context ends, and signals that
// it was asked.
func waitingApprover(asked chan<- struct{}) Approver {
	return ApproverFunc(func(ctx context.Context, r Request) (Answer, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return DenyIt, ctx.Err()
	})
}

// A caller that cancels its context while the human is asked is told so:
// the call is denied (fail closed), not reported as the approver's
// timeout.
func TestAskCallerCanceled(t *testing.T) {
	asked := make(chan struct{}, 1)
	store := ctxStore{NewMemoryStore()}
	e := askEngine(t, waitingApprover(asked), Config{ApprovalTimeout: time.Minute, Store: store})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-asked; cancel() }()
	d := e.Decide(ctx, gitPush("s"))
	require.Equal(t, Deny, d.Outcome)
	require.NotContains(t, d.Reason, "no approval within")
	require.Equal(t, "not approved (Run git?): the caller gave up before the approver answered: context canceled", d.Reason)
	require.Equal(t, ClassApproval, d.Denial.Class)
	require.Equal(t, "@push", d.Denial.Guard)
	// The refusal is recorded in the session although the caller's
	// context has ended.
	require.NoError(t, store.Update(context.Background(), "s", func(s *Session) error {
		require.Equal(t, Deny, s.Calls[0].Decision)
		return nil
	}))
}

// ctxStore is a store that refuses an update whose context has ended, as
// a file store waiting on a held lock does.
type ctxStore struct{ Store }

func (c ctxStore) Update(ctx context.Context, id string, fn func(*Session) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.Store.Update(ctx, id, fn)
}

// A caller's deadline that ends during the ask is the caller's deadline,
// not the approver's timeout.
func TestAskCallerDeadline(t *testing.T) {
	asked := make(chan struct{}, 1)
	e := askEngine(t, waitingApprover(asked), Config{ApprovalTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	d := e.Decide(ctx, gitPush("s"))
	require.Less(t, time.Since(start), 30*time.Second)
	require.Equal(t, Deny, d.Outcome)
	require.Contains(t, d.Reason, "the caller gave up before the approver answered: context deadline exceeded")
	require.NotContains(t, d.Reason, "no approval within")
}

// The approver's own timeout is still reported as such, whether the
// approver returns its context's error or does not return at all.
func TestAskApproverTimeout(t *testing.T) {
	for name, a := range map[string]Approver{
		"returns ctx.Err": waitingApprover(make(chan struct{}, 1)),
		"never returns": ApproverFunc(func(ctx context.Context, r Request) (Answer, error) {
			time.Sleep(time.Second)
			return AllowOnce, nil
		}),
	} {
		t.Run(name, func(t *testing.T) {
			e := askEngine(t, a, Config{ApprovalTimeout: 50 * time.Millisecond})
			for range 5 {
				d := e.Decide(context.Background(), gitPush("s"))
				require.Equal(t, Deny, d.Outcome)
				require.Equal(t, "not approved (Run git?): no approval within 50ms", d.Reason)
			}
		})
	}
}

// scriptedApprover answers each ask with the next of its answers
// ("once", "always", "deny", "timeout", "error"), counting the asks.
type scriptedApprover struct {
	mu      sync.Mutex
	answers []string
	asked   []Request
}

func (a *scriptedApprover) Approve(ctx context.Context, r Request) (Answer, error) {
	a.mu.Lock()
	a.asked = append(a.asked, r)
	next := "deny"
	if len(a.answers) > 0 {
		next, a.answers = a.answers[0], a.answers[1:]
	}
	a.mu.Unlock()
	switch next {
	case "once":
		return AllowOnce, nil
	case "always":
		return AllowAlways, nil
	case "timeout":
		<-ctx.Done()
		return DenyIt, ctx.Err()
	case "error":
		return DenyIt, errors.New("approval service unreachable")
	}
	return DenyIt, nil
}

func (a *scriptedApprover) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// The decision log says that a human was asked and what they answered,
// with the class, guard and labels of the ask, whatever the answer; a
// plain allow has none of it.
func TestLogRecordsApprovals(t *testing.T) {
	var log bytes.Buffer
	a := &scriptedApprover{answers: []string{"once", "deny", "timeout", "error", "always"}}
	e := askEngine(t, a, Config{ApprovalTimeout: 50 * time.Millisecond, Log: &log})
	ctx := context.Background()
	// The session saw untrusted content: every input carries it.
	e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "WebFetch", Input: map[string]any{"url": "https://x.example"}, Output: "hello"})
	cmds := []string{"git push", "git push --force", "git fetch", "git pull", "git status", "git log", "ls"}
	var ds []Decision
	for _, c := range cmds {
		ds = append(ds, e.Decide(ctx, Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": c}}))
	}
	want := []struct {
		outcome Outcome
		answer  Reply
		reused  string
		reason  string
	}{
		{Allow, ReplyOnce, "", ""},
		{Deny, ReplyDenied, "", "not approved (Run git?): the user denied it"},
		{Deny, ReplyTimeout, "", "not approved (Run git?): no approval within 50ms"},
		{Deny, ReplyFailed, "", "not approved (Run git?): the approver failed: approval service unreachable"},
		{Allow, ReplyAlways, "", ""},
		{Allow, ReplyAlways, ReusedSession, ""},
	}
	recs := logLines(t, &log)[1:]
	require.Len(t, recs, len(cmds))
	for i, w := range want {
		d, r := ds[i], recs[i]
		require.Equal(t, w.outcome, d.Outcome, cmds[i])
		require.Equal(t, w.reason, d.Reason, cmds[i])
		require.Equal(t, &Approval{Question: "Run git?", Answer: w.answer, Reused: w.reused}, d.Approval, cmds[i])
		require.Equal(t, string(w.outcome), r["decision"], cmds[i])
		require.Equal(t, string(ClassApproval), r["class"], cmds[i])
		require.Equal(t, "@push", r["guard"], cmds[i])
		require.Equal(t, []any{"untrusted", "src:network", "influenced"}, r["labels"], cmds[i])
		ap := map[string]any{"question": "Run git?", "answer": string(w.answer)}
		if w.reused != "" {
			ap["reused"] = w.reused
		}
		require.Equal(t, ap, r["approval"], cmds[i])
		if w.outcome == Deny {
			require.Equal(t, ClassApproval, d.Denial.Class, cmds[i])
			require.Equal(t, "@push", d.Denial.Guard, cmds[i])
			require.Equal(t, "p.guard", d.Denial.Policy, cmds[i])
			require.Equal(t, []string{"untrusted", "src:network", "influenced"}, d.Denial.Labels, cmds[i])
			require.NotEmpty(t, d.Denial.Lineage, cmds[i])
			require.False(t, d.Denial.Retryable, cmds[i])
		} else {
			require.Nil(t, d.Denial, cmds[i])
		}
	}
	// A plain allow: no human, no class, no guard.
	last := recs[len(recs)-1]
	require.Equal(t, "allow", last["decision"])
	for _, k := range []string{"approval", "class", "guard"} {
		require.NotContains(t, last, k)
	}
	require.Nil(t, ds[len(ds)-1].Approval)
}

// Without an approver the host asks: the record names the guard that asked
// and its class, and says no human answered here.
func TestLogRecordsAskLeftToHost(t *testing.T) {
	var log bytes.Buffer
	e := askEngine(t, nil, Config{Log: &log})
	d := e.Decide(context.Background(), gitPush("s"))
	require.Equal(t, Ask, d.Outcome)
	require.Nil(t, d.Approval)
	r := logLines(t, &log)[0]
	require.Equal(t, "ask", r["decision"])
	require.Equal(t, "Run git?", r["reason"])
	require.Equal(t, "@push", r["guard"])
	require.Equal(t, string(ClassApproval), r["class"])
	require.NotContains(t, r, "approval")
}
