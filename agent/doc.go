// Package agent is guardrun's agent engine (AGENT.md): it decides the
// lifecycle events of an AI agent session (tool calls, prompts, stops) with
// guard scripts, and remembers across events what the session has seen.
//
// It owns the normalized events, tool collections and the mapping of an
// event to a guarded operation, the session store (context taint, content
// fingerprints, tool calls, approvals, retry counts), approvals, and the
// decision log. It decides through the facade, as an embedder would:
// guardrun.Program.Load gives a Machine whose top level ran once, and an
// operation and its verdict are the facade's Operation, OperationContext,
// ToolCall, Verdict and Action. It must not import interp, interp/guard
// or interp/hooks (TestClientsUseOnlyTheFacade); it builds the values it
// hands guards (@mx.session, tool inputs) with interp/value and analyses
// command lines with interp/policy. Neither imports this package. It must not import the JavaScript engine (js) or
// the tokenizer (tokens): guardrun-hook links agent and stays without
// them; programs that want them import them (New then reports a policy
// needing a missing one with guardrun.ErrNotLinked).
//
// One Engine loads one or more policy files once and decides many events
// from many goroutines. Decisions of different sessions run in parallel:
// each policy is a prepared program (guardrun.Machine) whose decisions
// each run in an evaluation of their own. Events of one session are
// serialized by the store's session lock, so concurrent hook processes of
// one session never lose an update.
package agent
