package ast

import "strings"

// Expr is any expression node.
type Expr interface {
	Node
	expr()
}

// NullLit is `null`.
type NullLit struct{ Pos Pos }

// BoolLit is `true` or `false`.
type BoolLit struct {
	Pos   Pos
	Value bool
}

// NumberLit is a numeric literal. Raw keeps the source spelling so that
// numbers interpolate "as written".
type NumberLit struct {
	Pos   Pos
	Value float64
	Raw   string
}

// QuoteKind says how a string or template was written.
type QuoteKind int

const (
	// SingleQuote is '…': literal, no interpolation.
	SingleQuote QuoteKind = iota
	// DoubleQuote is "…": interpolates @refs.
	DoubleQuote
	// Backtick is `…`: a template.
	Backtick
	// DoubleColon is ::…::, a template that may contain backticks.
	DoubleColon
	// TripleColon is :::…:::, interpolating only {{name}}.
	TripleColon
)

// StringLit is a quoted string or template. Parts alternate between text
// and interpolations; a single-quoted string has one *TextPart.
type StringLit struct {
	Pos   Pos
	Kind  QuoteKind
	Parts []TemplatePart
	// Raw is the literal as written, delimiters included (for a <path>,
	// the text between the angle brackets), so that tools can reprint it
	// without re-deriving its escapes.
	Raw string
}

// PlainText returns the string's text when it has no interpolation.
func (s *StringLit) PlainText() (string, bool) {
	if len(s.Parts) == 1 {
		if t, ok := s.Parts[0].(*TextPart); ok {
			return t.Text, true
		}
	}
	var b strings.Builder
	for _, part := range s.Parts {
		t, ok := part.(*TextPart)
		if !ok {
			return "", false
		}
		b.WriteString(t.Text)
	}
	return b.String(), true
}

// TemplatePart is a *TextPart, an *InterpPart or a *TemplateFor.
type TemplatePart interface {
	Node
	templatePart()
}

// TextPart is literal template text (escapes already resolved).
type TextPart struct {
	Pos  Pos
	Text string
}

// InterpPart is an interpolation inside a template: `@x.y`, `@f(a)`,
// `@v|@pipe`, `{{name}}`. Value is a *Ref or a *PipelineExpr. OmitFalsy is
// `@var?`; Fallback is `@var??"default"`.
type InterpPart struct {
	Pos       Pos
	Value     Expr
	OmitFalsy bool
	Fallback  Expr
	// Snippet, when non-nil, is `@x?`…``: rendered in place of the value
	// when the value is truthy, else nothing (OmitFalsy is set too).
	Snippet []TemplatePart
	// AfterWord is set when the @ follows a letter or digit
	// (`ann@example.com`): still a reference, as in mlld, but usually
	// text that stays as written because nothing defines the name.
	AfterWord bool
}

// TemplateFor is a `/for [@key,] @var in source … /end` block inside a ::
// template: Body is rendered once per element of Source with Var (and
// Key) bound, and the renderings are concatenated in order.
type TemplateFor struct {
	Pos    Pos
	Key    string
	Var    string
	Source Expr
	Body   []TemplatePart
}

// AccessKind tells what an Accessor does.
type AccessKind int

const (
	// AccessField is `.name`.
	AccessField AccessKind = iota
	// AccessIndex is `[expr]`.
	AccessIndex
	// AccessWildcard is `[*]` (projection).
	AccessWildcard
	// AccessCall is `(args)`: invokes the value reached so far (an exe, or a
	// builtin method when the previous accessor was a field).
	AccessCall
	// AccessSlice is `[start:end]`; Index is the start and End the end,
	// either nil when left out.
	AccessSlice
)

// Accessor is one step of a reference path.
type Accessor struct {
	Pos      Pos
	Kind     AccessKind
	Name     string // AccessField
	Index    Expr   // AccessIndex
	Args     []Expr // AccessCall
	End      Expr   // AccessSlice
	Optional bool   // `?.`
}

// Ref is `@name` followed by field, index and call accessors: `@x`,
// `@x.a[0]`, `@f(a, b)`, `@s.trim().slice(0, 3)`.
type Ref struct {
	Pos  Pos
	Name string
	Path []Accessor
}

// ArrayItem is one element of an array literal.
type ArrayItem struct {
	Value    Expr
	Spread   bool // `...@xs`
	Optional bool // `@x?`: omitted when falsy
}

// ArrayLit is `[a, b, …]`.
type ArrayLit struct {
	Pos   Pos
	Items []ArrayItem
}

// ObjectEntry is one entry of an object literal.
type ObjectEntry struct {
	Pos      Pos
	Key      string
	Value    Expr
	Spread   bool // `...@o` (Key empty)
	Optional bool // `"k"?: v`: omitted when falsy
}

// ObjectLit is `{ key: value, … }`.
type ObjectLit struct {
	Pos     Pos
	Entries []ObjectEntry
}

// UnaryExpr is `!x` or `-x`.
type UnaryExpr struct {
	Pos Pos
	Op  string
	X   Expr
}

