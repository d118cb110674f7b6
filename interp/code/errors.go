package code

import (
	"fmt"
	"time"
)

// Error is a failure of a code block or command caused by the script:
// a JS exception, a non-zero exit, a timeout or an output overflow.
type Error struct {
	// Lang is "js", "node", "cmd", "sh" or "bash".
	Lang string
	// Message is the user-facing text: the JS error's message (e.g.
	// "boom:seed"), or "Command failed with exit code N" etc.
	Message string
	// Hint says how to fix it, when there is something to say.
	Hint string
	// Line and Column locate a JS exception inside the block body
	// (1-based; 0 when unknown).
	Line, Column int
	// ExitCode is a failed command's exit status, for embedders that
	// branch on it: 127 when the shell could not start, -1 when the
	// command was killed by a signal, 0 for JS errors, timeouts, output
	// overflows and interruptions.
	ExitCode int
	// Stderr is what a failed command wrote to stderr (capped at
	// Options.OutputLimit), for embedders that show or log it; Message
	// carries only its first line. Empty for JS errors.
	Stderr string
	// TimedOut is set when the block ran past its time limit; Interrupted
	// when the caller's context was cancelled; OutOfMemory when a JS block
	// grew the heap past Options.MemoryLimit.
	TimedOut, Interrupted, OutOfMemory bool
	// Err is the cause, when there is one to test for (ErrNotLinked).
	Err error
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// TimeoutError builds the error for a block that ran past its limit d.
func TimeoutError(lang string, d time.Duration) *Error {
	return &Error{
		Lang:     lang,
		Message:  fmt.Sprintf("%s block timed out after %s", lang, d),
		Hint:     "make the block finish sooner, or raise the limit (guardrun --command-timeout, or the WithCommandTimeout option)",
		TimedOut: true,
	}
}

// InterruptedError builds the error for a block stopped because the
// caller's context ended with cause.
func InterruptedError(lang string, cause error) *Error {
	return &Error{
		Lang:        lang,
		Message:     fmt.Sprintf("%s block interrupted: %v", lang, cause),
		Interrupted: true,
	}
}
