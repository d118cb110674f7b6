package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"
)

// DefaultAnswerTTL is how long an engine keeps a human's answer to an ask
// when Config sets no AnswerTTL.
const DefaultAnswerTTL = 5 * time.Minute

// maxAnswers bounds the answers an engine keeps; past it the oldest go
// (an answer forgotten is asked again, never assumed).
const maxAnswers = 10000

// answers are the engine's recent answers to asks and the asks being
// put to the human now, by ask identity (askKey): an identical ask
// reuses an answer that is still kept, or waits for the one being given.
//
// Only a human's answer is kept: a denial, reused by every identical
// ask (reusing a no can only refuse), and an "allow once", reused only
// by the same call (the same non-empty call id: a host that sends the
// call again), since once is one call and a later call with the same
// input may do something else (a second `git push` pushes other
// commits). "Allow always" is kept in the session (Session.Approvals)
// and reused here too while an identical ask is in flight. No answer (a
// timeout, a failed approver, a caller that gave up) is not kept.
type answers struct {
	mu   sync.Mutex
	kept map[string]keptAnswer
	// asking are the asks being put to the human: done closes when the
	// answer is kept (or there is none).
	asking map[string]chan struct{}
}

type keptAnswer struct {
	ans    Answer
	callID string
	at     time.Time
}

// askKey identifies an ask of a tool call (tool.before): the session,
// the tool, the call's input as the host will run it, the guard that
// asks and its question.
func askKey(session, tool string, input map[string]any, asker, question string) string {
	b, _ := json.Marshal(input)
	h := sha256.New()
	for _, s := range []string{session, tool, string(b), asker, question} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// reusable is the kept answer an identical ask of call callID may take
// at now, if any.
func (a *answers) reusable(key, callID string, now time.Time, ttl time.Duration) (Answer, bool) {
	k, ok := a.kept[key]
	if !ok || ttl <= 0 || now.Sub(k.at) >= ttl || now.Before(k.at) {
		return 0, false
	}
	switch k.ans {
	case DenyIt, AllowAlways:
		return k.ans, true
	case AllowOnce:
		return k.ans, callID != "" && callID == k.callID
	}
	return 0, false
}

// settle returns the answer an identical ask left for this one, or, when
// there is none, registers this ask as the one being put to the human
// (done must then be called). It waits while an identical ask is being
// answered, until ctx ends.
func (a *answers) settle(ctx context.Context, key, callID string, now func() time.Time, ttl time.Duration) (ans Answer, reused bool, err error) {
	for {
		a.mu.Lock()
		if ans, ok := a.reusable(key, callID, now(), ttl); ok {
			a.mu.Unlock()
			return ans, true, nil
		}
		wait, busy := a.asking[key]
		if !busy {
			if a.asking == nil {
				a.asking = map[string]chan struct{}{}
			}
			a.asking[key] = make(chan struct{})
			a.mu.Unlock()
			return 0, false, nil
		}
		a.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return 0, false, ctx.Err()
		}
	}
}

// done ends this ask: a human's answer (got) is kept, and asks waiting
// for it go on.
func (a *answers) done(key, callID string, ans Answer, got bool, at time.Time, ttl time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if got && ttl > 0 {
		if a.kept == nil {
			a.kept = map[string]keptAnswer{}
		}
		if len(a.kept) >= maxAnswers {
			a.prune(at, ttl)
		}
		a.kept[key] = keptAnswer{ans: ans, callID: callID, at: at}
	}
	if ch, ok := a.asking[key]; ok {
		close(ch)
		delete(a.asking, key)
	}
}

// prune drops the expired answers, then, while there are still too many,
// the oldest.
func (a *answers) prune(now time.Time, ttl time.Duration) {
	for k, v := range a.kept {
		if now.Sub(v.at) >= ttl || now.Before(v.at) {
			delete(a.kept, k)
		}
	}
	for len(a.kept) >= maxAnswers {
		oldest, first := "", time.Time{}
		for k, v := range a.kept {
			if oldest == "" || v.at.Before(first) {
				oldest, first = k, v.at
			}
		}
		delete(a.kept, oldest)
	}
}
