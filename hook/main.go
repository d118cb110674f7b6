package hook

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/guardrun/guardrun/internal/cliflags"
	"github.com/guardrun/guardrun/interp/code"
)

const usage = `usage: guardrun hook claude|codex|gemini|cursor|generic [--policy FILE] [--deadline D] [--max-input BYTES] [--unattended] [--confine]
   or: guardrun-hook claude|codex|gemini|cursor|generic [same flags]
`

// DeadlineEnv, when set, is the hook's deadline where the command line
// gives none (--deadline wins).
const DeadlineEnv = "GUARDRUN_HOOK_DEADLINE"

// exitUsage is the status of a command line naming no agent.
const exitUsage = 2

// memoryLimit is the heap size past which a hook process collects
// garbage again.
const memoryLimit = 20 << 20

// Main is the whole hook command, `guardrun hook ARGS…` and
// `guardrun-hook ARGS…` alike: it answers the event on stdin and returns
// the exit status. Even a usage error is answered in the protocol when
// the agent is known: the host must never read a crash as "no objection".
// A policy that needs an engine this program was built without (the
// slim guardrun-hook has no JavaScript engine and no tokenizer) is
// handed, with the event, to the full guardrun (see Delegate).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun hook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	policy := fs.String("policy", "", "decide with this policy only (no discovery, no trust check)")
	def, envErr := DefaultDeadline, ""
	if v := os.Getenv(DeadlineEnv); v != "" {
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			envErr = fmt.Sprintf("%s=%q is not a duration (e.g. 10s)", DeadlineEnv, v)
		} else {
			def = d
		}
	}
	deadline := fs.Duration("deadline", def, "answer (deny) when no decision is reached within this time; keep it under the agent's hook timeout (default also from "+DeadlineEnv+")")
	maxInput := fs.Int("max-input", DefaultMaxInput, "largest event accepted on stdin, in bytes")
	confineRun := fs.Bool("confine", os.Getenv(ConfineEnv) != "0", "run the shell calls guardrun cannot see into, and every shell call after untrusted content, once allowed, under `guardrun exec` with the session's profile (claude, codex, gemini); --confine=false or "+ConfineEnv+"=0 turns it off")
	unattendedRun := fs.Bool("unattended", false, "nobody answers the agent's questions (gemini -p, claude -p, codex exec): answer an ask as a denial saying what needs approval and how to grant it (also "+UnattendedEnv+"=1)")
	var a Adapter
	if len(args) > 0 {
		a = Adapters[args[0]]
	}
	if a == nil {
		fmt.Fprintf(stderr, "guardrun hook: name the agent: %s\n", strings.Join(Names(), ", "))
		fs.Usage()
		return exitUsage
	}
	pos, ok := cliflags.ParseInterspersed(fs, args[1:])
	if !ok || len(pos) > 0 {
		return emit(a.Fail(nil, "bad hook command line: "+strings.Join(args, " ")), stdout, stderr)
	}
	if envErr != "" {
		return emit(a.Fail(nil, envErr), stdout, stderr)
	}
	if *unattendedRun || unattendedFromEnv() {
		a = Unattended(a)
	} else if ok, flag := headlessHost(args[0]); ok {
		a = unattendedBecause(a, args[0]+" "+strings.TrimPrefix(flag, args[0]+" "))
	}
	// A hook process lives for one event: collecting garbage it will
	// never reuse is wasted start-up time. The soft limit keeps a large
	// event or policy from growing the heap unbounded.
	debug.SetGCPercent(-1)
	hugeHeap()
	debug.SetMemoryLimit(memoryLimit)
	// The policy's memory budget counts the whole heap of this
	// one-decision process, not its growth: the same limit, without a
	// first heap reading at start.
	code.SetHeapFromZero(true)
	// One decision is one goroutine's work (plus its deadline timer):
	// more Ps only start threads for the runtime to hand it between.
	// Async preemption still lets the deadline fire over a looping guard.
	// (guardrun-hook has one P already, from before its package inits:
	// internal/oneproc; this call is for `guardrun hook`.)
	runtime.GOMAXPROCS(1)
	// Policies are parsed once per content, not once per call (run
	// loads them through a Gate in front of the cache).
	astCache = NewASTCache()
	return emit(Run(Options{Adapter: a, Stdin: stdin, Policy: *policy, Deadline: *deadline, MaxInput: *maxInput,
		Delegate: Delegate(args), Confine: *confineRun}), stdout, stderr)
}

func emit(a Answer, stdout, stderr io.Writer) int {
	stdout.Write(a.Stdout)
	io.WriteString(stderr, a.Stderr)
	return a.Code
}
