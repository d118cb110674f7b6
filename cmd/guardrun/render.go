package main

import (
	"errors"
	"strings"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/grammar"
)

// renderSourceError renders a parse error of src the way a run renders
// every error (guardrun.Error.Render): position, message, the offending
// line with a caret, and the hint. Other errors print as they are.
func renderSourceError(err error, src []byte) string {
	var pe *grammar.Error
	if !errors.As(err, &pe) {
		return err.Error() + "\n"
	}
	e := &guardrun.Error{Name: "ParseError", Message: pe.Message, Pos: pe.Pos, Hint: pe.Hint}
	if n := pe.Pos.Line; n > 0 {
		lines := strings.SplitAfter(string(src), "\n")
		if n <= len(lines) {
			e.SourceLine = lines[n-1]
		}
	}
	return e.Render()
}
