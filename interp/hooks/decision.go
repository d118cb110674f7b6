package hooks

import (
	"github.com/guardrun/guardrun/interp/action"
	"github.com/guardrun/guardrun/interp/value"
)

// Action is what a pre-hook asks of the operation: the one action enum
// (package action).
type Action = action.Action

// Actions. Continue lets the operation run (the chain goes on to the next
// pre-hook); every other action stops the chain.
const (
	// Continue: no objection (action.Allow).
	Continue = action.Allow
	// Deny: the operation must not run; Reason says why.
	Deny = action.Deny
	// Retry: the operation should be re-run (where the context allows);
	// Hint is passed to the next attempt.
	Retry = action.Retry
	// Abort: the operation cannot proceed because the hook itself failed;
	// it is handled like Deny (fail closed).
	Abort = action.Abort
)

// Decision is a pre-hook's verdict on an operation.
type Decision struct {
	Action Action
	// Hook names the hook that decided (filled in by the Manager).
	Hook string
	// Reason explains a Deny or Abort.
	Reason string
	// Hint travels with a Retry.
	Hint string
	// Retryable, on a Deny, says that a changed operation may pass
	// (guardrun.Denial.Retryable, Verdict.Retryable). It is false by
	// default: a hook's refusal is final, as an agent hook's is
	// (agent.HookResult.Retryable).
	Retryable bool
	// Inputs, when non-nil on Continue, replace the operation's inputs
	// (a transform); the operation uses them instead of the originals.
	Inputs []*value.Variable
	// Metadata carries hook-specific details (guard name, filter…) for the
	// error the interpreter builds from a denial.
	Metadata map[string]any
	// Err is the error behind an Abort, when there is one.
	Err error
}

// Stops reports whether the decision ends the pre-hook chain.
func (d Decision) Stops() bool { return d.Action != Continue }
