package guard

import (
	"github.com/guardrun/guardrun/interp/action"
	"slices"

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

// Action is a guard decision: the one action enum (package action).
type Action = action.Action

// Decisions.
const (
	Allow = action.Allow
	Deny  = action.Deny
	Retry = action.Retry
	// Ask needs a human's approval (AGENT.md §5). It ranks between retry
	// and allow: deny > retry > ask > allow @value > allow.
	Ask = action.Ask
)

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
	// Relabel is set when the rule was a label change (`=> pii @v`)
	// whose value is not the guarded one: a rewrite the author did not
	// write as `allow @value`, which a host never takes as an approved
	// rewrite (issue 31).
	Relabel bool
	// Warning is the `allow with { warning }` text.
	Warning string
	// Question is the text of `ask "question"`.
	Question string
	// Context and Message are the with-clause's `context` (text for the
	// agent) and `message` (text for the user), on any action.
	Context, Message string
}

// Note is a with-clause's `context` or `message` text and the guard that
// gave it (its provenance).
type Note struct {
	Guard string
	// Context is meant for the agent, Message for its user.
	Context, Message string
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
	Decision Action
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

// Excepting returns o with the guards names (without '@') dropped as
// well, unless privileged: a policy's `guards: { except: [...] }` on top
// of an operation's own override. o is not changed.
func (o *Override) Excepting(names []string) *Override {
	if len(names) == 0 {
		return o
	}
	switch {
	case o == nil:
		return &Override{Except: names}
	case o.Disabled:
		return o
	case o.Only != nil:
		only := []string{}
		for _, n := range o.Only {
			if !contains(names, n) {
				only = append(only, n)
			}
		}
		return &Override{Only: only}
	}
	except := append([]string(nil), o.Except...)
	for _, n := range names {
		if !contains(except, n) {
			except = append(except, n)
		}
	}
	return &Override{Except: except}
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
	// External is set when the caller owns retries and approvals (the
	// agent engine): a retry in either phase is reported as a retry
	// without the engine counting attempts (Attempt gives the try), and
	// an ask stays an ask.
	External bool
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
	Err *Error
	// Results are the evaluated guards in order. When the decision is
	// Allow they live in the engine's scratch space and are valid until
	// its next check; read them before running another operation. A
	// denial or retry has its own copy (as has its Error).
	Results  []Result
	Warnings []string
	Hints    []string
	Reasons  []string
	// Notes are the `context` and `message` texts of the evaluated
	// guards, in order.
	Notes []Note
}

// Engine selects, evaluates and reduces guards for operations.
//
// A check allocates nothing on its common path (every guard allows): the
// candidate lists, the results and the Evaluation handed to Eval live in
// per-nesting scratch space that the next check at the same nesting
// reuses, and deduplication marks guards with generation numbers instead
// of building sets. The marks live in the engine, so that checks leave the
// registry and its guards as they were registered (a Machine's decisions
// share them); an engine belongs to one evaluation and is not safe for
// concurrent use.
type Engine struct {
	Registry *Registry
	Eval     Evaluator
	attempts map[string]*attemptState
	// gen numbers selection passes; a guard whose mark equals the current
	// pass is already in the list being built. marks holds each guard's
	// generations, by Guard.ID.
	gen   uint64
	marks []guardMarks
	// states are scratch spaces by nesting depth: an evaluator may run
	// hooked operations (helper exes) whose checks nest inside this one.
	states []*runState
	depth  int
	// lower caches lower-cased operation keys (subtypes such as
	// "runCommand"), so that selection does not allocate for them.
	lower map[string]string
}

// guardMarks are one guard's selection generations (see Engine.gen): mark
// dedups the list being built, seen records selection per input in the
// current check.
type guardMarks struct{ mark, seen uint64 }

// marksOf returns g's marks, making room for every registered guard's
// when g is newer than the engine's marks (guards register as a run goes).
func (en *Engine) marksOf(g *Guard) *guardMarks {
	if g.ID >= len(en.marks) {
		n := len(en.Registry.all) + 1
		en.marks = append(en.marks, make([]guardMarks, n-len(en.marks))...)
	}
	return &en.marks[g.ID]
}

type attemptState struct {
	next    int
	history []Attempt
}

// NewEngine returns an engine over reg using eval.
func NewEngine(reg *Registry, eval Evaluator) *Engine {
	return &Engine{Registry: reg, Eval: eval, attempts: map[string]*attemptState{}, lower: map[string]string{}}
}

// candidate is a guard selected per input, with the input it guards.
type candidate struct {
	g     *Guard
	input int
}

// runState is the scratch space of one check.
type runState struct {
	cands   []candidate
	perOp   []*Guard
	results []Result
	ev      Evaluation
	one     [1]*value.Variable
	keys    [16]string
}

func (en *Engine) acquire() *runState {
	if en.depth == len(en.states) {
		en.states = append(en.states, &runState{})
	}
	st := en.states[en.depth]
	en.depth++
	st.cands = st.cands[:0]
	st.perOp = st.perOp[:0]
	st.results = st.results[:0]
	return st
}

func (en *Engine) release(st *runState) {
	// Drop references the scratch space holds so that values of finished
	// operations can be collected.
	st.ev = Evaluation{}
	st.one[0] = nil
	en.depth--
}

// selectPerInput appends to st.cands, for each input, the data guards its
// labels (and source or directory markers) select in the phase,
// deduplicated per input and ordered by registration, and marks them as
// seen in the check numbered run. It reports whether it selected any.
func (en *Engine) selectPerInput(p int, inputs []*value.Variable, o *Override, st *runState, run uint64) bool {
	r := en.Registry
	if len(r.data[p]) == 0 {
		return false
	}
	found := false
	for i, in := range inputs {
		if in == nil {
			continue
		}
		en.gen++
		mark := en.gen
		start := len(st.cands)
		add := func(list []*Guard) {
			for _, g := range list {
				m := en.marksOf(g)
				if m.mark == mark || !o.keeps(g) {
					continue
				}
				m.mark = mark
				st.cands = append(st.cands, candidate{g: g, input: i})
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
		sel := st.cands[start:]
		if len(sel) == 0 {
			continue
		}
		found = true
		sortCandidates(sel)
		for _, c := range sel {
			en.marksOf(c.g).seen = run
		}
	}
	return found
}

// selectPerOperation sets st.perOp to the operation, function and
// operation-label data guards of op in the phase, minus those seen per
// input in the check numbered run, ordered by registration.
func (en *Engine) selectPerOperation(p int, op *hooks.OperationContext, nInputs int, extraLabels []string, o *Override, st *runState, run uint64) {
	r := en.Registry
	keys := en.operationKeys(op, st.keys[:0])
	en.gen++
	mark := en.gen
	add := func(list []*Guard) {
		for _, g := range list {
			m := en.marksOf(g)
			if m.seen == run || m.mark == mark || !o.keeps(g) {
				continue
			}
			m.mark = mark
			st.perOp = append(st.perOp, g)
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
		if m := en.marksOf(g); m.seen != run && m.mark != mark && hierMatch(g.Value, op.OpLabels) && o.keeps(g) {
			m.mark = mark
			st.perOp = append(st.perOp, g)
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
	sortGuards(st.perOp)
}

// sortGuards orders guards by registration. The lists selection merges
// are each in registration order, so the result usually is already.
func sortGuards(gs []*Guard) {
	for i := 1; i < len(gs); i++ {
		if gs[i-1].ID > gs[i].ID {
			slices.SortFunc(gs, func(a, b *Guard) int { return a.ID - b.ID })
			return
		}
	}
}

func sortCandidates(cs []candidate) {
	for i := 1; i < len(cs); i++ {
		if cs[i-1].g.ID > cs[i].g.ID {
			slices.SortFunc(cs, func(a, b candidate) int { return a.g.ID - b.g.ID })
			return
		}
	}
}
