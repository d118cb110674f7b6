package value

import "fmt"

// Error is a failure of a builtin method or transformer caused by its
// input or arguments (invalid JSON for `@json`, a bad regular expression
// for `.match()`, a `.repeat()` count that is too large…). Message says
// what went wrong; Hint says what the script author can do about it.
// The interpreter picks it up with errors.As to report both.
type Error struct {
	Message string
	Hint    string
}

// Error returns Message.
func (e *Error) Error() string { return e.Message }

// inputError builds an *Error; every method and transformer failure goes
// through it so that each one carries a hint.
func inputError(hint, format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...), Hint: hint}
}
