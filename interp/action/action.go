package action

import "fmt"

// Action is what a decider asked of an operation. The zero value is
// Allow: no objection, as a guard with no matching rule or a hook that
// lets the chain go on. Every decider that fails says Deny or Abort
// explicitly; nothing is denied by leaving the field unset.
type Action int

// The actions. Their text (String, MarshalText) is the word scripts,
// decision logs, journals and hosts' answers use.
const (
	// Allow lets the operation run (an embedder hook's "continue").
	Allow Action = iota
	// Deny refuses it.
	Deny
	// Retry refuses this attempt and asks for a changed one; a hint
	// travels with it.
	Retry
	// Ask needs a human's approval first.
	Ask
	// Abort refuses it because the decider itself failed (a hook that
	// returned an error or panicked): handled as Deny, fail closed.
	Abort

	// Modify and Skip are answers only an agent's hook gives (AGENT.md
	// §8), never a decision's outcome: go on with a changed tool input
	// or output, and go on without the later hooks.
	Modify
	Skip
)

var names = [...]string{Allow: "allow", Deny: "deny", Retry: "retry", Ask: "ask", Abort: "abort", Modify: "modify", Skip: "skip"}

// String names the action: "allow", "deny", "retry", "ask" or "abort";
// an out-of-range value prints as "action(N)".
func (a Action) String() string {
	if int(a) < len(names) {
		return names[a]
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// Valid reports whether a is one of the actions.
func (a Action) Valid() bool { return int(a) < len(names) }

// Refuses reports whether the operation must not run as asked: every
// action but Allow.
func (a Action) Refuses() bool { return a != Allow }

// Parse reads an action's word, as String writes it.
func Parse(s string) (Action, error) {
	for i, n := range names {
		if n == s {
			return Action(i), nil
		}
	}
	return 0, fmt.Errorf("unknown action %q (want allow, deny, retry, ask, abort, modify or skip)", s)
}

// MarshalText writes the action's word; an out-of-range value is an
// error, never an allow.
func (a Action) MarshalText() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("invalid action %d", int(a))
	}
	return []byte(names[a]), nil
}

// UnmarshalText reads an action's word; anything else is an error.
func (a *Action) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
