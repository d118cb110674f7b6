package grammar

import (
	"errors"

	"github.com/guardrun/guardrun/ast"
)

// Parse parses src (the contents of file) in the given mode.
// STUB: replaced by the real parser.
func Parse(file string, src []byte, mode ast.Mode) (*ast.Document, error) {
	return nil, errors.New("parser not implemented")
}
