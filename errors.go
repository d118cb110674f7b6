package guardrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
)

// Error is every failure a script can cause, in one shape for embedders,
// the CLI and the conformance runner.
type Error struct {
	// Name classifies the error: one of the …Name constants
	// (ParseErrorName, VariableErrorName, GuardErrorName, …), or
	// InternalErrorName for a recovered panic.
	Name    string
	Message string
	Pos     ast.Pos
	// Hint says what the script's author can do about the error.
	Hint string
	// SourceLine is the text of the line Pos points into, when known.
	SourceLine string

	// Guard fields describe a guard denial; they are empty for other errors.
	GuardName        string
	Filter           string
	Reason           string
	Operation        string
	OperationSubtype string
	Timing           string
	OutputPreview    string
	// Decision is the refusal's action (Deny, Retry, Ask; Abort for a
	// failed hook) when the error is one (Denial is set); Allow, the
	// zero value, on every other error.
	Decision  Action
	RetryHint string

	// Policy fields describe a policy denial: the policies responsible
	// ("p", "p, base") and the rule that decided
	// ("defaults.rules.no-secret-exfil", "capabilities.deny.cmd").
	Policy string
	Rule   string

	// Denial describes the refusal, in the shape agent decisions share,
	// when the error is one: a guard's deny or unanswered retry
	// (GuardErrorName), a policy's (PolicyErrorName), an embedder hook's
	// (OperationDeniedName), or a guard that failed while deciding
	// (GuardFailureName, class ClassError). Nil for every other error.
	Denial *Denial

	// Findings are the check's errors of a CheckError (WithStrictCheck),
	// in source order; the error is positioned at the first.
	Findings []check.Finding

	cause error
	// internal marks a recovered panic: a guardrun bug, never the script's
	// fault. The fuzz target and the fixture tests fail on it.
	internal bool
}

// InternalErrorName is the Name of an Error that reports a recovered panic.
const InternalErrorName = "InternalError"

// The Names of the errors a script can cause (Error.Name), so that an
// embedder compares against a constant, not a string it copied.
const (
	// ParseErrorName: the script does not parse.
	ParseErrorName = "ParseError"
	// CheckErrorName: WithStrictCheck found mistakes (Error.Findings).
	CheckErrorName = "CheckError"
	// UsageErrorName: the embedder called the API wrongly (an unknown
	// mode, an invalid per-call variable or Go function).
	UsageErrorName = "UsageError"
	// IOErrorName: the script file could not be read.
	IOErrorName = "IOError"

	VariableErrorName         = string(interp.KindVariable)     // unknown or redefined variable
	CallErrorName             = string(interp.KindCall)         // wrong arguments, calling a non-exe, recursion
	FunctionErrorName         = string(interp.KindFunction)     // a Go function (WithFunctions) failed or panicked
	BailErrorName             = string(interp.KindBail)         // the script stopped itself with bail
	CodeErrorName             = string(interp.KindCode)         // a JavaScript exception
	CommandErrorName          = string(interp.KindCommand)      // a command failed, timed out, said too much
	PipelineErrorName         = string(interp.KindPipeline)     // retry limits, stage failures
	ImportErrorName           = string(interp.KindImport)       // a module that does not load, a missing export
	TypeErrorName             = string(interp.KindType)         // an operator or method on the wrong kind of value
	FileErrorName             = string(interp.KindFile)         // a path outside the base directory, a missing file
	EffectErrorName           = string(interp.KindEffect)       // output/append could not write
	InterruptErrorName        = string(interp.KindInterrupt)    // the context was cancelled or its deadline passed
	LimitErrorName            = string(interp.KindLimit)        // past the memory budget
	InterpreterErrorName      = string(interp.KindUnexpected)   // anything else the evaluator reports
	UnenforcedPolicyErrorName = string(interp.KindUnenforced)   // a guard or policy this version cannot enforce
	LabelErrorName            = string(interp.KindLabel)        // a label change the script may not make
	PolicyConfigErrorName     = string(interp.KindPolicyConfig) // a malformed policy
	HookErrorName             = string(interp.KindHook)         // a hook directive failed

	// The denials: Error.Denial describes them.

	// GuardErrorName: a guard denied the operation (or asked for a retry
	// no runner took).
	GuardErrorName = string(interp.KindGuard)
	// GuardFailureName: a guard raised an error while deciding; the
	// operation was denied, fail closed. The error is positioned where
	// the guard failed and unwraps to that failure.
	GuardFailureName = string(interp.KindGuardFailed)
	// PolicyErrorName: a policy's label-flow or capability rule denied
	// the operation.
	PolicyErrorName = string(interp.KindPolicy)
	// OperationDeniedName: an embedder's pre-hook (WithHooks) stopped the
	// operation.
	OperationDeniedName = string(interp.KindDenied)
)

// Internal reports whether the error is a recovered panic, in the parser,
// the evaluator or the facade itself: a bug in guardrun rather than a
// mistake in the script. Unwrap leads to the panic value and stack.
func (e *Error) Internal() bool { return e != nil && e.internal }

