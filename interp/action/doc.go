// Package action owns the one enum of what a decider asks of an
// operation: allow, deny, retry, ask, and a failed decider's abort. A
// guard's outcome (guard.Action), an embedder hook's decision
// (hooks.Action), a Machine's Verdict, a script's denial
// (guardrun.Action) and an agent's decision (agent.Outcome) are all this
// type, so a decision crosses from the guard engine to the wire without
// a conversion.
//
// It imports nothing of guardrun; every other package may import it.
package action
