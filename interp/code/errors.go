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
	// ExitCode is the command's exit status (0 for JS errors).
	ExitCode int
	// Stdout and Stderr are what a failed command wrote (Stdout capped).
	Stdout, Stderr string
	// TimedOut is set when the block ran past its time limit; Interrupted
	// when the caller's context was cancelled.
	TimedOut, Interrupted bool
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// timeoutError builds the error for a block that ran past its limit.
func timeoutError(lang string, d time.Duration) *Error {
	return &Error{
		Lang:     lang,
		Message:  fmt.Sprintf("%s block timed out after %s; raise the timeout with the CommandTimeout option (guardrun --timeout)", lang, d),
		Hint:     "raise the timeout with the CommandTimeout option, or make the block finish sooner",
		TimedOut: true,
	}
}

func interruptedError(lang string, cause error) *Error {
	return &Error{
		Lang:        lang,
		Message:     fmt.Sprintf("%s block interrupted: %v", lang, cause),
		Interrupted: true,
	}
}
