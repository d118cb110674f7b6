// Package serve is guardrun's decision server (`guardrun serve`): one
// warm process that decides the generic protocol's events for agent
// frameworks (Python, TypeScript, anything that can write a line of JSON)
// over its stdin/stdout or a Unix socket, so an agent pays a decision
// instead of a hook process's start.
//
// It owns the wire format (one JSON request per line, the generic hook
// event plus an optional "id"; one JSON reply per line, the generic
// answer plus that "id"), the connection loop, the socket and its
// permissions, and the lock that keeps one server per state directory.
// The client mode a host that runs a hook command per event uses
// (`guardrun serve --client generic`) and the default socket path are
// package serve/client's, which the slim guardrun-hook links too.
//
// It decides nothing itself: every request goes through hook.Run with
// the generic adapter and a hook.Warm (the loaded policies, the session
// store and the one decision log writer), so a request is decided
// exactly as `guardrun-hook generic` decides the same event, and every
// failure is that protocol's denial. Of guardrun's packages serve imports
// hook, serve/client and internal/cliflags only (TestImportsOnlyHook), and
// it decodes no event beyond finding a request's id.
package serve
