package guardrun

import (
	"context"

	"github.com/guardrun/guardrun/interp"
)

// Machine is a program whose top level ran once, kept to decide
// operations against its guards and policies (the agent engine's seam;
// see interp.Machine). Its Before and After are safe for concurrent use:
// each decision runs in an evaluation of its own over the loaded state,
// which no decision writes.
type Machine = interp.Machine

// Load runs the program's top level once (tools, policies, guards, helper
// exes) and returns the Machine that decides operations against the state
// it left. Every Run option applies as for Run (WithDir, WithStateDir,
// WithoutCode, WithHooks, WithExplain, …), and a program compiled from
// memory loaded without WithDir has no base directory, as in Run. A
// failure is an *Error with the script's position.
func (p *Program) Load(ctx context.Context, opts ...RunOption) (m *Machine, err error) {
	o, vars := p.options(opts)
	if vars != nil {
		return nil, usageError(p.name, "WithVars is given to Run, not to Load: a loaded Machine's decisions each take their own per-call variables",
			"pass them to each decision in its Operation.Vars", nil)
	}
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, panicError(p.name, r)
		}
	}()
	m, lerr := interp.Load(ctx, p.doc, o)
	if lerr != nil {
		return nil, newError(lerr, source{name: p.name, src: p.src, dir: o.Dir})
	}
	return m, nil
}

// Operation is one operation for a Machine to decide (interp.Operation):
// its description, inputs and, in Vars, the decision's per-call
// variables.
type Operation = interp.Operation

// Verdict is a Machine's decision on one operation phase.
type Verdict = interp.Verdict

// Phase is the side of an operation Machine.Eval decides.
type Phase = interp.Phase

// Phases.
const (
	// BeforePhase: the operation has not run yet.
	BeforePhase = interp.BeforePhase
	// AfterPhase: it ran, and its output is decided.
	AfterPhase = interp.AfterPhase
)
