package ast

// ShowJoin is the value of `show foreach …` (with any batch pipeline):
// the results are shown one per line, or joined by Options' separator and
// each formatted by its template ({{result}}, {{index}}).
type ShowJoin struct {
	Pos     Pos
	Value   Expr
	Options *ObjectLit
}

// Position implements Node.
func (n *ShowJoin) Position() Pos { return n.Pos }

func (*ShowJoin) expr() {}
