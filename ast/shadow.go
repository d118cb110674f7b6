package ast

// ShadowDirective is `exe js = { helper, … }` (or node, nodejs,
// javascript, py, python): the named exes become functions every later
// code block of that language can call.
type ShadowDirective struct {
	Pos   Pos
	Lang  string
	Names []string
}

// Position implements Node.
func (n *ShadowDirective) Position() Pos { return n.Pos }

func (*ShadowDirective) directive() {}
