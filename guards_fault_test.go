package guardrun_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/interp/hooks"
)

// faultSecret is the guarded value. It is distinctive so that finding it
// anywhere in the run's output means the data got through.
const faultSecret = "sk-FAULT-123"

// faultOp is one guarded operation on the secret. kind is its op:X filter
// (the operation key an op guard would use for it).
type faultOp struct {
	name string
	kind string
	line string
}

// faultOps are the operations every fault is tried against: each must be
// denied, so nothing reaches the document, stdout, stderr or a file.
var faultOps = []faultOp{
	{"show", "show", "show @k"},
	{"output", "output", `output @k to "out.txt"`},
	{"append", "append", `append @k to "a.txt"`},
	{"log", "log", "log @k"},
	{"run", "run", "run cmd {echo @k}"},
	{"exe-call", "exe", "show @f(@k)"},
	{"var", "var", "var @x = @k\nshow @x"},
}

// guardFault is a way a guard can break while it decides. rule is the
// guard's first rule; the guard always ends with `* => allow`, so an engine
// that swallowed the error (treated the condition as false, or skipped the
// guard) would let the secret through and the test would see it.
type guardFault struct {
	name string
	// setup is script text placed before the guard: helper exes it calls.
	setup string
	rule  string
	// errText is part of the underlying error, which the deny reason must
	// carry after "guard @g failed: ".
	errText string
	opts    []guardrun.RunOption
	// slow marks faults whose helper would take 5 s if the limit did not
	// stop it: the denial must come well before that.
	slow bool
}

var guardFaults = []guardFault{
	{
		name:    "unknown-method-on-input",
		rule:    `@input.nosuchmethod() == "bad" => deny "bad input"`,
		errText: "nosuchmethod",
	},
	{
		name:    "call-non-executable",
		setup:   `var @notfn = "plain string"`,
		rule:    `@notfn(@input) => deny "bad input"`,
		errText: "not executable",
	},
	{
		name:    "undefined-variable-as-argument",
		setup:   "exe @check(v) = `ok`",
		rule:    `@check(@nosuchvar) == "bad" => deny "bad input"`,
		errText: "nosuchvar",
	},
	{
		name:    "helper-command-fails",
		setup:   "exe @check(v) = cmd {exit 3}",
		rule:    `@check(@input) == "bad" => deny "bad input"`,
		errText: "exit code 3",
	},
	{
		name:    "helper-js-throws",
		setup:   `exe @check(v) = js { throw new Error("boom") }`,
		rule:    `@check(@input) == "bad" => deny "bad input"`,
		errText: "boom",
	},
	{
		name:    "helper-command-times-out",
		setup:   "exe @check(v) = cmd {sleep 5}",
		rule:    `@check(@input) == "bad" => deny "bad input"`,
		errText: "timed out",
		opts:    []guardrun.RunOption{guardrun.WithCommandTimeout(300 * time.Millisecond)},
		slow:    true,
	},
	{
		name:    "helper-js-times-out",
		setup:   "exe @check(v) = js { while (true) {} }",
		rule:    `@check(@input) == "bad" => deny "bad input"`,
		errText: "timed out",
		opts:    []guardrun.RunOption{guardrun.WithCommandTimeout(300 * time.Millisecond)},
		slow:    true,
	},
	{
		// A decision whose value cannot be computed: the allow is never
		// reached with a value, so the operation must not run at all
		// (neither with the original input nor with nothing).
		name:    "allow-value-errors",
		rule:    `* => allow @input.nosuchmethod()`,
		errText: "nosuchmethod",
	},
}

