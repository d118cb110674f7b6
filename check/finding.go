package check

import (
	"fmt"

	"github.com/guardrun/guardrun/ast"
)

// Severity is how bad a finding is: errors fail `guardrun check`.
type Severity string

// Severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Finding kinds.
const (
	KindUnknownName  = "unknown-name"
	KindUnknownField = "unknown-field"
	KindNeverMatches = "never-matches"
	KindUnreachable  = "unreachable-arm"
	KindShadowed     = "shadowed-guard"
	KindDuplicate    = "duplicate-name"
	KindLabelFlow    = "label-flow"
	KindReasonText   = "reason-text"
)

// Finding is one problem found in a script.
type Finding struct {
	Pos      ast.Pos  `json:"-"`
	Severity Severity `json:"severity"`
	Kind     string   `json:"kind"`
	Message  string   `json:"message"`
	// Path is, for a label-flow finding, the chain from the labelled
	// source to the sink.
	Path []string `json:"path,omitempty"`
	// FailsOpen marks an agent policy's mistake that lets through what
	// the author meant to stop, silently (a misspelt tool, field behind
	// ?., command or label; a rule that never runs): the agent engine
	// refuses to load a policy with one, so the hook fails closed.
	FailsOpen bool `json:"fails_open,omitempty"`
}

// String renders the finding as file:line:col: severity: message.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s", f.Pos, f.Severity, f.Message)
}
