package guard

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/taint"
)

// Timing is when a guard runs relative to its operation.
type Timing int

// Timings. Always guards run in both phases.
const (
	Before Timing = iota
	After
	Always
)

// ParseTiming maps the directive's keyword to a Timing.
// String is the timing's name in the language: "before", "after" or
// "always" (a phase is Before or After).
func (t Timing) String() string {
	switch t {
	case After:
		return "after"
	case Always:
		return "always"
	}
	return "before"
}

// ParseTiming reads a timing's name; anything else is Before.
func ParseTiming(s string) Timing {
	switch s {
	case "after":
		return After
	case "always":
		return Always
	}
	return Before
}

// runsIn reports whether a guard of timing t runs in phase p (Before or
// After).
func (t Timing) runsIn(p Timing) bool { return t == Always || t == p }

// Kind is what a guard's filter matches.
type Kind int

// Filter kinds (SPEC §5.1).
const (
	// Data guards match a label of an input value (`secret`, `pii`).
	Data Kind = iota
	// Op guards match an operation key (`op:exe`, `op:cmd:git`).
	Op
	// Func guards match the name of the operation (`@send`).
	Func
)

// Guard is one registered guard directive.
type Guard struct {
	// ID is the registration number: every candidate list is sorted by it.
	ID int
	// source carries "guard:" + key(), the provenance a replacement of
	// this guard carries; set by Registry.Add (key depends on ID).
	source taint.Descriptor
	// Name is the guard's name without '@'; empty for unnamed guards.
	Name   string
	Timing Timing
	Kind   Kind
	// Value is the filter without its prefix: "secret", "exe", "cmd:git",
	// or the function name.
	Value      string
	Privileged bool
	Rules      *ast.WhenExpr
	Pos        ast.Pos
	// Env is the interpreter environment the guard was defined in, opaque
	// to this package: the guard's body runs in that scope (an imported
	// guard's in its module's), never the calling code's.
	Env hooks.Env
	// Plan is what the evaluator prepared from Rules when the guard was
	// registered (a compiled form, an analysis); opaque to this package.
	Plan any
}

// New builds a guard from its directive. env is the defining environment.
func New(d *ast.GuardDirective, env hooks.Env) *Guard {
	g := &Guard{Name: d.Name, Timing: ParseTiming(d.Timing), Privileged: d.Privileged, Rules: d.Body, Pos: d.Pos, Env: env}
	t := d.Trigger
	switch {
	case strings.HasPrefix(t, "op:"):
		g.Kind, g.Value = Op, strings.ToLower(t[3:])
	case strings.HasPrefix(t, "@"):
		g.Kind, g.Value = Func, t[1:]
	default:
		g.Kind, g.Value = Data, t
	}
	return g
}

// Filter renders the filter as GuardError reports it: "data:secret",
// "operation:exe", "function:send".
func (g *Guard) Filter() string {
	switch g.Kind {
	case Op:
		return "operation:" + g.Value
	case Func:
		return "function:" + g.Value
	}
	return "data:" + g.Value
}

// Label is how errors name the guard: "@name", or the filter for an
// unnamed guard.
func (g *Guard) Label() string {
	if g.Name == "" {
		return g.Filter()
	}
	return "@" + g.Name
}

// ID string of an unnamed guard, as trace entries show it.
func (g *Guard) key() string {
	if g.Name != "" {
		return g.Name
	}
	return "<unnamed-guard-" + itoa(g.ID) + ">"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
