// Command guardrun runs guardrun scripts and the mlld conformance corpus.
//
//	guardrun [--json] [--timeout D] [--no-code] FILE
//	guardrun conform [--manifest FILE] [--filter SUBSTR] [-v] [--fail-under PCT]
//	                 [--jobs N] [--timeout D] CASES_DIR
//
// Running a script prints its document to stdout when it ends, and streams
// its stderr effects (logs, guard warnings) to stderr. The script's stdout
// stream (which repeats every `show`) is only printed with --json. A failing script prints the error with
// its source line and a hint to stderr and exits 1; a usage error exits 2.
// With --json, one JSON object {"document","stdout","stderr","error"} is
// printed instead.
//
// The command only wires flags to the guardrun and conformance packages.
package main
