package agent

import "time"

// Outcome is what the engine decided about an event.
type Outcome string

// Outcomes, by precedence across a chain: deny > retry > ask > allow.
const (
	Allow Outcome = "allow"
	Deny  Outcome = "deny"
	Retry Outcome = "retry"
	Ask   Outcome = "ask"
)

func (o Outcome) rank() int {
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

// Class is the kind of rule behind a denial.
type Class string

// Denial classes. Policy and capability denials are never retryable: the
// same call will be refused again.
const (
	ClassPolicy     Class = "policy"
	ClassCapability Class = "capability"
	ClassGuard      Class = "guard"
	ClassApproval   Class = "approval"
	// ClassHook is a Go or command hook's refusal.
	ClassHook Class = "hook"
	// ClassProtected is a call that would write guardrun's own files or
	// an agent's hook settings, or run guardrun's trust or init: the
	// engine refuses it whatever the policies say.
	ClassProtected Class = "protected"
	// ClassError is a failure of the engine, a policy, a guard or the
	// store: the event is denied (fail closed).
	ClassError Class = "error"
)

// Denial is the typed record of a refusal (AGENT.md §5).
type Denial struct {
	Class Class `json:"class"`
	// Rule is the deciding policy rule; Guard the deciding guard.
	Rule  string `json:"rule,omitempty"`
	Guard string `json:"guard,omitempty"`
	// Policy is the file of the policy that decided.
	Policy string `json:"policy,omitempty"`
	Reason string `json:"reason"`
	Hint   string `json:"hint,omitempty"`
	// Retryable tells the agent whether a changed call may pass: false
	// for policy and capability denials, refused asks, a hook's block
	// (unless the hook sets HookResult.Retryable) and once a call shape
	// used its retries.
	Retryable bool `json:"retryable"`
	// Labels are the labels that triggered the denial and Lineage where
	// they came from.
	Labels  []string `json:"labels,omitempty"`
	Lineage []Origin `json:"lineage,omitempty"`
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
