package ast

// LoopExpr is `loop(limit) [until cond] [ … ]`: it runs Body until a
// `done`, the Until condition or the iteration limit ends it. Inside,
// @input is the value the previous iteration passed to `continue` (null
// at first). Its value is what `done` carried, else the last `continue`
// value.
type LoopExpr struct {
	Pos   Pos
	Limit Expr // nil: no limit beyond the interpreter's own bound
	Until Expr
	Body  *BlockExpr
}

// LoopCtlExpr is `done [value]` or `continue [value]` inside a loop, a
// for body or their blocks.
type LoopCtlExpr struct {
	Pos   Pos
	Done  bool
	Value Expr
}

// LoopDirective is a loop used as a statement (`/loop(3) [ … ]`).
type LoopDirective struct {
	Pos  Pos
	Loop *LoopExpr
}

// Position implements Node.
func (n *LoopExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *LoopCtlExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *LoopDirective) Position() Pos { return n.Pos }

func (*LoopExpr) expr()           {}
func (*LoopCtlExpr) expr()        {}
func (*LoopDirective) directive() {}
