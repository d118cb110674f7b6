package ast

// ShowJoin is the value of `show foreach …` (with any batch pipeline):
// the results are shown one per line, or joined by Options' separator and
// each formatted by its template ({{result}}, {{index}}).
type ShowJoin struct {
	Pos     Pos
	Value   Expr
	Options *ObjectLit
}

// TemplateFile is `template "path"` as an exe body: the file is read and
// parsed where the exe is defined (as mlld does), and interpolated at
// each call (.att: @variables, <file> references and /for loops; .mtt:
// {{variables}} only).
type TemplateFile struct {
	Pos  Pos
	Path *StringLit
}

// LeadParallel is a leading parallel group, `|| @a() || @b()`: the
// pipeline runs its branches on an empty input, and the value is the
// array of their results (shown as an array, unlike a parallel stage's
// text).
type LeadParallel struct {
	Pos      Pos
	Pipeline *PipelineExpr
}

// Position implements Node.
func (n *LeadParallel) Position() Pos { return n.Pos }

func (*LeadParallel) expr() {}

// Position implements Node.
func (n *ShowJoin) Position() Pos { return n.Pos }

// Position implements Node.
func (n *TemplateFile) Position() Pos { return n.Pos }

func (*ShowJoin) expr()     {}
func (*TemplateFile) expr() {}
