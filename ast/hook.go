package ast

// HookFilter kinds of a HookDirective: what operations the hook matches.
const (
	// HookFunction matches calls of one exe (`@review`, `@review("src/")`).
	HookFunction = "function"
	// HookOperation matches an operation type or operation label
	// (`op:run`, `op:exe`, `op:cmd:git`).
	HookOperation = "operation"
	// HookData matches operations carrying a data label (`untrusted`).
	HookData = "data"
)

// HookDirective is `hook [@name] before|after FILTER = BODY`: a user
// lifecycle hook that observes or transforms an operation's inputs
// (before) or result (after). It never denies: that is what guards do.
type HookDirective struct {
	Pos    Pos
	Name   string
	Timing string
	// Kind is HookFunction, HookOperation or HookData; Filter is the
	// exe name (without '@'), the operation type or label (without "op:"),
	// or the data label.
	Kind   string
	Filter string
	// Prefix, for a function filter, restricts the hook to calls whose
	// first argument's text starts with it; HasPrefix tells "" from none.
	Prefix    string
	HasPrefix bool
	// Body is a *WhenExpr or a *BlockExpr.
	Body Expr
}

// Position implements Node.
func (n *HookDirective) Position() Pos { return n.Pos }

func (*HookDirective) directive() {}
