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
}

// Error renders "file:line:col: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Pos, e.Message)
}