// faultScript builds the script for one fault, filter and operation. The
// secret, the exe @f and the helpers are defined before the guard, so the
// guard (registered when its directive runs) sees only op; "before" is
// shown first so the test can tell the run got as far as the operation.
// It returns the script and op's first line number.
func faultScript(setup, guard string, op faultOp) (string, int) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "var secret @k = %q\n", faultSecret)
	sb.WriteString("exe @f(v) = `f:@v`\n")
	if setup != "" {
		sb.WriteString(setup + "\n")
	}
	sb.WriteString("show \"before\"\n")
	if guard != "" {
		sb.WriteString(guard + "\n")
	}
	line := strings.Count(sb.String(), "\n") + 1
	sb.WriteString(op.line + "\n")
	sb.WriteString("show \"REACHED\"\n")
	return sb.String(), line
}

// faultRun is what one faulted run left behind.
type faultRun struct {
	res     *guardrun.Result
	err     *guardrun.Error
	dir     string
	elapsed time.Duration
}

// runFault compiles and runs script in a fresh directory and checks what
// every fault must satisfy: the run fails with a *guardrun.Error that is
// not an internal error; the document holds only the text shown before
// the operation; the secret appears in no output stream and in no error
// text; the directory is still empty (no out.txt, no a.txt).
func runFault(t *testing.T, script string, opts ...guardrun.RunOption) faultRun {
	t.Helper()
	prg, err := guardrun.Compile("fault.mld", []byte(script))
	require.NoError(t, err, "script:\n%s", script)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	res, err := prg.Run(ctx, append([]guardrun.RunOption{guardrun.WithDir(dir)}, opts...)...)
	elapsed := time.Since(start)
	require.Error(t, err, "the operation ran although its guard failed\nscript:\n%s\ndocument: %q", script, res.Document)
	var ge *guardrun.Error
	require.True(t, errors.As(err, &ge), "error %T is not a *guardrun.Error", err)
	require.False(t, ge.Internal(), "a guard fault must be denied, not crash the interpreter: %v", ge)
	require.Equal(t, "before\n", res.Document, "script:\n%s", script)
	for name, out := range map[string]string{
		"document": res.Document, "stdout": res.Stdout, "stderr": res.Stderr,
		"error": ge.Error(), "rendered error": ge.Render(), "reason": ge.Reason,
		"output preview": ge.OutputPreview,
	} {
		require.NotContains(t, out, faultSecret, "the secret leaked into the %s", name)
		require.NotContains(t, out, "REACHED", "the script went on after the denied operation (%s)", name)
	}
	entries, rerr := os.ReadDir(dir)
	require.NoError(t, rerr)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Empty(t, names, "the denied operation wrote files")
	return faultRun{res: res, err: ge, dir: dir, elapsed: elapsed}
}

// TestGuardFaultsFailClosed injects faults into a guard (a runtime error in
// its condition, a failing, throwing or hanging helper exe, a decision
// value that cannot be computed) and checks, for every guarded operation
// kind and for both a data-label guard and an op:X guard, that the
// operation is denied with a GuardFailure (not a GuardError: no guard
// refused the data) whose reason names the guard and the error, and that
// nothing was shown or written.
func TestGuardFaultsFailClosed(t *testing.T) {
	for _, f := range guardFaults {
		for _, op := range faultOps {
			for _, filter := range []string{"secret", "op:" + op.kind} {
				name := fmt.Sprintf("%s/%s/%s", f.name, op.name, strings.ReplaceAll(filter, ":", "-"))
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					guard := fmt.Sprintf("guard @g before %s = when [ %s * => allow ]", filter, f.rule)
					script, _ := faultScript(f.setup, guard, op)
					r := runFault(t, script, f.opts...)
					ge := r.err
					// A guard that breaks is not a guard that refused:
					// its own name, class error, not retryable.
					require.Equal(t, guardrun.GuardFailureName, ge.Name, "error: %s", ge.Render())
					require.Equal(t, guardrun.Deny, ge.Decision)
					require.Equal(t, "@g", ge.GuardName)
					require.NotNil(t, ge.Denial)
					require.Equal(t, guardrun.ClassError, ge.Denial.Class)
					require.Equal(t, "@g", ge.Denial.Guard)
					require.False(t, ge.Denial.Retryable)
					require.NotContains(t, ge.Hint, "refused this operation")
					require.NotNil(t, errors.Unwrap(ge), "a guard failure unwraps to its cause")
					require.True(t, strings.HasPrefix(ge.Reason, "guard @g failed: "), "reason %q", ge.Reason)
					require.Contains(t, ge.Reason, f.errText)
					require.Contains(t, ge.Message, "guard @g failed:")
					require.Greater(t, ge.Pos.Line, 0, "a guard failure must be positioned")
					if f.slow {
						require.Less(t, r.elapsed, 3*time.Second, "the timeout did not stop the helper")
					}
				})
			}
		}
	}
}

