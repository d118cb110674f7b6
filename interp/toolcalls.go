package interp

import "github.com/guardrun/guardrun/interp/value"

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

// toolsMx is `@mx.tools`.
func (in *interp) toolsMx() any {
	if in.mxTools != nil {
		return in.mxTools
	}
	o := value.NewObject()
	calls := make([]any, len(in.toolCalls))
	for i, c := range in.toolCalls {
		calls[i] = c
	}
	o.Set("calls", calls)
	o.Set("allowed", []any{})
	o.Set("denied", []any{})
	return o
}
