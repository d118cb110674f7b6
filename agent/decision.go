package agent

import (
	"time"

	"github.com/guardrun/guardrun"
)

// Outcome is what the engine decided about an event: guardrun.Action,
// the one spelling of allow, deny, retry and ask that scripts' denials
// use too.
type Outcome = guardrun.Action

// Outcomes, by precedence across a chain: deny > retry > ask > allow.
const (
	Allow = guardrun.Allow
	Deny  = guardrun.Deny
	Retry = guardrun.Retry
	Ask   = guardrun.Ask
)

// rank orders outcomes by precedence.
func rank(o Outcome) int {
	switch o {
	case Deny:
		return 3
	case Retry:
		return 2
	case Ask:
		return 1
	}
	return 0
}

// Class is the kind of rule behind a denial (guardrun.Class, which a
// script's denials use too).
type Class = guardrun.Class

// Denial classes. Policy and capability denials are never retryable: the
// same call will be refused again.
const (
	ClassPolicy     = guardrun.ClassPolicy
	ClassCapability = guardrun.ClassCapability
	ClassGuard      = guardrun.ClassGuard
	ClassApproval   = guardrun.ClassApproval
	// ClassHook is a Go or command hook's refusal.
	ClassHook = guardrun.ClassHook
	// ClassProtected is a call that would write guardrun's own files or
	// an agent's hook settings, or run guardrun's trust or init: the
	// engine refuses it whatever the policies say.
	ClassProtected = guardrun.ClassProtected
	// ClassError is a failure of the engine, a policy, a guard or the
	// store: the event is denied (fail closed).
	ClassError = guardrun.ClassError
)

// Denial is the typed record of a refusal (AGENT.md §5): a
// guardrun.Denial, the shape a script's denials have too, whose lineage
// is the session's events that brought the labels in.
//
// Its fields are guardrun.Denial's: Action (deny, retry, or ask for a
// refused ask), Class, Rule (the deciding policy rule), Guard (the
// deciding guard; a hook's reads "hook:name"), Hook (the deciding
// hook's name), Policy (the file of the policy that decided), Reason,
// Hint, Retryable and Labels (the labels that triggered the denial).
// Retryable tells the agent whether a changed call may pass: false for
// policy and capability denials, refused asks, a hook's block (unless
// the hook sets HookResult.Retryable) and once a call shape used its
// retries.
type Denial struct {
	guardrun.Denial
	// Lineage says where the triggering labels came from: the session's
	// events that brought them. It replaces guardrun.Denial's lineage,
	// which an agent's denial leaves empty.
	Lineage []Origin `json:"lineage,omitempty"`
	// OptIn is the policy line that lifts this denial, pasted into
	// OptInFile (the policy that decided, by file name); Reason ends with
	// OptInSentence. Empty when nothing can lift it (a failure).
	OptIn     string `json:"opt_in,omitempty"`
	OptInFile string `json:"opt_in_file,omitempty"`
}

// Injection is text for the agent's context or the user, with the guard
// that gave it.
type Injection struct {
	Source string `json:"source"`
	Text   string `json:"text"`
}

// MaxInjection caps one context injection (bytes); longer text is cut
// and marked.
const MaxInjection = 10 << 10

// Decision is the engine's answer to one event.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	// Reason explains a deny, Hint a retry, Question an ask.
	Reason   string `json:"reason,omitempty"`
	Hint     string `json:"hint,omitempty"`
	Question string `json:"question,omitempty"`
	// Asker is the guard that asked (Question set). Hosts have the
	// question; tests (`guardrun test`) name the guard.
	Asker string `json:"-"`
	// AskOptIn, on an ask of a guard the policy can turn off, is the
	// opt-in that does (as Denial.OptIn names a denial's), for the
	// policy file AskOptInFile: a run nobody watches answers the ask with
	// a denial that names it.
	AskOptIn     string `json:"-"`
	AskOptInFile string `json:"-"`
	// Approved says how an ask was answered ("once", "always", "cached").
	Approved string `json:"approved,omitempty"`
	// Approval is how the engine's Approver settled an ask (asked now,
	// or an answer reused): the human's answer or why there is none.
	Approval *Approval `json:"approval,omitempty"`
	Denial   *Denial   `json:"denial,omitempty"`
	// Input is the rewritten tool input (allow @value), nil when
	// unchanged; Output the transformed tool output (tool.after).
	Input  map[string]any `json:"input,omitempty"`
	Output any            `json:"output,omitempty"`
	// Labels are the labels the event's data carried (input before,
	// output after).
	Labels []string `json:"labels,omitempty"`
	// Context is text for the agent, Messages text for the user.
	Context  []Injection `json:"context,omitempty"`
	Messages []Injection `json:"messages,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
	// PolicyHash identifies the policies that decided.
	// RetryDelay is how long a hook asked the agent to wait before a
	// retry.
	RetryDelay time.Duration `json:"retry_delay,omitempty"`
	PolicyHash string        `json:"policy_hash,omitempty"`
	Latency    time.Duration `json:"-"`

	pending *pendingAsk
	// asked types an ask (guard, rule, policy, labels, lineage; class
	// ClassApproval): the denial of an ask that is not approved, and
	// what the log records of any ask.
	asked *Denial
}

// Allowed reports whether the event may proceed.
func (d *Decision) Allowed() bool { return d.Outcome == Allow }