// TestUnnamedGuardFaultNamesFilter: an unnamed guard's failure reason
// names its filter instead (`guard <filter> failed: …`).
func TestUnnamedGuardFaultNamesFilter(t *testing.T) {
	script, _ := faultScript("exe @check(v) = cmd {exit 3}",
		`guard before secret = when [ @check(@input) == "bad" => deny "bad input" * => allow ]`, faultOps[0])
	ge := runFault(t, script).err
	require.Equal(t, guardrun.GuardFailureName, ge.Name, "error: %s", ge.Render())
	require.Equal(t, guardrun.Deny, ge.Decision)
	require.Equal(t, "data:secret", ge.Filter)
	require.Regexp(t, regexp.MustCompile(`^guard (data:)?secret failed: .*exit code 3`), ge.Reason)
}

// TestHostHookPanicFailsClosed: an embedder's pre-hook that panics on the
// guarded operation denies it, for every operation kind; the panic is
// reported as a denial naming the hook, not as an interpreter crash, and
// nothing is shown or written.
func TestHostHookPanicFailsClosed(t *testing.T) {
	for _, op := range faultOps {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			script, line := faultScript("", "", op)
			fired := false
			r := runFault(t, script, guardrun.WithHooks(func(m *hooks.Manager) {
				m.RegisterPre("host-panic", func(c *hooks.Call) (hooks.Decision, error) {
					// Panic only at the operation under test: earlier
					// lines (the secret's own declaration) must run.
					if c.Op.Location.Line != line {
						return hooks.Decision{}, nil
					}
					fired = true
					panic("host boom")
				})
			}))
			require.True(t, fired, "the hook never saw the operation on line %d", line)
			require.Equal(t, "OperationDenied", r.err.Name, "error: %s", r.err.Render())
			require.Contains(t, r.err.Message, "hook host-panic failed")
			require.Contains(t, r.err.Message, "host boom")
			require.Equal(t, line, r.err.Pos.Line)
		})
	}
}

// TestMalformedGuardDecisionIsParseError: decisions whose shape is wrong
// (a deny without a quoted reason, a retry without a hint) cannot reach
// run time; Compile rejects them with a positioned error on the guard.
func TestMalformedGuardDecisionIsParseError(t *testing.T) {
	for _, tc := range []struct {
		name, action, msg string
	}{
		{"deny-number", `deny 42`, `deny "reason"`},
		{"deny-variable", `deny @k`, `deny "reason"`},
		{"deny-bare", `deny`, `deny "reason"`},
		{"retry-bare", `retry`, `retry "hint"`},
		{"retry-number", `retry 42`, `retry "hint"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("var secret @k = %q\nguard @g before secret = when [ * => %s ]\nshow @k\n", faultSecret, tc.action)
			_, err := guardrun.Compile("malformed.mld", []byte(src))
			require.Error(t, err, "a malformed decision compiled:\n%s", src)
			var ge *guardrun.Error
			require.True(t, errors.As(err, &ge))
			require.Equal(t, "ParseError", ge.Name)
			require.Equal(t, 2, ge.Pos.Line)
			require.Greater(t, ge.Pos.Col, 0)
			require.Contains(t, ge.Message, tc.msg)
			require.NotEmpty(t, ge.Hint)
		})
	}
}
