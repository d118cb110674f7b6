package agent

import (
	"context"
	"time"
)

// Answer is a human's answer to an ask.
type Answer int

// Answers. The zero value denies: an approver that answers nothing
// meaningful never lets a call through.
const (
	DenyIt Answer = iota
	AllowOnce
	// AllowAlways allows and remembers the answer for the session (the
	// same tool and question are not asked again).
	AllowAlways
)

// Request is what an approver is asked.
type Request struct {
	Session  string
	Tool     string
	Question string
	// Guard is the guard that asked.
	Guard string
	Input map[string]any
	// Labels are the labels the input carries.
	Labels []string
}

// Approver asks a human. It must return when ctx ends; the engine denies
// when it does not answer within its timeout (Config.ApprovalTimeout),
// when it fails, and when the context passed to Decide ends first: the
// denial's reason then says the caller gave up (canceled, or its deadline
// passed), not that the approver timed out.
type Approver interface {
	Approve(ctx context.Context, r Request) (Answer, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, r Request) (Answer, error)

// Approve implements Approver.
func (f ApproverFunc) Approve(ctx context.Context, r Request) (Answer, error) { return f(ctx, r) }

// DefaultApprovalTimeout bounds an approval when Config sets none.
const DefaultApprovalTimeout = 60 * time.Second

// approve runs the approver with the timeout; a late, failed or panicking
// approver denies, and so does a caller whose context ends first (why
// tells the two apart).
func approve(caller context.Context, a Approver, timeout time.Duration, r Request) (ans Answer, why string) {
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	ctx, cancel := context.WithTimeout(caller, timeout)
	defer cancel()
	type result struct {
		ans Answer
		err error
		pan any
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- result{pan: p}
			}
		}()
		ans, err := a.Approve(ctx, r)
		ch <- result{ans: ans, err: err}
	}()
	select {
	case res := <-ch:
		switch {
		case res.err != nil && ctx.Err() != nil:
			// The approver gave up because its context ended.
			return DenyIt, noAnswer(caller, timeout)
		case res.pan != nil:
			return DenyIt, "the approver failed"
		case res.err != nil:
			return DenyIt, "the approver failed: " + res.err.Error()
		case res.ans == AllowOnce || res.ans == AllowAlways:
			return res.ans, ""
		}
		return DenyIt, "the user denied it"
	case <-ctx.Done():
		return DenyIt, noAnswer(caller, timeout)
	}
}

// noAnswer says why an ask whose context ended has no answer: the
// caller's context ended (it was canceled or its deadline passed), or the
// approver's timeout did.
func noAnswer(caller context.Context, timeout time.Duration) string {
	if err := caller.Err(); err != nil {
		return "the caller gave up before the approver answered: " + err.Error()
	}
	return "no approval within " + timeout.String()
}
