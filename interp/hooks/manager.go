package hooks

import (
	"fmt"
	"sort"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// Call is one hooked operation as hooks see it.
type Call struct {
	// Node is the syntax node of the operation (an ast directive, or the
	// exe's invocation); nil for an operation from outside the script (a
	// Machine's decision).
	Node ast.Node
	// Inputs are the values flowing into the operation, extracted per
	// directive kind (SPEC §5.5).
	Inputs []*value.Variable
	// Env is the interpreter's environment at the operation, opaque to this
	// package: hooks that evaluate script code get it back from here.
	Env Env
	// Op describes the operation.
	Op *OperationContext
	// Guards are the call's guard settings (the operation's `with {
	// guards }` override, the retry attempt, who records the decision),
	// opaque to this package; nil for the defaults.
	Guards GuardSettings
	// Tainted, when it is the result the post-hooks receive, already
	// carries the descriptor the interpreter's taint post-hook would give
	// it: the operation computed it while the value was still its own (an
	// exe's template result), and the hook can keep the value as it is.
	Tainted *value.Variable
}

// Env is the interpreter's environment at an operation. Only the
// interpreter implements it; this package passes it through.
type Env interface{ HooksEnv() }

// GuardSettings are the guard settings of one call. Only the interpreter
// implements them; this package passes them through.
type GuardSettings interface{ HooksGuardSettings() }

// PreHook inspects an operation before it runs. An error is treated as an
// Abort: a hook that cannot decide never lets the operation through.
type PreHook func(c *Call) (Decision, error)

// PostHook sees an operation's result and returns the result to use (the
// same value or a transformed one).
type PostHook func(c *Call, result *value.Variable) (*value.Variable, error)

type preEntry struct {
	name string
	fn   PreHook
	// exclusive skips the hook for operations caused while a hook runs.
	exclusive bool
	// open hooks are exclusive, but do not count as running: the
	// operations they cause see every hook, the exclusive ones included.
	open bool
}

type postEntry struct {
	name      string
	fn        PostHook
	exclusive bool
	open      bool
}

// Manager runs the registered hooks around hooked operations. One Manager
// belongs to one evaluation (a run, or one decision of a Machine); it is
// not safe for concurrent use.
//
// Rules (the contract of mlld's evaluation hooks):
//   - pre-hooks run in registration order; the first decision other than
//     Continue stops the chain and is returned;
//   - post-hooks all run in registration order, each receiving the result
//     of the one before;
//   - hooks see every operation, those caused while a hook runs (a
//     guard's helper exe) included, so that an embedder's hook is a
//     boundary a script cannot go around;
//   - exclusive hooks (RegisterPreExclusive, RegisterPostExclusive) are
//     non-reentrant: while any hook runs, operations it causes skip them.
//     The guard hooks register this way: guards do not guard their own
//     helpers (SPEC §5.4);
//   - a hook that panics or returns an error fails closed: RunPre returns
//     an Abort decision, RunPost returns the error.
type Manager struct {
	pre  []preEntry
	post []postEntry
	// running counts hooks currently executing (nesting through operations
	// they cause).
	running int
}

// NewManager returns a Manager with no hooks.
func NewManager() *Manager { return &Manager{} }

// RegisterPre adds a pre-hook after those already registered. It sees
// every operation, those caused while a hook runs included.
func (m *Manager) RegisterPre(name string, h PreHook) {
	m.pre = append(m.pre, preEntry{name: name, fn: h})
}

// RegisterPreExclusive adds a non-reentrant pre-hook: it does not run for
// operations caused while a hook is running.
func (m *Manager) RegisterPreExclusive(name string, h PreHook) {
	m.pre = append(m.pre, preEntry{name: name, fn: h, exclusive: true})
}

// RegisterPreOpen adds a pre-hook that runs script code (the `hook`
// directive): like an exclusive hook it is skipped for operations caused
// while a hook runs, but while it runs it does not count as one, so the
// operations its code causes are guarded like any other. A hook must not
// be a way around the guards. Its own nesting is its own to stop.
func (m *Manager) RegisterPreOpen(name string, h PreHook) {
	m.pre = append(m.pre, preEntry{name: name, fn: h, exclusive: true, open: true})
}

// RegisterPostOpen is RegisterPreOpen for a post-hook.
func (m *Manager) RegisterPostOpen(name string, h PostHook) {
	m.post = append(m.post, postEntry{name: name, fn: h, exclusive: true, open: true})
}

// RegisterPost adds a post-hook after those already registered. It sees
// every operation, those caused while a hook runs included.
func (m *Manager) RegisterPost(name string, h PostHook) {
	m.post = append(m.post, postEntry{name: name, fn: h})
}

// RegisterPostExclusive adds a non-reentrant post-hook: it does not run
// for operations caused while a hook is running.
func (m *Manager) RegisterPostExclusive(name string, h PostHook) {
	m.post = append(m.post, postEntry{name: name, fn: h, exclusive: true})
}

// RegisterPostAlways is RegisterPost; it names hooks (taint) that must
// see every operation whatever the default.
func (m *Manager) RegisterPostAlways(name string, h PostHook) {
	m.RegisterPost(name, h)
}

// Append adds other's hooks after m's, in their order and with their
// flags (an evaluation's manager takes the embedder's hooks this way).
func (m *Manager) Append(other *Manager) {
	if other == nil {
		return
	}
	m.pre = append(m.pre, other.pre...)
	m.post = append(m.post, other.post...)
}

// InHook reports whether a hook is running: operations started now skip
// the exclusive hooks (they are not guarded).
func (m *Manager) InHook() bool { return m.running > 0 }

// Running is how many hooks are executing now (nested through the
// operations they cause); inside a hook it is at least 1.
func (m *Manager) Running() int { return m.running }

// HasPre reports whether any pre-hook is registered, so that callers can
// skip building inputs nobody will read.
func (m *Manager) HasPre() bool { return len(m.pre) > 0 }

// RunPre runs the pre-hooks for c and returns the first decision that
// stops the chain, or Continue. While a hook is running the exclusive
// hooks are skipped.
func (m *Manager) RunPre(c *Call) Decision {
	nested := m.running > 0
	var transformed []*value.Variable
	for _, h := range m.pre {
		if nested && h.exclusive {
			continue
		}
		d := m.callPre(h, c)
		d.Hook = h.name
		if d.Stops() {
			return d
		}
		if d.Inputs != nil {
			// Later hooks see the transformed inputs.
			transformed = d.Inputs
			cc := *c
			cc.Inputs = d.Inputs
			c = &cc
		}
	}
	return Decision{Action: Continue, Inputs: transformed}
}

func (m *Manager) callPre(h preEntry, c *Call) (d Decision) {
	if !h.open {
		m.running++
	}
	defer func() {
		if !h.open {
			m.running--
		}
		if r := recover(); r != nil {
			d = Decision{Action: Abort, Reason: fmt.Sprintf("hook %s failed: %v", h.name, r), Err: fmt.Errorf("panic in hook %s: %v", h.name, r)}
		}
	}()
	d, err := h.fn(c)
	if err != nil {
		return Decision{Action: Abort, Reason: fmt.Sprintf("hook %s failed: %v", h.name, err), Err: err}
	}
	return d
}

// RunPost runs the post-hooks over result in registration order and
// returns the final result. The first error stops the chain.
func (m *Manager) RunPost(c *Call, result *value.Variable) (*value.Variable, error) {
	nested := m.running > 0
	cur := result
	for _, h := range m.post {
		if nested && h.exclusive {
			continue
		}
		next, err := m.callPost(h, c, cur)
		if err != nil {
			return nil, err
		}
		if next != nil {
			cur = next
		}
	}
	return cur, nil
}

func (m *Manager) callPost(h postEntry, c *Call, cur *value.Variable) (out *value.Variable, err error) {
	if !h.open {
		m.running++
	}
	defer func() {
		if !h.open {
			m.running--
		}
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("post-hook %s failed: %v", h.name, r)
		}
	}()
	return h.fn(c, cur)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
