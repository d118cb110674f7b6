package interp

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/guardrun/guardrun/ast"
)

// Options configure one run of a document.
type Options struct {
	// Dir is the base directory: relative paths (imports, output files)
	// resolve against it, and commands run in it.
	Dir string
	// Stdout and Stderr receive the script's stdout and stderr effects as
	// they happen (may be nil). The Result holds copies as well.
	Stdout io.Writer
	Stderr io.Writer
	// CommandTimeout bounds one command or code block (0 = default 30s).
	CommandTimeout time.Duration
	// OutputLimit caps one command's captured output in bytes (0 = 4 MiB).
	OutputLimit int
	// DisableCode makes js/node/cmd/sh blocks and run fail with an error
	// instead of executing (used by fuzzing and sandboxed embedders).
	DisableCode bool
	// Parse parses an imported module file; the facade passes grammar.Parse.
	Parse func(file string, src []byte, mode ast.Mode) (*ast.Document, error)
}

// Result is what a run produced.
type Result struct {
	// Document is the assembled document, newline runs of 3+ collapsed.
	Document string
	Stdout   string
	Stderr   string
}

// Run evaluates doc. On error the Result still holds what was produced up to
// the failure.
// STUB: replaced by the real interpreter.
func Run(ctx context.Context, doc *ast.Document, opts Options) (*Result, error) {
	return &Result{}, errors.New("interpreter not implemented")
}
