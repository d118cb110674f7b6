package agent

import (
	"fmt"
	"strings"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/check"
)

// PolicyCheckError is an agent policy in which `guardrun check` finds a
// mistake that fails open (check.Finding.FailsOpen: a misspelt tool,
// field behind ?., label or command, a rule that never runs): the engine
// refuses to load it, so the hook fails closed instead of allowing what
// the author meant to stop (issue 31). Mistakes that already fail closed
// when they run (an unknown name) are left to run.
type PolicyCheckError struct {
	Policy   string
	Findings []check.Finding
}

func (e *PolicyCheckError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s has %d mistake(s) that would let calls through (see guardrun check %s):", e.Policy, len(e.Findings), e.Policy)
	for _, f := range e.Findings {
		b.WriteString("\n  " + f.String())
	}
	return b.String()
}

// checkPolicy runs check on an agent policy (`.guard`), with the tool
// collections in scope (its modules' and the earlier layers'), and
// returns the errors that fail open; other findings and other files
// pass.
func checkPolicy(name string, prg *guardrun.Program, tools []string) error {
	if !check.AgentPolicy(name) || prg.Document() == nil {
		return nil
	}
	var errs []check.Finding
	for _, f := range check.AgentDocument(prg.Document(), tools...) {
		if f.Severity == check.Error && f.FailsOpen {
			errs = append(errs, f)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &PolicyCheckError{Policy: name, Findings: errs}
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