// Error renders "file:line:col: message".
func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		if e.Pos.File == "" {
			return e.Message
		}
		return e.Pos.File + ": " + e.Message
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Message)
}

// Unwrap returns the parser or evaluator error this one was made from.
func (e *Error) Unwrap() error { return e.cause }

// Render gives the terminal form: the position and message, the offending
// source line with a caret under the column, and the hint.
func (e *Error) Render() string { return e.render(false) }

// RenderLine gives the same parts on one line, for surfaces that show a
// single line (a hook's reason to the agent host):
// `file:line:col: message — near "offending text"; hint: …`.
func (e *Error) RenderLine() string { return e.render(true) }

// nearWidth bounds the offending text quoted by RenderLine, in runes.
const nearWidth = 60

func (e *Error) render(compact bool) string {
	var b strings.Builder
	b.WriteString(e.Error())
	if !compact {
		b.WriteByte('\n')
	}
	if e.SourceLine != "" && e.Pos.Line > 0 {
		line := strings.TrimRight(e.SourceLine, "\r\n")
		if compact {
			if near := nearText(line, e.Pos.Col); near != "" {
				b.WriteString(" — near ")
				b.WriteString(strconv.Quote(near))
			}
		} else {
			b.WriteString("    ")
			b.WriteString(line)
			b.WriteString("\n    ")
			b.WriteString(caretPad(line, e.Pos.Col))
			b.WriteString("^\n")
		}
	}
	if e.Hint != "" {
		if compact {
			b.WriteString("; hint: ")
			b.WriteString(strings.Join(strings.Fields(e.Hint), " "))
		} else {
			b.WriteString("hint: ")
			b.WriteString(e.Hint)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// nearText is the offending line without its indentation, at most
// nearWidth runes from a little before column col, marked with "…" where
// it was shortened.
func nearText(line string, col int) string {
	r := []rune(line)
	start := 0
	for start < len(r) && (r[start] == ' ' || r[start] == '\t') {
		start++
	}
	end := len(r)
	for end > start && (r[end-1] == ' ' || r[end-1] == '\t') {
		end--
	}
	if start >= end {
		return ""
	}
	pre, post := "", ""
	if end-start > nearWidth {
		from := col - 1 - nearWidth/4
		if from > start {
			start, pre = from, "…"
		}
		if end-start > nearWidth {
			end, post = start+nearWidth, "…"
		}
	}
	return pre + string(r[start:end]) + post
}

// caretPad returns the padding that puts a caret under 1-based column col,
// keeping tabs so the caret lines up however the terminal renders them.
func caretPad(line string, col int) string {
	var b strings.Builder
	i := 1
	for _, r := range line {
		if i >= col {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		i++
	}
	for ; i < col; i++ {
		b.WriteByte(' ')
	}
	return b.String()
}

// source is what newError needs to quote the offending line.
type source struct {
	name string
	src  []byte
	dir  string
}

// newError converts a parser or evaluator error into an *Error.
func newError(err error, s source) *Error {
	var ge *Error
	if errors.As(err, &ge) {
		return ge
	}
	e := &Error{cause: err}
	var ie *interp.Error
	var pe *grammar.Error
	switch {
	case errors.As(err, &ie):
		e.Name = string(ie.Kind)
		e.Message = ie.Message
		e.Pos = ie.Pos
		e.Hint = ie.Hint
		if e.Name == "" {
			e.Name = string(interp.KindUnexpected)
		}
	case errors.As(err, &pe):
		e.Name = ParseErrorName
		e.Message = pe.Message
		e.Pos = pe.Pos
		e.Hint = pe.Hint
	case errors.Is(err, context.DeadlineExceeded):
		e.Name = string(interp.KindInterrupt)
		e.Message = "run timed out"
		e.Hint = "the script took longer than its deadline; look for long-running commands or loops"
	case errors.Is(err, context.Canceled):
		e.Name = string(interp.KindInterrupt)
		e.Message = "run cancelled"
	default:
		e.Name = string(interp.KindUnexpected)
		e.Message = err.Error()
	}
	if e.Message == "" {
		e.Message = err.Error()
	}
	var gerr *guard.Error
	var pd *policy.Denial
	var hd *interp.HookDenial
	switch {
	case errors.As(err, &gerr) && gerr.Policy != nil:
		pd = gerr.Policy
	case errors.As(err, &pd):
		gerr = nil
	}
	if pd == nil && gerr == nil {
		errors.As(err, &hd)
	}
	switch {
	case pd != nil:
		e.Name = string(interp.KindPolicy)
		e.Reason = pd.Reason
		e.Policy = strings.Join(pd.Policies, ", ")
		e.Rule = pd.Rule
		e.Decision = Deny
		if gerr != nil && gerr.Op != nil {
			e.Operation = gerr.Op.Type
			e.OperationSubtype = gerr.Op.Subtype
			e.Timing = gerr.Timing.String()
		}
		e.Denial = policyDenial(pd)
	case gerr != nil:
		e.Name = string(interp.KindGuard)
		if gerr.Failed {
			e.Name = string(interp.KindGuardFailed)
		}
		e.GuardName = gerr.GuardName()
		e.Filter = gerr.Filter()
		e.Reason = gerr.Reason
		if gerr.Op != nil {
			e.Operation = gerr.Op.Type
			e.OperationSubtype = gerr.Op.Subtype
		}
		e.Timing = gerr.Timing.String()
		e.OutputPreview = gerr.OutputPreview
		e.Decision = gerr.Decision
		e.RetryHint = gerr.RetryHint
		e.Denial = guardDenial(gerr)
	case hd != nil:
		e.Reason = hd.Reason
		e.Decision = Deny
		e.Denial = &Denial{Action: Deny, Class: ClassHook, Hook: hd.Hook, Reason: hd.Reason, Hint: hd.Hint,
			Labels: hd.Labels, Retryable: hd.Action == hooks.Retry || hd.Retryable}
		if hd.Action == hooks.Retry {
			e.Denial.Action = Retry
		}
		if hd.Action == hooks.Abort {
			e.Denial.Class = ClassError
		}
	}
	if e.Pos.File == "" && e.Pos.Line == 0 {
		e.Pos.File = s.name
	}
	if value, stack, ok := recoveredPanic(err); ok {
		// Keep the position the parser or evaluator knew (the directive it
		// was on); everything else takes the one internal-error shape.
		pos := e.Pos
		e = internalError(pos.File, value, stack, err)
		e.Pos = pos
	}
	e.SourceLine = sourceLine(e.Pos, s)
	return e
}

// policyDenial describes a policy's refusal.
func policyDenial(pd *policy.Denial) *Denial {
	d := &Denial{Action: Deny, Class: ClassPolicy, Rule: pd.Rule, Policy: strings.Join(pd.Policies, ", "), Reason: pd.Reason}
	if pd.Capability {
		d.Class = ClassCapability
	}
	if pd.Label != "" {
		d.Labels = []string{pd.Label}
	} else {
		d.Labels = slices.Clone(pd.Inputs)
	}
	return d
}

// guardDenial describes a guard's refusal, or its failure.
func guardDenial(ge *guard.Error) *Denial {
	d := &Denial{Action: Deny, Class: ClassGuard, Reason: ge.Reason, Labels: ge.Labels, Retryable: true}
	if ge.Guard != nil {
		d.Guard = ge.Guard.Label()
		if ge.Guard.Kind == guard.Data && slices.Contains(ge.Labels, ge.Guard.Value) {
			// A data guard fires on its label.
			d.Labels = []string{ge.Guard.Value}
		}
	}
	switch ge.Decision {
	case guard.Retry:
		d.Action, d.Hint = Retry, ge.RetryHint
	case guard.Ask:
		d.Action = Ask
	}
	if ge.Failed {
		d.Class, d.Retryable = ClassError, false
	}
	return d
}

// recoveredPanic finds a panic recovered by the parser or the evaluator
// behind err, which may be wrapped in their positioned errors (or, for an
// imported module, in both).
func recoveredPanic(err error) (value any, stack []byte, ok bool) {
	var ge *grammar.InternalError
	if errors.As(err, &ge) {
		return ge.Value, ge.Stack, true
	}
	var ie *interp.PanicError
	if errors.As(err, &ie) {
		return ie.Value, ie.Stack, true
	}
	return nil, nil, false
}

// sourceLine finds the text of pos's line: in the compiled source when pos
// is in the main script, otherwise in the module file on disk.
func sourceLine(pos ast.Pos, s source) string {
	if pos.Line <= 0 {
		return ""
	}
	src := s.src
	if pos.File != "" && pos.File != s.name {
		src = readModule(pos.File, s.dir)
	}
	return nthLine(src, pos.Line)
}

func readModule(file, dir string) []byte {
	if b, err := os.ReadFile(file); err == nil {
		return b
	}
	if dir != "" && !filepath.IsAbs(file) {
		if b, err := os.ReadFile(filepath.Join(dir, file)); err == nil {
			return b
		}
	}
	return nil
}

func nthLine(src []byte, n int) string {
	for i := 1; len(src) > 0; i++ {
		line := src
		rest := []byte(nil)
		if j := bytes.IndexByte(src, '\n'); j >= 0 {
			line, rest = src[:j], src[j+1:]
		}
		if i == n {
			return strings.TrimRight(string(line), "\r")
		}
		src = rest
	}
	return ""
}

// ErrNotLinked is wrapped by the error for a script that needs an engine
// the program was built without: the JavaScript engine (import _
// "github.com/guardrun/guardrun/js") or the token counter (import _
// "github.com/guardrun/guardrun/tokens"). Compile and Load report it
// before anything runs; test for it with errors.Is.
var ErrNotLinked = code.ErrNotLinked
