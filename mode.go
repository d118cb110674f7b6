package guardrun

import (
	"fmt"
	"path/filepath"

	"github.com/guardrun/guardrun/ast"
)

// Mode selects how a script is read. It mirrors ast.Mode so that embedders
// and the conformance runner need only this package, as cel-go re-exports
// its checker's types.
type Mode int

const (
	// Markdown mode (.md): lines starting with /directive are directives;
	// other lines are prose copied to the document.
	Markdown Mode = iota
	// Strict mode (.mld, and .guard for agent policies): every non-blank,
	// non-comment line is a directive.
	Strict
)

// String returns "markdown" or "strict".
func (m Mode) String() string {
	switch m {
	case Markdown:
		return "markdown"
	case Strict:
		return "strict"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// astMode converts to the parser's mode. The switch, not a cast, keeps the
// two enums free to diverge in numbering.
func (m Mode) astMode() (ast.Mode, bool) {
	switch m {
	case Markdown:
		return ast.Markdown, true
	case Strict:
		return ast.Strict, true
	}
	return 0, false
}

// ModeForName returns the mode a file name implies: `.mld` and `.guard`
// (an agent policy) are strict, anything else is markdown.
func ModeForName(name string) Mode {
	switch filepath.Ext(name) {
	case ".mld", ".guard":
		return Strict
	}
	return Markdown
}
