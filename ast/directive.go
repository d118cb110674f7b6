package ast

// Directive is a top-level or block-level statement: var, show, exe, run,
// when, for, if, output, append, log, import, export, guard, policy, let,
// augment (+=) and return (=>).
type Directive interface {
	Node
	directive()
}

// VarDirective is `var [labels] @name = value`.
type VarDirective struct {
	Pos    Pos
	Labels []string
	Name   string
	Value  Expr
	// Tools marks a tool collection, `var tools @x = { Name: { labels,
	// returns }, … }` (AGENT.md §3): the agent engine reads the labels of
	// the tools an agent calls from it.
	Tools bool
	// Optional is mlld's `var @x? = …`: accepted, and @x is bound as
	// without the ? (mlld 2.0.5 binds it whatever the value).
	Optional bool
}

// ShowDirective is `show value`. A with-clause is part of Value (a
// *PipelineExpr with With set).
type ShowDirective struct {
	Pos   Pos
	Value Expr
}

// Param is an exe parameter. Type is metadata only (`name: string`).
type Param struct {
	Pos  Pos
	Name string
	Type string
}

// ExeDirective is `exe [labels] @name(params) = body`. Body is one of
// *StringLit (template), *CodeExpr, *WhenExpr, *BlockExpr, *ForExpr,
// *ForeachExpr, *PipelineExpr, *Ref (another invocation or passthrough), or
// any other expression.
type ExeDirective struct {
	Pos    Pos
	Labels []string
	Name   string
	Params []Param
	Body   Expr
}

// RunDirective is `run cmd {…}`, `run {…}`, `run js {…}`, `run @f(args)`,
// `run @value | cmd {…}` (stdin sugar), or in markdown a bare `/@f()` line
// (Bare set). Value is a *CodeExpr, *Ref invocation or *PipelineExpr.
type RunDirective struct {
	Pos   Pos
	Value Expr
	Bare  bool
}

// WhenDirective is a `when` statement (block, inline or match form).
type WhenDirective struct {
	Pos  Pos
	When *WhenExpr
}

// ForDirective is a `for` statement.
type ForDirective struct {
	Pos Pos
	For *ForExpr
}

// IfDirective is `if cond [ … ] [else if cond [ … ]] [else [ … ]]`. Else is
// either nil, a *BlockExpr, or another *IfDirective.
type IfDirective struct {
	Pos  Pos
	Cond Expr
	Then *BlockExpr
	Else Node
}

// OutputTarget is where output/append write: a stream ("stdout",
// "stderr") or a file path expression.
type OutputTarget struct {
	Pos    Pos
	Stream string
	Path   Expr
}

// OutputDirective is `output value to target`.
type OutputDirective struct {
	Pos    Pos
	Value  Expr
	Target OutputTarget
	// Format is the `as json|yaml|text` suffix, if any. A nil Value with a
	// Target path is `output "file"`: the whole document.
	Format string
}

// AppendDirective is `append value to "file"`.
type AppendDirective struct {
	Pos    Pos
	Value  Expr
	Target OutputTarget
	// Format is the `as …` suffix, if any.
	Format string
}

// BailDirective is `bail [message]`: the run stops with an error.
type BailDirective struct {
	Pos     Pos
	Message Expr
}

// LogDirective is `log value` (output to stderr).
type LogDirective struct {
	Pos   Pos
	Value Expr
}

// ImportName is one `@name [as @alias]` in an import list.
type ImportName struct {
	Pos   Pos
	Name  string
	Alias string
}

// ImportDirective is `import { @a, @b as @c } from "./mod.mld"`,
// `import { * } from "…"` (All), `import "…" as @ns` (Namespace) or
// `import guards from "…"` (Guards: all the module's guards, no names).
type ImportDirective struct {
	Pos       Pos
	Names     []ImportName
	All       bool
	Namespace string
	Path      string
	// Policy is set for `import policy @name from "…"`; Namespace holds
	// the name.
	Policy bool
	// Guards is set for `import guards from "…"`.
	Guards bool
	// Templates is set for `import templates from "dir" as @name(params)`:
	// every template file under dir becomes an exe taking Params, under
	// Namespace.
	Templates bool
	Params    []Param
}

// ExportDirective is `export { @a, @b }` or `export { * }` (All).
type ExportDirective struct {
	Pos   Pos
	Names []string
	All   bool
}

// GuardDirective is `guard [@name] before|after|always TRIGGER = when [...]`
// (also `guard before @name for TRIGGER = …`). Trigger is a data label
// (`secret`), or an operation key (`op:exe`, `op:cmd:git`).
type GuardDirective struct {
	Pos     Pos
	Name    string
	Timing  string
	Trigger string
	Body    *WhenExpr
	// Privileged is set for `guard privileged …`.
	Privileged bool
}

// PolicyDirective is `policy @name = expr`.
type PolicyDirective struct {
	Pos   Pos
	Name  string
	Value Expr
}

// LetStmt is `let @name = value` inside blocks and when lists.
type LetStmt struct {
	Pos   Pos
	Name  string
	Value Expr
}

// AugmentStmt is `@name += value`.
type AugmentStmt struct {
	Pos   Pos
	Name  string
	Value Expr
}

// ReturnStmt is `=> [labels] value`: the value of a block, or the script's
// return value at top level.
type ReturnStmt struct {
	Pos    Pos
	Labels []string
	Value  Expr
}

// ExprStmt is an expression in statement position, such as a bare effect
// pipeline line (`@x | log`) or an invocation inside a block.
type ExprStmt struct {
	Pos   Pos
	Value Expr
}

// Position implements Node.
func (n *VarDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ShowDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ExeDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *RunDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *WhenDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ForDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *IfDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *OutputDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *AppendDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *LogDirective) Position() Pos { return n.Pos }

// Position returns the node's position.
func (n *BailDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ImportDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ExportDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *GuardDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *PolicyDirective) Position() Pos { return n.Pos }

// Position implements Node.
func (n *LetStmt) Position() Pos { return n.Pos }

// Position implements Node.
func (n *AugmentStmt) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ReturnStmt) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ExprStmt) Position() Pos { return n.Pos }

func (*VarDirective) directive()    {}
func (*ShowDirective) directive()   {}
func (*ExeDirective) directive()    {}
func (*RunDirective) directive()    {}
func (*WhenDirective) directive()   {}
func (*ForDirective) directive()    {}
func (*IfDirective) directive()     {}
func (*OutputDirective) directive() {}
func (*AppendDirective) directive() {}
func (*LogDirective) directive()    {}
func (*BailDirective) directive()   {}
func (*ImportDirective) directive() {}
func (*ExportDirective) directive() {}
func (*GuardDirective) directive()  {}
func (*PolicyDirective) directive() {}
func (*LetStmt) directive()         {}
func (*AugmentStmt) directive()     {}
func (*ReturnStmt) directive()      {}
func (*ExprStmt) directive()        {}
