package agent

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// askPolicy asks before every git command.
const askPolicy = concPolicy + "guard @push before op:cmd:git = when [\n  * => ask \"Run git?\"\n]\n"

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
