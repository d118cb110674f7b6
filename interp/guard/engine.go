package guard

import (
	"sort"

	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// Scope is how a guard sees its operation's inputs.
type Scope int

// Scopes (SPEC §5.4).
const (
	// PerInput guards run once per matching input; @input is that value.
	PerInput Scope = iota
	// PerOperation guards run once; @input is the list of inputs.
	PerOperation
)

func (s Scope) String() string {
	if s == PerOperation {
		return "perOperation"
	}
	return "perInput"
}

// Action is a guard decision.
type Action int

// Decisions.
const (
	Allow Action = iota
	Deny
	Retry
)

func (a Action) String() string {
	switch a {
	case Deny:
		return "deny"
	case Retry:
		return "retry"
	}
	return "allow"
}

// MaxTries is the retry budget of an operation outside pipelines.
const MaxTries = 3

// Outcome is what one guard's rules decided.
type Outcome struct {
	Action Action
	// Matched is set when a rule matched; no match is an implicit allow.
	Matched bool
	Reason  string
	Hint    string
	// Replacement is the value of `allow @value` or of a label change; its
	// descriptor is final (the evaluator applies label changes).
	Replacement *value.Variable
	// Warning is the `allow with { warning }` text.
	Warning string
}

// Result is one evaluated guard, as the trace records it.
type Result struct {
	Guard *Guard
	Outcome
	Timing Timing
	Scope  Scope
	// Failed is set when the guard raised an error; the denial is final.
	Failed bool
}

// Attempt is one earlier retry of an operation (`@mx.guard.tries`).
type Attempt struct {
	Attempt  int
	Decision string
	Hint     string
}

// Evaluation is one guard about to be evaluated: what the evaluator binds
// as @input, @output and @mx.guard.
type Evaluation struct {
	Guard *Guard
	Scope Scope
	// Phase is Before or After.
	Phase Timing
	// Input is the guarded value (per-input) and Inputs the operation's
	// inputs as the guard sees them.
	Input  *value.Variable
	Inputs []*value.Variable
	// Output is the current output (after phase), nil before.
	Output *value.Variable
	Call   *hooks.Call
	// Try counts attempts of the operation from 1; History lists the
	// earlier ones.
	Try     int
	Max     int
	History []Attempt
	// Trace are the results of the guards evaluated before this one in the
	// same operation and phase.
	Trace []Result
}

// Evaluator runs one guard's rules. An error denies the operation.
type Evaluator func(ev *Evaluation) (Outcome, error)

// Override is a `with { guards: … }` setting (SPEC §5.14).
type Override struct {
	// Disabled drops every non-privileged guard.
	Disabled bool
	// Only keeps the listed names (without '@') and privileged guards.
	Only []string
	// Except drops the listed names unless privileged.
	Except []string
}

func (o *Override) keeps(g *Guard) bool {
	if o == nil || g.Privileged {
		return true
	}
	if o.Disabled {
		return false
	}
	if o.Only != nil {
		return g.Name != "" && contains(o.Only, g.Name)
	}
	if o.Except != nil {
		return g.Name == "" || !contains(o.Except, g.Name)
	}
	return true
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Options are per-operation settings of a check.
type Options struct {
	Override *Override
	// Attempt is the attempt number a pipeline counts for a stage; 0 lets
	// the engine count attempts itself.
	Attempt int
	// Pipeline is set for pipeline stages: a before-phase retry is handed
	// to the pipeline instead of becoming a denial.
	Pipeline bool
	// Effect is set for output, append, log and inline effects, which can
	// never be retried.
	Effect bool
}

// Decision is the reduced outcome of a phase.
type Decision struct {
	Action Action
	// Inputs are the transformed inputs (before phase); nil when no guard
	// replaced anything.
	Inputs []*value.Variable
	// Output is the transformed output (after phase); nil when unchanged.
	Output *value.Variable
	// Err describes a denial or retry.
	Err      *Error
	Results  []Result
	Warnings []string
	Hints    []string
	Reasons  []string
}

// Engine selects, evaluates and reduces guards for operations.
type Engine struct {
	Registry *Registry
	Eval     Evaluator
	attempts map[string]*attemptState
}

type attemptState struct {
	next    int
	history []Attempt
}

// NewEngine returns an engine over reg using eval.
func NewEngine(reg *Registry, eval Evaluator) *Engine {
	return &Engine{Registry: reg, Eval: eval, attempts: map[string]*attemptState{}}
}

// candidate is a selected guard with the input it guards (per-input).
type candidate struct {
	g     *Guard
	input int
}

// selectPerInput returns, for each input, the data guards its labels
// select in the phase, deduplicated per input and sorted by registration.
func (en *Engine) selectPerInput(phase Timing, inputs []*value.Variable, o *Override, seen map[*Guard]bool) [][]*Guard {
	r := en.Registry
	p := phaseIndex(phase)
	if len(r.data[p]) == 0 {
		return nil
	}
	var out [][]*Guard
	for i, in := range inputs {
		if in == nil {
			continue
		}
		var gs []*Guard
		add := func(list []*Guard) {
			for _, g := range list {
				if !o.keeps(g) || containsGuard(gs, g) {
					continue
				}
				gs = append(gs, g)
			}
		}
		for _, l := range in.Security.Labels() {
			add(r.data[p][l])
		}
		if r.taint[p] {
			for _, t := range in.Security.Taint() {
				if isMarker(t) {
					add(r.data[p][t])
				}
			}
		}
		if len(gs) == 0 {
			continue
		}
		sortGuards(gs)
		if out == nil {
			out = make([][]*Guard, len(inputs))
		}
		out[i] = gs
		for _, g := range gs {
			seen[g] = true
		}
	}
	return out
}

// selectPerOperation returns the operation, function and operation-label
// data guards of op in the phase, minus those already selected per input.
func (en *Engine) selectPerOperation(phase Timing, op *hooks.OperationContext, nInputs int, extraLabels []string, o *Override, seen map[*Guard]bool) []*Guard {
	r := en.Registry
	p := phaseIndex(phase)
	var buf [16]string
	keys := operationKeys(op, buf[:0])
	var gs []*Guard
	add := func(list []*Guard) {
		for _, g := range list {
			if seen[g] || !o.keeps(g) || containsGuard(gs, g) {
				continue
			}
			gs = append(gs, g)
		}
	}
	if len(r.op[p]) > 0 {
		for _, k := range keys {
			add(r.op[p][k])
		}
		for _, l := range extraLabels {
			add(r.op[p][l])
		}
	}
	for _, g := range r.hier[p] {
		if hierMatch(g.Value, op.OpLabels) {
			add([]*Guard{g})
		}
	}
	if nInputs > 0 && len(r.data[p]) > 0 {
		for _, k := range keys {
			add(r.data[p][k])
		}
	}
	if op.Name != "" && len(r.fn[p]) > 0 {
		add(r.fn[p][op.Name])
	}
	sortGuards(gs)
	return gs
}

func containsGuard(gs []*Guard, g *Guard) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}

func sortGuards(gs []*Guard) {
	if len(gs) < 2 {
		return
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].ID < gs[j].ID })
}
