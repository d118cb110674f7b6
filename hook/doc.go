// Package hook makes guardrun an agent's hook command (AGENT.md §6–§7):
// it reads one host event on stdin, decides it with the agent engine and
// answers in the host's own protocol (Claude Code, Codex CLI, Gemini CLI,
// Cursor, or guardrun's generic `{"event","data"}`).
//
// Every failure — unreadable or oversized input, a malformed event, a
// missing, broken or unapproved policy, an engine error, the process's own
// deadline — is answered with the protocol's denial and a reason, because
// hosts let a tool call through when a hook crashes or times out. "No
// objection" is never an explicit allow where that would skip the host's
// own permission prompt (Claude Code, Codex).
//
// Policies are discovered per event (Discover): the user's policy, then
// the nearest workspace policy up to the repository root of the session's
// workspace, bound at its first event (Binding). Each runs only as pinned
// in the TrustStore — the user's by `guardrun init` or `guardrun trust
// --user`, a workspace's by `guardrun trust` — and every module the
// engine loads is checked against the pins on the bytes it parses (Gate).
//
// Main is the whole command, shared by `guardrun hook` and the slim
// guardrun-hook binary. guardrun-hook links neither the JavaScript engine
// nor the tokenizer; a policy that needs one is refused while it loads
// (guardrun.ErrNotLinked), before any decision, and the event is handed
// to the full guardrun beside it (Delegate), whose answer is passed on;
// without one the event is denied.
//
// A process that decides many events (guardrun serve, package serve)
// runs Run with a Warm: the same reading, discovery, pin checks, deciding
// and logging per event, with the engine of an unchanged approved policy
// set kept loaded, one session store and one decision log writer.
//
// hook must not import the JavaScript engine (package js) or the
// tokenizer (package tokens), directly or not: guardrun-hook imports hook
// only (TestSlimHookLinksNoEngine).
package hook
