package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/check"
)

// PolicyCheckError is an agent policy in which `guardrun check` finds a
// mistake of error severity: a misspelt tool, field behind ?., label or
// command, a rule that never runs (these fail open: they let through
// what the author meant to stop), or a guard using a name that does not
// exist (`@tpyo`, which would fail closed and deny every call it
// covers). The engine refuses to load it (guardrun.Program.StrictCheck),
// so the author learns of the mistake when the policy loads, not from the
// calls it lets through or refuses.
type PolicyCheckError struct {
	Policy   string
	Findings []check.Finding
	// Err is the check's *guardrun.Error (a CheckError at the first
	// finding).
	Err error
}

func (e *PolicyCheckError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s has %d mistake(s) (see guardrun check %s):", e.Policy, len(e.Findings), e.Policy)
	for _, f := range e.Findings {
		b.WriteString("\n  " + f.String())
	}
	return b.String()
}

// Unwrap returns the check's *guardrun.Error.
func (e *PolicyCheckError) Unwrap() error { return e.Err }

// checkPolicy runs the strict check over an agent policy (`.guard`) once
// it loaded, with the tool collections in scope (its modules' and the
// earlier layers'); other files pass.
func checkPolicy(name string, prg *guardrun.Program, tools []string) error {
	if !check.AgentPolicy(name) || prg.Document() == nil {
		return nil
	}
	err := prg.StrictCheck(tools...)
	if err == nil {
		return nil
	}
	pe := &PolicyCheckError{Policy: name, Err: err}
	var ge *guardrun.Error
	if errors.As(err, &ge) {
		pe.Findings = ge.Findings
	}
	return pe
}

// toolPatterns are the tool collection keys of the layers loaded so far.
func (e *Engine) toolPatterns() []string {
	var out []string
	for _, l := range e.layers {
		for _, t := range l.tools {
			out = append(out, t.pattern)
		}
	}
	return out
}
