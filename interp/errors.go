package interp

import (
	"errors"
	"fmt"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// ErrorKind classifies a runtime error for embedders and the --json
// output's `name` field.
type ErrorKind string

// Runtime error kinds.
const (
	KindVariable   ErrorKind = "VariableError"    // unknown or redefined variable
	KindCall       ErrorKind = "CallError"        // wrong arguments, calling a non-exe, recursion
	KindCode       ErrorKind = "CodeError"        // JS exception
	KindCommand    ErrorKind = "CommandError"     // command failed, timed out, output too large
	KindPipeline   ErrorKind = "PipelineError"    // retry limits, stage failures
	KindImport     ErrorKind = "ImportError"      // module not found, missing export
	KindType       ErrorKind = "TypeError"        // operator or method on the wrong kind of value
	KindFile       ErrorKind = "FileError"        // a path outside the base directory, a missing or unreadable file
	KindEffect     ErrorKind = "EffectError"      // output/append could not write
	KindInterrupt  ErrorKind = "InterruptError"   // context cancelled or deadline exceeded
	KindLimit      ErrorKind = "LimitError"       // a value or the run grew past its memory budget
	KindUnexpected ErrorKind = "InterpreterError" // anything else
	KindFunction   ErrorKind = "FunctionError"    // a Go function the embedder registered failed or panicked
	KindBail       ErrorKind = "BailError"        // the script said bail
	// KindUnenforced: a guard or policy this version cannot enforce. The run
	// stops there instead of letting data flow past an ignored policy.
	KindUnenforced ErrorKind = "UnenforcedPolicyError"
)

// Error is a runtime error caused by the script. Pos is where it happened;
// Hint says what the author can do about it.
type Error struct {
	Kind    ErrorKind
	Pos     ast.Pos
	Message string
	Hint    string
	Err     error
}

// Error renders "file:line:col: message".
func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return e.Message
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Message)
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

func newError(kind ErrorKind, pos ast.Pos, hint, format string, args ...any) *Error {
	return &Error{Kind: kind, Pos: pos, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// atPos makes err an *Error positioned at pos unless it already is one.
func atPos(err error, kind ErrorKind, pos ast.Pos) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Pos.Line == 0 {
			e.Pos = pos
		}
		return err
	}
	return &Error{Kind: kind, Pos: pos, Message: err.Error(), Hint: hintOf(err), Err: err}
}

// valueError positions an error from a builtin method or transformer.
func valueError(err error, pos ast.Pos) error {
	kind := KindType
	var le *value.LimitError
	if errors.As(err, &le) {
		kind = KindLimit
	}
	return &Error{Kind: kind, Pos: pos, Message: err.Error(), Hint: hintOf(err), Err: err}
}

// hintOf is the hint a value rule attached to its error, if any.
func hintOf(err error) string {
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve.Hint
	}
	var le *value.LimitError
	if errors.As(err, &le) {
		return le.Hint
	}
	return ""
}

// PanicError is a panic recovered inside the interpreter. It is a bug in
// guardrun, never the script's fault; Run returns it wrapped in an *Error
// at the directive that was running, and errors.As finds it.
type PanicError struct {
	Value any
	Stack []byte
}

// Error renders the panic value.
func (e *PanicError) Error() string {
	return fmt.Sprintf("internal interpreter error: %v", e.Value)
}