// BinaryExpr is `l op r` for == != < > <= >= ~= !~= && || ?? + - * / %.
type BinaryExpr struct {
	Pos   Pos
	Op    string
	Left  Expr
	Right Expr
}

// TernaryExpr is `cond ? then : else`.
type TernaryExpr struct {
	Pos  Pos
	Cond Expr
	Then Expr
	Else Expr
}

// CodeExpr is a code block: `cmd {…}`, `sh {…}`, `bash {…}`, `js {…}`,
// `node {…}`, `py {…}`, or `run {…}` / `run cmd {…}` (Lang "cmd", Run set).
// For cmd, Command holds the command text as a template (it interpolates
// @refs); for other languages Code is the raw source between the braces.
type CodeExpr struct {
	Pos     Pos
	Lang    string
	Code    string
	Command *StringLit
	Run     bool
	// Args are the variables a block names in its header
	// (`js (@a, @b) { … }`), bound as its parameters.
	Args []string
	// Dir, when set, is the working directory the header names
	// (`cmd:/tmp { … }`, `sh(@a):@dir { … }`): an absolute path, `~` or
	// `~/…`, possibly interpolating @references.
	Dir *StringLit
}

// WithClause is `with { pipeline: [...], key: value, … }`. Pipeline holds
// the stages; Options holds the remaining keys (guards, stdin, format…).
type WithClause struct {
	Pos      Pos
	Pipeline []*Stage
	Options  *ObjectLit
}

// StageKind tells what a pipeline stage does.
type StageKind int

const (
	// StageCall calls an exe or builtin transformer: `@f` or `@f(args)`.
	StageCall StageKind = iota
	// StageEffect is an inline effect: show, log, output, append.
	StageEffect
	// StageParallel runs its Parallel stages on the same input
	// (`@a || @b`, or a nested array in `with { pipeline }`).
	StageParallel
	// StageCode runs an inline code block (`| cmd { tr a-z A-Z }`).
	StageCode
	// StageWhile runs While.Proc on the state until it says done:
	// `| while(10) @step`.
	StageWhile
)

// WhileStage is `while(Cap[, rate]) @Proc`. RateMs is the pause between
// iterations (0: none).
type WhileStage struct {
	Cap    int
	RateMs int
	Proc   *Ref
}

// EffectStage is an inline effect: `show [value]`, `log [value]`,
// `output [value] to target`, `append [value] [to] target`. A nil Value
// means the current pipeline input.
type EffectStage struct {
	Kind   string
	Value  Expr
	Target *OutputTarget
}

// Stage is one pipeline stage.
type Stage struct {
	Pos      Pos
	Kind     StageKind
	Call     *Ref
	Effect   *EffectStage
	Parallel []*Stage
	Code     *CodeExpr
	While    *WhileStage
}

// PipelineExpr is `source | stage | …` and/or `source with { … }`.
// FromWith is set when the stages came from a with-clause.
type PipelineExpr struct {
	Pos      Pos
	Source   Expr
	Stages   []*Stage
	With     *WithClause
	FromWith bool
}

// WhenArmKind tells how a when arm's condition is written.
type WhenArmKind int

const (
	// ArmCond is an ordinary condition expression (or a match value in the
	// match form).
	ArmCond WhenArmKind = iota
	// ArmWildcard is `*`.
	ArmWildcard
	// ArmNone is `none`: matches only if no earlier arm matched.
	ArmNone
)

// WhenArm is `cond => action` inside a when. Action is an Expr (a value),
// a Directive (show, output, log, run, var, let…), or a *BlockExpr. Let
// entries in the list appear as arms whose Action is a *LetStmt or
// *AugmentStmt and whose Kind is ArmWildcard with Let set.
type WhenArm struct {
	Pos    Pos
	Kind   WhenArmKind
	Cond   Expr
	Action Node
	Let    bool
}

// WhenExpr is `when [ arms ]` (block), `when cond => action` (Inline), or
// `when @subject [ value => action … ]` (match form: Subject set).
type WhenExpr struct {
	Pos     Pos
	Subject Expr
	Arms    []*WhenArm
	Inline  bool
}

// ForExpr is `for [@key,] @var in source [when filter] => body` or
// `for @var in source [ stmts ]`. Body is an Expr, a Directive or a
// *BlockExpr.
type ForExpr struct {
	Pos Pos
	Key string
	Var string
	// VarPath is the field path of a dotted binding, `for @item.path in
	// @items`: @item is the element, which must have that field.
	VarPath []string
	Source  Expr
	Filter  Expr
	Body    Node
	// Parallel marks `for parallel[(cap)]`: an iteration's error is
	// collected in @mx.errors instead of ending the loop, and the body
	// may not write outer variables. Cap is the concurrency cap.
	Parallel bool
	Cap      Expr
}

// ForeachExpr is `foreach @f(@array, …)`: calls f once per element.
type ForeachExpr struct {
	Pos  Pos
	Call *Ref
}

