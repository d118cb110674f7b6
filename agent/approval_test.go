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
		require.Equal(t, w.outcome.String(), r["decision"], cmds[i])
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

// clock is a settable Config.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func bashCall(session, callID, cmd string) Event {
	return Event{Kind: ToolBefore, Session: session, Tool: "Bash", CallID: callID, Input: map[string]any{"command": cmd}}
}

// A human's no is remembered: the identical call (same session, tool,
// input and question) is denied without asking again while the answer
// is kept (AnswerTTL), whatever its call id; a different call, another
// session, or the same call once the answer expired is asked.
func TestIdenticalAskReusesDenial(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	a := &scriptedApprover{}
	e := askEngine(t, a, Config{Now: c.now, AnswerTTL: time.Minute})
	ctx := context.Background()
	d := e.Decide(ctx, bashCall("s", "c1", "git push"))
	require.Equal(t, Deny, d.Outcome)
	require.Equal(t, 1, a.count())

	c.add(30 * time.Second)
	d = e.Decide(ctx, bashCall("s", "c2", "git push"))
	require.Equal(t, Deny, d.Outcome)
	require.Equal(t, 1, a.count(), "the identical call is not asked again")
	require.Equal(t, &Approval{Question: "Run git?", Answer: ReplyDenied, Reused: ReusedEarlier}, d.Approval)
	require.Equal(t, "not approved (Run git?): the user denied the same call earlier (an answer is kept 1m0s)", d.Reason)
	require.Equal(t, ClassApproval, d.Denial.Class)
	require.Equal(t, "@push", d.Denial.Guard)

	e.Decide(ctx, bashCall("s", "c3", "git push --force"))
	require.Equal(t, 2, a.count(), "a different call is asked")
	e.Decide(ctx, bashCall("other", "c1", "git push"))
	require.Equal(t, 3, a.count(), "another session is asked")

	c.add(31 * time.Second)
	e.Decide(ctx, bashCall("s", "c4", "git push"))
	require.Equal(t, 4, a.count(), "an expired answer is not reused")
}

// "Allow once" is one call: it is reused only by the same call (the host
// sending the call id it answered again), never by a new call with the
// same input, nor by calls without an id.
func TestIdenticalAskAllowOnceIsOneCall(t *testing.T) {
	a := &scriptedApprover{answers: []string{"once", "once", "once", "once"}}
	e := askEngine(t, a, Config{})
	ctx := context.Background()
	for range 2 {
		d := e.Decide(ctx, bashCall("s", "c1", "git push"))
		require.Equal(t, Allow, d.Outcome)
	}
	require.Equal(t, 1, a.count())
	d := e.Decide(ctx, bashCall("s", "c1", "git push"))
	require.Equal(t, &Approval{Question: "Run git?", Answer: ReplyOnce, Reused: ReusedEarlier}, d.Approval)
	require.Equal(t, "cached", d.Approved)
	e.Decide(ctx, bashCall("s", "c2", "git push"))
	require.Equal(t, 2, a.count(), "a new call with the same input is asked")
	e.Decide(ctx, bashCall("s", "", "git push"))
	e.Decide(ctx, bashCall("s", "", "git push"))
	require.Equal(t, 4, a.count(), "calls without an id are asked each time")
}

// No answer (a timeout, a failed approver, a caller that gave up) is not
// an answer: the identical call is asked again.
func TestIdenticalAskNoAnswerAsksAgain(t *testing.T) {
	a := &scriptedApprover{answers: []string{"timeout", "error", "once"}}
	e := askEngine(t, a, Config{ApprovalTimeout: 20 * time.Millisecond})
	ctx := context.Background()
	for _, want := range []Outcome{Deny, Deny, Allow} {
		d := e.Decide(ctx, bashCall("s", "c1", "git push"))
		require.Equal(t, want, d.Outcome, d.Reason)
	}
	require.Equal(t, 3, a.count())
}

// A negative AnswerTTL keeps no answer: every ask is asked.
func TestAnswerTTLNegativeKeepsNothing(t *testing.T) {
	a := &scriptedApprover{}
	e := askEngine(t, a, Config{AnswerTTL: -1})
	for range 3 {
		e.Decide(context.Background(), bashCall("s", "c1", "git push"))
	}
	require.Equal(t, 3, a.count())
}

// Identical asks decided at once are put to the human once: the others
// wait for that answer.
func TestIdenticalAsksInFlightAskOnce(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	n := 0
	e := askEngine(t, ApproverFunc(func(ctx context.Context, r Request) (Answer, error) {
		mu.Lock()
		n++
		mu.Unlock()
		<-release
		return DenyIt, nil
	}), Config{ApprovalTimeout: 10 * time.Second})
	const k = 4
	out := make(chan Decision, k)
	for i := range k {
		go func() { out <- e.Decide(context.Background(), bashCall("s", "c"+string(rune('0'+i)), "git push")) }()
	}
	time.Sleep(200 * time.Millisecond)
	close(release)
	reused := 0
	for range k {
		d := <-out
		require.Equal(t, Deny, d.Outcome)
		if d.Approval.Reused == ReusedEarlier {
			reused++
		}
	}
	require.Equal(t, 1, n)
	require.Equal(t, k-1, reused)
}

// The approver is asked about the call the host will run: the input as
// the chain rewrote it, and an answer is the answer for that call.
func TestApproverSeesRewrittenCall(t *testing.T) {
	a := &scriptedApprover{answers: []string{"once"}}
	rewrite := Hook{Name: "dry", Priority: -1, Func: func(ctx context.Context, in HookInput) (HookResult, error) {
		return HookResult{Action: Modify, Input: map[string]any{"command": "git push --dry-run"}}, nil
	}}
	e := askEngine(t, a, Config{Hooks: []Hook{rewrite}})
	d := e.Decide(context.Background(), bashCall("s", "c1", "git push"))
	require.Equal(t, Allow, d.Outcome)
	require.Equal(t, map[string]any{"command": "git push --dry-run"}, d.Input)
	require.Len(t, a.asked, 1)
	require.Equal(t, map[string]any{"command": "git push --dry-run"}, a.asked[0].Input)
}
