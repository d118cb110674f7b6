// Command guardrun runs guardrun scripts and the mlld conformance corpus.
//
//	guardrun [--json] [--dir DIR] [--timeout D] [--command-timeout D] [--no-code] FILE
//	guardrun conform [--manifest FILE] [--filter SUBSTR] [-v] [--fail-under PCT]
//	                 [--jobs N] [--timeout D] CASES_DIR
//	guardrun hook claude|codex|gemini|cursor|generic [--policy FILE] [--deadline D]
//	guardrun trust [FILE] | --user | --list | --revoke [FILE] | --revoke --user
//
// `guardrun hook` is an agent's hook command: one event on stdin, the
// decision on stdout in the agent's protocol (package hook); `guardrun
// trust` approves a workspace policy for it, and `guardrun trust --user`
// pins the user's own policy after a change (`guardrun init` pins the
// starter policy it writes).
//
// Running a script streams its document to stdout as it is produced, with
// `output … to stdout` effects in between in script order, and its stderr
// effects (logs, guard warnings) to stderr. File access is confined to the
// base directory (--dir, default the script's directory). A failing script
// prints the error with its source line, a caret and a hint to stderr and
// exits 1; a usage error exits 2. With --json, one JSON object
// {"document","stdout","stderr","error"} is printed instead.
//
// The command only wires flags to the guardrun and conformance packages.
package main