// BlockExpr is `[ stmt … => value ]`: an exe body, a when action or a for
// body. Statements are Directives (let, +=, show, when, for, if, =>, …).
type BlockExpr struct {
	Pos   Pos
	Stmts []Directive
}

// RetryExpr is `retry ["hint" | value]` as a when action.
type RetryExpr struct {
	Pos  Pos
	Hint Expr
	// With is the action's with-clause (`context`, `message`), nil when
	// absent.
	With *ObjectLit
}

// SkipExpr is `skip` (drops an element in for).
type SkipExpr struct{ Pos Pos }

// DeniedExpr is the `denied` condition of a denied handler arm.
type DeniedExpr struct{ Pos Pos }

// AllowExpr is a guard action `allow [value] [with { … }]`.
type AllowExpr struct {
	Pos   Pos
	Value Expr
	With  *ObjectLit
}

// DenyExpr is a guard action `deny "reason"` or deny `template`.
type DenyExpr struct {
	Pos Pos
	// Reason is a quoted reason's text: literal, as in mlld.
	Reason string
	// Template, when not nil, is the reason written as a template (`…`,
	// ::…:: or :::…:::), rendered in the guard's scope when the rule
	// fires; Reason is then empty.
	Template *StringLit
	// With is the action's with-clause (`context`, `message`), nil when
	// absent.
	With *ObjectLit
}

// AskExpr is the guard action `ask "question" [with { … }]`: the operation
// needs a human's approval. The question is literal text, or a template
// (Template, as in DenyExpr).
type AskExpr struct {
	Pos      Pos
	Question string
	Template *StringLit
	With     *ObjectLit
}

// LabelExpr is a value with label modifications in a guard action or
// when action: `clear! @v`, `trusted!,!secret @v`, `pii @v`. Labels keep
// their spelling: `name` adds, `!name` removes, `name!` / `clear!` are
// privileged forms.
type LabelExpr struct {
	Pos    Pos
	Labels []string
	Value  Expr
}

// FileLoad is `<path>`: the contents of a file, or the files a glob
// matches. Section selects markdown sections (`<f.md # Intro>`), Optional
// (`<f>?`) makes a missing file null and an empty glob [], As renames a
// selected section or formats each file (`<>` stands for the file), and
// Access reads fields of the loaded value (`<f.json>.name`).
type FileLoad struct {
	Pos      Pos
	Path     *StringLit
	Section  *StringLit
	Optional bool
	As       *StringLit
	Access   []Accessor
}

// Position implements Node.
func (n *NullLit) Position() Pos { return n.Pos }

// Position implements Node.
func (n *BoolLit) Position() Pos { return n.Pos }

// Position implements Node.
func (n *NumberLit) Position() Pos { return n.Pos }

// Position implements Node.
func (n *StringLit) Position() Pos { return n.Pos }

// Position implements Node.
func (n *TextPart) Position() Pos { return n.Pos }

// Position implements Node.
func (n *InterpPart) Position() Pos { return n.Pos }

// Position implements Node.
func (n *TemplateFor) Position() Pos { return n.Pos }

// Position implements Node.
func (n *Ref) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ArrayLit) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ObjectLit) Position() Pos { return n.Pos }

// Position implements Node.
func (n *UnaryExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *BinaryExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *TernaryExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *CodeExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *PipelineExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *WhenExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ForExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *ForeachExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *BlockExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *RetryExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *SkipExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *DeniedExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *AllowExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *DenyExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *AskExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *FileLoad) Position() Pos { return n.Pos }

// Position implements Node.
func (n *LabelExpr) Position() Pos { return n.Pos }

// Position implements Node.
func (n *WhenArm) Position() Pos { return n.Pos }

// Position implements Node.
func (n *Stage) Position() Pos { return n.Pos }

func (*NullLit) expr()      {}
func (*BoolLit) expr()      {}
func (*NumberLit) expr()    {}
func (*StringLit) expr()    {}
func (*Ref) expr()          {}
func (*ArrayLit) expr()     {}
func (*ObjectLit) expr()    {}
func (*UnaryExpr) expr()    {}
func (*BinaryExpr) expr()   {}
func (*TernaryExpr) expr()  {}
func (*CodeExpr) expr()     {}
func (*PipelineExpr) expr() {}
func (*WhenExpr) expr()     {}
func (*ForExpr) expr()      {}
func (*ForeachExpr) expr()  {}
func (*BlockExpr) expr()    {}
func (*RetryExpr) expr()    {}
func (*SkipExpr) expr()     {}
func (*DeniedExpr) expr()   {}
func (*AllowExpr) expr()    {}
func (*DenyExpr) expr()     {}
func (*AskExpr) expr()      {}
func (*FileLoad) expr()     {}
func (*LabelExpr) expr()    {}

func (*TextPart) templatePart()    {}
func (*InterpPart) templatePart()  {}
func (*TemplateFor) templatePart() {}
