package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/hook"
)

const hookUsage = `usage: guardrun hook claude|codex|gemini|cursor|generic [--policy FILE] [--deadline D] [--max-input BYTES]
`

// runHook answers one agent hook event read on stdin (package hook).
// Even a usage error is answered in the protocol when the agent is known:
// the host must never read a crash as "no objection".
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun hook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, hookUsage); fs.PrintDefaults() }
	policy := fs.String("policy", "", "decide with this policy only (no discovery, no trust check)")
	deadline := fs.Duration("deadline", hook.DefaultDeadline, "answer (deny) when no decision is reached within this time; keep it under the agent's hook timeout")
	maxInput := fs.Int("max-input", hook.DefaultMaxInput, "largest event accepted on stdin, in bytes")
	var a hook.Adapter
	if len(args) > 0 {
		a = hook.Adapters[args[0]]
	}
	if a == nil {
		fmt.Fprintf(stderr, "guardrun hook: name the agent: %s\n", strings.Join(hook.Names(), ", "))
		fs.Usage()
		return exitUsage
	}
	pos, ok := parseInterspersed(fs, args[1:])
	if !ok || len(pos) > 0 {
		return emit(a.Fail(nil, "bad hook command line: "+strings.Join(args, " ")), stdout, stderr)
	}
	// A hook process lives for one event: collecting garbage it will
	// never reuse is wasted start-up time. The soft limit keeps a large
	// event or policy from growing the heap unbounded.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(hookMemoryLimit)
	// Policies are parsed once per content, not once per call.
	if c := hook.NewASTCache(); c != nil {
		guardrun.SetParseCache(c)
	}
	return emit(hook.Run(hook.Options{Adapter: a, Stdin: stdin, Policy: *policy, Deadline: *deadline, MaxInput: *maxInput}), stdout, stderr)
}

func emit(a hook.Answer, stdout, stderr io.Writer) int {
	stdout.Write(a.Stdout)
	io.WriteString(stderr, a.Stderr)
	return a.Code
}

// hookMemoryLimit is the heap size past which a hook process collects
// garbage again.
const hookMemoryLimit = 20 << 20

// stdinReader is the process's stdin (tests drive runHook directly).
var stdinReader io.Reader = os.Stdin
