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
// the nearest workspace policy up to the repository root, which runs only
// when its exact content (and that of its imports) was approved with
// `guardrun trust` (TrustStore).
package hook
