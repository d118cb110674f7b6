package interp

import (
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// Tool-call tracking (mlld's `@mx.tools`): `@mx.tools.calls` lists the
// exes the run has called, in order, by name. One value serves both kinds
// of run: a script run records its own exe calls here, and a Machine
// deciding an agent's operation sets the session's calls instead
// (Operation.Tools, built by the agent engine from the session), which
// then win: within a decision the session is the run whose calls count.

// maxToolCalls bounds the recorded calls: a long loop keeps the most
// recent ones, so that the list cannot grow without limit.
const maxToolCalls = 10000

// recordToolCall notes a finished call of the exe name. Calls a guard's
// own helpers make are not the script's calls and are not recorded.
func (in *interp) recordToolCall(name string) {
	if name == "" || in.hooks.InHook() {
		return
	}
	if len(in.toolCalls) >= maxToolCalls {
		n := copy(in.toolCalls, in.toolCalls[len(in.toolCalls)-maxToolCalls/2:])
		in.toolCalls = in.toolCalls[:n]
	}
	in.toolCalls = append(in.toolCalls, name)
}

// maxToolLineage bounds a value's tool lineage: the most recent exes it
// came through are kept.
const maxToolLineage = 64

// withToolLineage is res as the result of a call of x: its lineage
// (`.mx.tools`, a guard's `@mx.tools.history`) ends with x's name. A name
// already in the lineage is not added again, so a value passed through
// the same exe in a loop keeps a bounded lineage and its descriptor.
// Results of a guard's own helpers are left alone. Calls in a loop
// usually repeat the same descriptor, so the last one is remembered on
// in the evaluation's state of the exe (exeState).
func (in *interp) withToolLineage(res *value.Variable, x *exe) *value.Variable {
	if res == nil || x.name == "" || in.hooks.InHook() {
		return res
	}
	var d taint.Descriptor
	xr := in.exeState(x)
	if xr.lineageOK && res.Security.Equal(xr.lineageIn) {
		d = xr.lineageOut
	} else {
		d = res.Security.WithTools(x.name)
		if t := d.Tools(); len(t) > maxToolLineage {
			d = taint.Make(d.Labels(), d.Taint(), d.Sources()).WithTools(t[len(t)-maxToolLineage:]...)
		}
		xr.lineageIn, xr.lineageOut, xr.lineageOK = res.Security, d, true
	}
	if d.Equal(res.Security) {
		return res
	}
	out := *res
	out.Security = d
	return &out
}

// toolHistory renders a lineage as mlld's entries ({ name }).
func toolHistory(tools []string) []any {
	out := make([]any, len(tools))
	for i, t := range tools {
		o := value.NewObject()
		o.Set("name", t)
		out[i] = o
	}
	return out
}

// toolsMx is `@mx.tools`.
func (in *interp) toolsMx() any {
	if in.mxTools != nil {
		return in.mxTools()
	}
	o := value.NewObject()
	calls := make([]any, len(in.toolCalls))
	for i, c := range in.toolCalls {
		calls[i] = c
	}
	o.Set("calls", calls)
	o.Set("allowed", []any{})
	o.Set("denied", []any{})
	var history []string
	if g, ok := in.mx.Guard.Top(); ok {
		history = g.Tools
	}
	o.Set("history", toolHistory(history))
	return o
}
