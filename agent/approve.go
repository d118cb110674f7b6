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
	// same tool and question are not asked again, whatever the input).
	AllowAlways
)

// Request is what an approver is asked.
type Request struct {
	Session  string
	Tool     string
	Question string
	// Guard is the guard that asked.
	Guard string
	// Input is the call's input as the host will run it (as the chain
	// rewrote it, if it did).
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
// approver denies, and so does a caller whose context ends first (the
// reply tells them apart, why says it in words).
func approve(caller context.Context, a Approver, timeout time.Duration, r Request) (ans Answer, reply Reply, why string) {
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
			reply, why := noAnswer(caller, timeout)
			return DenyIt, reply, why
		case res.pan != nil:
			return DenyIt, ReplyFailed, "the approver failed"
		case res.err != nil:
			return DenyIt, ReplyFailed, "the approver failed: " + res.err.Error()
		case res.ans == AllowOnce:
			return AllowOnce, ReplyOnce, ""
		case res.ans == AllowAlways:
			return AllowAlways, ReplyAlways, ""
		}
		return DenyIt, ReplyDenied, "the user denied it"
	case <-ctx.Done():
		reply, why := noAnswer(caller, timeout)
		return DenyIt, reply, why
	}
}

// noAnswer says why an ask whose context ended has no answer: the
// caller's context ended (it was canceled or its deadline passed), or the
// approver's timeout did.
func noAnswer(caller context.Context, timeout time.Duration) (Reply, string) {
	if err := caller.Err(); err != nil {
		return ReplyCanceled, "the caller gave up before the approver answered: " + err.Error()
	}
	return ReplyTimeout, "no approval within " + timeout.String()
}

// Reply is how an ask was answered: what the human answered, or why
// there is no answer (every one of those denies).
type Reply string

// Replies.
const (
	ReplyOnce   Reply = "once"
	ReplyAlways Reply = "always"
	// ReplyDenied is the human's no (DenyIt, or an answer that is
	// neither AllowOnce nor AllowAlways).
	ReplyDenied Reply = "denied"
	// ReplyTimeout: the approver did not answer within
	// Config.ApprovalTimeout.
	ReplyTimeout Reply = "timeout"
	// ReplyCanceled: the context passed to Decide ended (canceled, or its
	// deadline passed) before the approver answered.
	ReplyCanceled Reply = "canceled"
	// ReplyFailed: the approver returned an error or panicked.
	ReplyFailed Reply = "failed"
)

// Where an answer given to an earlier ask came from (Approval.Reused).
const (
	// ReusedSession is an "allow always" the session holds for the tool
	// and question.
	ReusedSession = "session"
	// ReusedEarlier is the answer an identical ask got (Config.AnswerTTL).
	ReusedEarlier = "earlier"
)

// Approval is how an ask was settled by the engine's Approver: on the
// Decision and on its decision-log record. An ask left to the host (no
// Approver: Outcome Ask) has none.
type Approval struct {
	// Question is what was asked.
	Question string `json:"question"`
	// Answer is the human's answer, or why there is none.
	Answer Reply `json:"answer"`
	// Reused is set when the approver was not asked for this event: the
	// answer came from the session (ReusedSession) or from an identical
	// ask (ReusedEarlier).
	Reused string `json:"reused,omitempty"`
}
