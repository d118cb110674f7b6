package guardrun

import (
	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/action"
)

// Action is what a decider asked of an operation. It is the one
// action enum (package interp/action): a script's denial
// (Error.Denial), a Machine's Verdict, a guard's and an embedder hook's
// decision, an agent's decision (agent.Outcome) and an agent hook's
// answer (agent.HookAction) are all this type. Its text form ("allow",
// "deny", "retry", "ask") is what JSON and the logs carry.
type Action = action.Action

// Actions.
const (
	// Allow lets the operation run.
	Allow = action.Allow
	// Deny refuses it.
	Deny = action.Deny
	// Retry refuses this attempt and asks for a changed one.
	Retry = action.Retry
	// Ask needs a human's approval first.
	Ask = action.Ask
	// Abort refuses it because the decider failed (fail closed).
	Abort = action.Abort
)

// Class is the kind of decider behind a denial: one type with the
// interpreter's verdicts (interp.Class) and the agent's (agent.Class).
type Class = interp.Class

// Denial classes (interp's). Policy and capability denials are never
// retryable: the same operation will be refused again.
const (
	ClassPolicy     = interp.ClassPolicy
	ClassCapability = interp.ClassCapability
	ClassGuard      = interp.ClassGuard
	ClassHook       = interp.ClassHook
	ClassApproval   = interp.ClassApproval
	ClassProtected  = interp.ClassProtected
	ClassError      = interp.ClassError
)

// Denial describes one refusal, in the same shape for a script's run (an
// *Error's Denial) and an agent's decision (agent.Denial embeds it):
// what was asked, who decided (a policy rule, a guard or a hook), why,
// and which labels of the data made it fire.
type Denial struct {
	// Action is what the decider asked: Deny, Retry (a retry no runner
	// took, or an agent's retry), or Ask (an agent's ask). It is left out
	// of the JSON form: the decision's outcome (an agent record's
	// `outcome`, an error's `decision`) carries it.
	Action Action `json:"-"`
	Class  Class  `json:"class"`
	// Rule is the deciding policy rule ("defaults.rules.no-secret-exfil",
	// "capabilities.deny.cmd"); Guard the deciding guard ("@name", or
	// its filter when unnamed; an agent's hooks read "hook:name"); Hook
	// the deciding hook's name.
	Rule  string `json:"rule,omitempty"`
	Guard string `json:"guard,omitempty"`
	Hook  string `json:"hook,omitempty"`
	// Policy names the policies that decided (a script's policy
	// variables, "p, base"; an agent's policy file).
	Policy string `json:"policy,omitempty"`
	Reason string `json:"reason"`
	Hint   string `json:"hint,omitempty"`
	// Retryable tells the caller whether a changed operation may pass:
	// false for policy and capability denials, failures, refused asks
	// and hooks that do not ask for a retry.
	Retryable bool `json:"retryable"`
	// Labels are the labels of the data that made the decider fire.
	Labels []string `json:"labels,omitempty"`
	// Lineage says, one line per label, how the label reached the
	// operation (`secret from @k (line 3) → @summary → @post`). A
	// script's denial has it when the run was given WithExplain (the
	// interpreter records lineage only then); agent.Denial replaces it
	// with the session events the labels came from.
	Lineage []string `json:"lineage,omitempty"`
}
