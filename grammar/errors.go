package grammar

import (
	"fmt"

	"github.com/guardrun/guardrun/ast"
)

// Error is a parse error: where, what was found, and what to do.
type Error struct {
	Pos     ast.Pos
	Message string
	// Found is the offending source text (may be empty at end of input).
	Found string
	Hint  string
	// Cause is the underlying error, if any: an *InternalError when the
	// parser itself failed.
	Cause error
}

// Error renders "file:line:col: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Pos, e.Message)
}

// Unwrap returns the cause, so that errors.As finds an *InternalError
// behind a positioned parse error.
func (e *Error) Unwrap() error { return e.Cause }

// InternalError is a panic recovered inside the parser. It is always a
// bug in guardrun, never the script's fault: the script may well be
// invalid, but it should then get an ordinary *Error. Parse returns it
// wrapped in an *Error that carries the best position known (the
// directive being parsed, or the start of the file), so callers that
// only print positions keep working, while errors.As tells the two
// apart (the fuzz test fails on it).
type InternalError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine stack at the recovery point.
	Stack []byte
}

// Error renders "internal parser error: <panic value>".
func (e *InternalError) Error() string {
	return fmt.Sprintf("internal parser error: %v", e.Value)
}

// internalHint is the hint of an *Error wrapping an *InternalError.
const internalHint = "this is a guardrun bug; please report the script that triggered it"
