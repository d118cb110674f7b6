package policy

import (
	"fmt"

	"github.com/guardrun/guardrun/ast"
)

// ConfigError is a malformed policy, reported when the policy is declared
// so a typo never becomes a silently ignored rule.
type ConfigError struct {
	// Path names the offending key: "defaults.rules[1]", "labels.secret.deny",
	// "lables"; "" is the policy value itself.
	Path string
	// Pos is the position of that key, from the Locator.
	Pos ast.Pos
	// Message is the one-line description.
	Message string
	// Hint says how to fix it.
	Hint string
}

// Error returns the message only; the interpreter adds file:line:col.
func (e *ConfigError) Error() string { return e.Message }

// Locator returns the source position of the object entry at path (keys,
// and array indexes as decimal strings), or of the nearest enclosing entry
// it knows. The interpreter builds it from the policy's object literal.
type Locator func(path []string) ast.Pos

// Denial is one policy decision against an operation.
type Denial struct {
	// Capability marks a capability denial (commands, shell, js, network,
	// danger, deny-all): never catchable or overridable. False means a
	// label-flow denial.
	Capability bool
	// Rule names the deciding rule: "defaults.rules.no-secret-exfil",
	// "labels.secret.deny", "capabilities.deny.cmd", "deny", ...
	Rule string
	// Reason is the exact user-facing message.
	Reason string
	// Label is the data label that triggered a flow denial ("known" for
	// the rules that require a known destination).
	Label string
	// Matched is the target or command pattern that matched.
	Matched string
	// Policies names the layers responsible, in declaration order.
	Policies []string
	// Locked reports whether the set is locked (flow denials only).
	Locked bool
	// Inputs are the effective input labels considered (flow).
	Inputs []string
	// Targets are the expanded operation targets (flow).
	Targets []string
	// Command is the offending simple command (capability).
	Command string
}

// Error returns the reason.
func (d *Denial) Error() string { return d.Reason }

// String renders the denial with the detail --explain shows.
func (d *Denial) String() string {
	if d.Capability {
		return fmt.Sprintf("%s [rule %s, policy %v, command %q]", d.Reason, d.Rule, d.Policies, d.Command)
	}
	return fmt.Sprintf("%s [rule %s, policy %v, labels %v, targets %v]", d.Reason, d.Rule, d.Policies, d.Inputs, d.Targets)
}
