package ast

import "fmt"

// Pos is a location in a source file. Line and Col are 1-based; Offset is a
// 0-based byte offset.
type Pos struct {
	File   string
	Line   int
	Col    int
	Offset int
}

// String renders the position as file:line:col.
func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Node is any syntax tree node.
type Node interface {
	Position() Pos
}

// Mode selects how a source file is read.
type Mode int

const (
	// Markdown mode: lines starting with /directive are directives; other
	// lines are prose copied to the document.
	Markdown Mode = iota
	// Strict mode (.mld): every non-blank, non-comment line is a directive;
	// the leading slash is optional.
	Strict
)

// Document is a parsed script: prose chunks and directives in source order.
type Document struct {
	File string
	Mode Mode
	Body []Node // *Prose or a Directive
	// Frontmatter is the raw YAML between leading --- fences, if any.
	Frontmatter string
	// Ends maps each top-level directive in Body to the byte offset where
	// its own text ends in the source (before any blank lines a show
	// swallows). Its start is its Pos.Offset. Tools that rewrite a file in
	// place (the formatter) need both ends; evaluation ignores it.
	Ends map[Node]int
}

// Position implements Node.
func (d *Document) Position() Pos { return Pos{File: d.File, Line: 1, Col: 1} }

// Prose is markdown text copied verbatim to the document.
type Prose struct {
	Pos  Pos
	Text string
}

// Position implements Node.
func (n *Prose) Position() Pos { return n.Pos }
