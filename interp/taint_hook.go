package interp

import (
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// taintPostHook is registered by default on every run: the result of a
// hooked operation carries the union of its inputs' descriptors, the
// descriptors found inside the result, the operation's data labels (exe
// labels, declared labels) and its sources (SPEC §4.3). Operation labels
// (op:*) are never merged. It is registered to run even inside other hooks,
// so that values computed by a guard's helpers stay honest.
func taintPostHook(c *hooks.Call, res *value.Variable) (*value.Variable, error) {
	if c.Tainted != nil && c.Tainted == res {
		return res, nil
	}
	d := resultTaint(c, res, nil)
	if d.Equal(res.Security) {
		return res, nil
	}
	out := *res
	out.Security = d
	return &out, nil
}

// resultTaint is the descriptor the taint post-hook gives res; m, when not
// nil, remembers the last such merge (see preTaint).
func resultTaint(c *hooks.Call, res *value.Variable, m *taint.Memo) taint.Descriptor {
	var buf [8]taint.Descriptor
	descs := buf[:0]
	for _, in := range c.Inputs {
		if in != nil {
			descs = append(descs, in.Security)
		}
	}
	descs = append(descs, res.Security)
	if holdsNested(res.Data) {
		// Nested descriptors merge between the inputs' and the
		// operation's, so this (rare) case keeps the step-by-step form.
		d := taint.Descriptor{}.Merge(descs...)
		d = collectNested(d, res.Data, 0)
		if c.Op != nil {
			d = d.WithLabels(c.Op.Labels...).WithTaint(c.Op.Taint...).WithSources(c.Op.Sources...)
		}
		return d
	}
	// This runs after every hooked operation: Union computes the same
	// descriptor in one pass, and returns res's own when res already
	// carries it (see preTaint).
	var labels, tnt, sources []string
	if c.Op != nil {
		labels, tnt, sources = c.Op.Labels, c.Op.Taint, c.Op.Sources
	}
	if m != nil {
		return m.Union(descs, labels, tnt, sources)
	}
	return taint.Union(descs, labels, tnt, sources)
}

// preTaint gives res, a value the operation's body has just made and
// nobody else has seen, the descriptor the taint post-hook would give it.
// The hook then keeps res (c.Tainted says so), instead of merging again
// and copying res to change its descriptor. m is the exe's memo: a call
// with the same descriptors as the previous one reuses its result instead
// of merging again.
func preTaint(c *hooks.Call, res *value.Variable, m *taint.Memo) {
	res.Security = resultTaint(c, res, m)
	c.Tainted = res
}

// holdsNested reports whether collectNested could find anything in data.
func holdsNested(data any) bool {
	switch data.(type) {
	case *value.Variable, []any, *value.Object:
		return true
	}
	return false
}

// maxNestedDepth bounds the walk of nested containers: a value deeper than
// this cannot be built by a script within the parser's nesting limits.
const maxNestedDepth = 256

// collectNested merges the descriptors of any Variables held inside
// containers. The evaluator keeps element descriptors on the container, so
// this finds values an embedder or a host function put there; walking them
// keeps a label from hiding inside a structure.
func collectNested(d taint.Descriptor, data any, depth int) taint.Descriptor {
	if depth > maxNestedDepth {
		return d
	}
	switch x := data.(type) {
	case *value.Variable:
		d = d.Merge(x.Security)
		return collectNested(d, x.Data, depth+1)
	case []any:
		for _, el := range x {
			switch el.(type) {
			case *value.Variable, []any, *value.Object:
				d = collectNested(d, el, depth+1)
			}
		}
	case *value.Object:
		for _, k := range x.Keys {
			switch el := x.Values[k].(type) {
			case *value.Variable, []any, *value.Object:
				d = collectNested(d, el, depth+1)
			}
		}
	}
	return d
}
