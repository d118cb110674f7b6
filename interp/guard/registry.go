package guard

import (
	"fmt"
	"strings"

	"github.com/guardrun/guardrun/taint"
)

// Registry holds the active guards of one run in registration order,
// indexed for selection: the main script's as their directive runs, an
// imported module's when an importer asks for them (SPEC §2, §5.2).
type Registry struct {
	all    []*Guard
	byName map[string]*Guard
	// data, op and fn index guards by filter value, per phase (0 before,
	// 1 after); always guards are in both.
	data [2]map[string][]*Guard
	op   [2]map[string][]*Guard
	fn   [2]map[string][]*Guard
	// hier are op guards with a hierarchical value (`op:cmd:git`), matched
	// by prefix against operation labels (SPEC §8 item 4 PORT).
	hier [2][]*Guard
	// taint are data guards on source or directory markers, matched
	// against taint (SPEC §8 item 12 PORT).
	taint [2]bool
	count [2]int
	// priv counts privileged guards per phase.
	priv [2]int
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	r := &Registry{byName: map[string]*Guard{}}
	for p := 0; p < 2; p++ {
		r.data[p] = map[string][]*Guard{}
		r.op[p] = map[string][]*Guard{}
		r.fn[p] = map[string][]*Guard{}
	}
	return r
}

// DuplicateError is returned by Add for a second guard with a name in use.
type DuplicateError struct{ Name string }

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("Guard with name %s already exists", e.Name)
}

// Add registers g with the next registration number.
func (r *Registry) Add(g *Guard) error {
	if g.Name != "" {
		if _, dup := r.byName[g.Name]; dup {
			return &DuplicateError{Name: "@" + g.Name}
		}
		r.byName[g.Name] = g
	}
	g.ID = len(r.all) + 1
	g.source = taint.Make(nil, nil, []string{"guard:" + g.key()})
	r.all = append(r.all, g)
	for p, phase := range [2]Timing{Before, After} {
		if !g.Timing.runsIn(phase) {
			continue
		}
		r.count[p]++
		if g.Privileged {
			r.priv[p]++
		}
		switch g.Kind {
		case Data:
			r.data[p][g.Value] = append(r.data[p][g.Value], g)
			if isMarker(g.Value) {
				r.taint[p] = true
			}
		case Op:
			if strings.Contains(g.Value, ":") {
				r.hier[p] = append(r.hier[p], g)
			} else {
				r.op[p][g.Value] = append(r.op[p][g.Value], g)
			}
		case Func:
			r.fn[p][g.Value] = append(r.fn[p][g.Value], g)
		}
	}
	return nil
}

// Len is the number of registered guards.
func (r *Registry) Len() int { return len(r.all) }

// Has reports whether any guard runs in phase (Before or After).
func (r *Registry) Has(phase Timing) bool { return r.count[phaseIndex(phase)] > 0 }

// Lookup returns the guard registered under name (without '@').
func (r *Registry) Lookup(name string) (*Guard, bool) {
	g, ok := r.byName[name]
	return g, ok
}

// Names returns the names of the registered named guards, in
// registration order.
func (r *Registry) Names() []string {
	var out []string
	for _, g := range r.all {
		if g.Name != "" {
			out = append(out, g.Name)
		}
	}
	return out
}

// OpFilterLabels returns the values used by operation guards, so that a
// data guard on one of them can be flagged (`Did you mean "op:X"?`).
func (r *Registry) OpFilterLabels() map[string]bool {
	out := map[string]bool{}
	for _, g := range r.all {
		if g.Kind == Op {
			out[g.Value] = true
		}
	}
	return out
}

func phaseIndex(p Timing) int {
	if p == After {
		return 1
	}
	return 0
}

// isMarker reports whether a data filter names a source or directory
// marker, which lives in taint rather than labels.
func isMarker(label string) bool {
	return strings.HasPrefix(label, "src:") || strings.HasPrefix(label, "dir:")
}

// HasPrivileged reports whether any privileged guard is registered.
func (r *Registry) HasPrivileged() bool { return r.priv[0]+r.priv[1] > 0 }

// HasPrivilegedIn reports whether a privileged guard runs in phase: only
// such a guard can override a policy label-flow denial (SPEC §5.15).
func (r *Registry) HasPrivilegedIn(phase Timing) bool { return r.priv[phaseIndex(phase)] > 0 }
