package grammar

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// This file holds the participle parse tree. It mirrors the surface syntax
// closely; lower*.go turns it into ast nodes. Binary operators are parsed
// flat and given precedence during lowering.

// span is one directive. Tokens after the statement are left to the
// caller (see parseSpan).
type span struct {
	Pos  lexer.Position
	Stmt *stmt `parser:"@@"`
}

// stmt has no run, when or for alternative: those are expressions too,
// and a statement alternative for each would make participle parse every
// failing one twice, once per reading, at every level of nesting.
// lowerStmt turns a bare run, when or for expression into its directive.
type stmt struct {
	Pos     lexer.Position
	Var     *varStmt    `parser:"  'var' @@"`
	Show    *expr       `parser:"| 'show' @@"`
	Shadow  *shadowStmt `parser:"| 'exe' @@"`
	Exe     *exeStmt    `parser:"| 'exe' @@"`
	If      *ifStmt     `parser:"| 'if' @@"`
	Output  *outputStmt `parser:"| 'output' @@"`
	Append  *outputStmt `parser:"| 'append' @@"`
	Log     *expr       `parser:"| 'log' @@"`
	Bail    *bailStmt   `parser:"| @@"`
	Import  *importStmt `parser:"| 'import' @@"`
	Export  *exportStmt `parser:"| 'export' @@"`
	Guard   *guardStmt  `parser:"| 'guard' @@"`
	Hook    *hookStmt   `parser:"| 'hook' @@"`
	Policy  *assignStmt `parser:"| 'policy' @@"`
	Let     *assignStmt `parser:"| 'let' @@"`
	LetAug  *augment    `parser:"| 'let' @@"`
	Return  *returnStmt `parser:"| '=>' @@"`
	Augment *augment    `parser:"| @@"`
	Expr    *expr       `parser:"| @@"`
}

// bailStmt is `bail [message]`.
type bailStmt struct {
	Pos     lexer.Position
	Kw      string `parser:"@'bail'"`
	Message *expr  `parser:"@@?"`
}

type label struct {
	Pos  lexer.Position
	Bang bool    `parser:"@'!'?"`
	Name name    `parser:"@@"`
	Sub  *string `parser:"( ':' @Ident )?"`
	Priv bool    `parser:"@'!'?"`
}

type varStmt struct {
	Pos    lexer.Position
	Labels []*label `parser:"( @@ ( ',' @@ )* )?"`
	Name   string   `parser:"@AtIdent"`
	// Optional is mlld's `var @x? = …`, which binds @x as without the ?.
	Optional bool  `parser:"@'?'? '='"`
	Value    *expr `parser:"( (?! '[' ) @@"`
	// Block is a `[ … ]` value: an array, or a statement block whose
	// `=> value` is the variable's value (see lower_bracket.go).
	Block *bracketExpr `parser:"| @@ )"`
}

type assignStmt struct {
	Pos   lexer.Position
	Name  string `parser:"@AtIdent '='"`
	Value *expr  `parser:"@@"`
}

type augment struct {
	Pos   lexer.Position
	Name  string `parser:"@AtIdent '+='"`
	Value *expr  `parser:"@@"`
}

type param struct {
	Pos  lexer.Position
	Name string  `parser:"@(Ident|AtIdent)"`
	Type *string `parser:"( ':' @Ident )?"`
}

type exeStmt struct {
	Pos    lexer.Position
	Labels []*label `parser:"( @@ ( ',' @@ )* )?"`
	Name   string   `parser:"@AtIdent"`
	Parens bool     `parser:"( @'('"`
	Params []*param `parser:"  ( @@ ( ',' @@ )* )? ')' )? '='"`
	// Tpl is `template "file.att"`: the body is an external template.
	Tpl *strLit `parser:"( 'template' @@"`
	// Names is a shadow environment, `exe @js = { helper, … }`.
	Names []string     `parser:"| '{' @Ident ( ',' @Ident )* ','? '}'"`
	Body  *expr        `parser:"| (?! '[' ) @@"`
	Block *bracketExpr `parser:"| @@ )"`
}

// shadowStmt is `exe js = { helper, … }`: a shadow environment for the
// code blocks of a language.
type shadowStmt struct {
	Pos   lexer.Position
	Lang  string   `parser:"@('js'|'javascript'|'node'|'nodejs'|'py'|'python') '='"`
	Names []string `parser:"'{' @Ident ( ',' @Ident )* ','? '}'"`
}

type block struct {
	Pos   lexer.Position
	Stmts []*stmt `parser:"'[' ( @@ ';'? )* ']'"`
}

type labeled struct {
	Pos    lexer.Position
	Labels []*label `parser:"@@ ( ',' @@ )*"`
	Value  *expr    `parser:"@@"`
}

type returnStmt struct {
	Pos     lexer.Position
	Value   *expr    `parser:"  @@"`
	Labeled *labeled `parser:"| @@"`
}

// outputStmt is `output [value] [to] target [as format]`. The first
// operand is read once, as a target: it is the value when a second
// operand follows and the target otherwise. Reading it first as an
// optional value and then, when that failed, again as the target made
// participle parse a bad operand twice at every level of nesting. An
// operand is required for the same reason: had a failed one left a bare
// output behind, the next statement would parse it again.
type outputStmt struct {
	Pos    lexer.Position
	To     *target `parser:"(  'to' @@"`
	First  *target `parser:" | @@"`
	Second *target `parser:"   ( 'to'? @@ )? )"`
	Format *string `parser:"( 'as' @Ident )?"`
}

type target struct {
	Pos    lexer.Position
	Stream *string  `parser:"  @('stdout'|'stderr')"`
	Bare   *string  `parser:"| @BarePath"`
	Path   *ternary `parser:"| @@"`
}

type importName struct {
	Pos   lexer.Position
	Name  string  `parser:"@(AtIdent|Ident)"`
	Alias *string `parser:"( 'as' @(AtIdent|Ident) )?"`
}

type importStmt struct {
	Pos lexer.Position
	// Kind is mlld's import type (`import static <x> as @ns`); local
	// modules load the same way whichever is named.
	Kind *string `parser:"@('module'|'static'|'live'|'local')?"`
	// Templates is `import templates from "dir" as @name(params)`: a
	// directory of template files imported as a collection of exes.
	Templates bool          `parser:"(  @'templates' 'from'"`
	TPath     *primary      `parser:"   @@ 'as'"`
	TAlias    *string       `parser:"   @AtIdent"`
	TParams   []string      `parser:"   ( CallOpen ( @(Ident|AtIdent) ( ',' @(Ident|AtIdent) )* )? ')' )?"`
	Policy    *string       `parser:" | 'policy' @AtIdent 'from'"`
	PPath     *primary      `parser:"   @@"`
	Guards    bool          `parser:" | @'guards' 'from'"`
	GPath     *primary      `parser:"   @@"`
	All       bool          `parser:" | '{' ( @'*'"`
	Names     []*importName `parser:"       | @@ ( ',' @@ )* ','? ) '}' 'from'"`
	LPath     *primary      `parser:"   @@"`
	Path      *primary      `parser:" | @@"`
	Alias     *string       `parser:"   ( 'as' @AtIdent )? )"`
}

type exportStmt struct {
	Pos   lexer.Position
	All   bool     `parser:"'{' ( @'*'"`
	Names []string `parser:"    | @(AtIdent|Ident) ( ',' @(AtIdent|Ident) )* ','? )? '}'"`
}

type filterSeg struct {
	Sep  string `parser:"@(':'|'.')"`
	Name string `parser:"@Ident"`
}

type filter struct {
	Pos  lexer.Position
	Head string       `parser:"@(Ident|AtIdent)"`
	Rest []*filterSeg `parser:"@@*"`
}

type guardHeadA struct {
	Name   *string `parser:"@AtIdent?"`
	Timing string  `parser:"@('before'|'after'|'always')"`
	Filter *filter `parser:"@@ '='"`
}

type guardHeadB struct {
	Timing *string `parser:"@('before'|'after'|'always')?"`
	Name   *string `parser:"@AtIdent? 'for'"`
	Filter *filter `parser:"@@ '='"`
}

type guardStmt struct {
	Pos        lexer.Position
	Privileged bool        `parser:"@'privileged'?"`
	A          *guardHeadA `parser:"( @@"`
	B          *guardHeadB `parser:"| @@ )"`
	Body       *whenBody   `parser:"'when' @@"`
	With       *object     `parser:"( 'with' @@ )?"`
}

type armList struct {
	Pos  lexer.Position
	Arms []*arm `parser:"'[' ( @@ ';'? )* ']'"`
}

// whenBody reads the head after `when` once, as an expression: what
// follows it (`=>` or an arm list) tells the inline form from the match
// form, whose subject the lowerer then checks is a plain reference.
type whenBody struct {
	Pos lexer.Position
	// Colon is mlld's older `when: [ … ]` spelling of a when list.
	Colon    bool     `parser:"@':'?"`
	Modifier *string  `parser:"@('all'|'any'|'first')?"`
	Block    *armList `parser:"(  @@"`
	Head     *expr    `parser:" | (?! '[' ) @@"`
	Match    *armList `parser:"   ( ':'? @@"`
	Action   *action  `parser:"   | '=>' @@ ) )"`
}

type arm struct {
	Pos     lexer.Position
	Let     *assignStmt `parser:"  'let' @@"`
	Augment *augment    `parser:"| @@"`
	Star    bool        `parser:"| ( ( @ArmStar | @'*' )"`
	None    bool        `parser:"  | @'none'"`
	Cond    *expr       `parser:"  | @@"`
	Partial *partial    `parser:"  | @@ ) '=>'"`
	Action  *action     `parser:"  @@"`
}

// partial is a match-form condition that starts with an operator
// (`>= 0.3 && < 0.7`): the missing operands are the when subject.
type partial struct {
	Pos  lexer.Position
	Rest []*partialRest `parser:"@@+"`
}

type partialRest struct {
	Pos   lexer.Position
	Op    string   `parser:"@(ArmOp|CmpOp)"`
	Right *primary `parser:"@@?"`
}

// action is what follows `=>`. A `[` there belongs to Block alone (see
// bracketExpr); `run …` is a Value the lowerer turns into a run.
type action struct {
	Pos     lexer.Position
	Show    *expr        `parser:"  'show' @@"`
	Output  *outputStmt  `parser:"| 'output' @@"`
	Append  *outputStmt  `parser:"| 'append' @@"`
	Log     *expr        `parser:"| 'log' @@"`
	Bail    *bailStmt    `parser:"| @@"`
	Var     *varStmt     `parser:"| 'var' @@"`
	Let     *assignStmt  `parser:"| 'let' @@"`
	Return  *returnStmt  `parser:"| '=>' @@"`
	Value   *expr        `parser:"| (?! '[' ) @@"`
	Block   *bracketExpr `parser:"| @@"`
	Labeled *labeled     `parser:"| @@"`
}

// bracketExpr is a `[ … ]` where a statement block or an array may be
// meant (an exe body, an action), with whatever continues the expression
// after it. One rule owns the bracket so that participle reads it once:
// trying it as a block and then again as an array doubled the work at
// every level of nesting. The lowerer decides which it is (see
// lower_bracket.go) and where a continuation belongs.
type bracketExpr struct {
	Pos   lexer.Position
	Open  *bracket    `parser:"@@"`
	Rest  []*binRest  `parser:"@@*"`
	Then  *ternary    `parser:"( '?' @@"`
	Else  *ternary    `parser:"  ':' @@ )?"`
	Steps []*pipeStep `parser:"@@*"`
	With  *object     `parser:"( 'with' @@ )?"`
}

// bracket holds the items of a block-or-array, each with the separator
// after it: statements are separated by line breaks or ;, array items by
// commas.
type bracket struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Items  []*bracketItem `parser:"'[' @@* ']'"`
}

type bracketItem struct {
	Pos      lexer.Position
	Spread   bool   `parser:"(  @'...'"`
	Value    *expr  `parser:"   @@"`
	Stmt     *stmt  `parser:" | @@ )"`
	Optional bool   `parser:"( @'?' (?= ',' | ']') )?"`
	Sep      string `parser:"@(',' | ';')?"`
}

type forBody struct {
	Pos      lexer.Position
	Parallel bool     `parser:"( @'parallel'"`
	Cap      *expr    `parser:"  ( '(' @@?"`
	Pace     *pace    `parser:"    ( ',' @@ )? ')' )? )?"`
	First    string   `parser:"@AtIdent"`
	Path     []string `parser:"( '.' @Ident )*"`
	Second   *string  `parser:"( ',' @AtIdent )?"`
	Source   *expr    `parser:"'in' @@"`
	Filter   *expr    `parser:"( 'when' @@ )?"`
	Block    *bracket `parser:"( @@"`
	Action   *action  `parser:"| '=>' @@ )"`
	// Batch is a pipeline run on the collected results: `=> | @f`, or
	// a parallel group on them, `=> || @a() || @b()`.
	Batch    []*pipeStep `parser:"( '=>' ( @@+"`
	BatchPar *leadPar    `parser:"  | @@ ) )?"`
}

type ifStmt struct {
	Pos    lexer.Position
	Cond   *expr   `parser:"@@"`
	Then   *block  `parser:"@@"`
	ElseIf *ifStmt `parser:"( 'else' ( 'if' @@"`
	Else   *block  `parser:"          | @@ ) )?"`
}

// expr is the pipeline level: source | stages [with {…}].
type expr struct {
	Pos    lexer.Position
	Source *ternary    `parser:"@@"`
	Steps  []*pipeStep `parser:"@@*"`
	With   *object     `parser:"( 'with' @@ )?"`
}

type pipeStep struct {
	Pos   lexer.Position
	Stage *stage `parser:"  '|' @@"`
	// Code is `| { … }` (one PipeCode token). A block opened by its
	// language on the next line is a statement of its own, not a stage.
	Code *codeBlock `parser:"| (?= PipeCode) @@"`
}

type stage struct {
	Pos   lexer.Position
	Lead  bool         `parser:"@'||'?"`
	Atoms []*stageAtom `parser:"@@ ( '||' @@ )*"`
}

type stageAtom struct {
	Pos    lexer.Position
	While  *whileStage `parser:"  @@"`
	Ref    *ref        `parser:"| @@"`
	Effect *effect     `parser:"| @@"`
	Code   *codeBlock  `parser:"| @@"`
}

// whileStage is `while(cap[, rate]) @processor`: the processor runs on
// the state until it says done, at most cap times.
type whileStage struct {
	Pos      lexer.Position
	Cap      string  `parser:"'while' ( '(' | CallOpen ) @Number"`
	Rate     *string `parser:"( ',' @Number"`
	RateUnit *string `parser:"  @Ident? )? ')'"`
	Proc     *ref    `parser:"@@"`
}

type effect struct {
	Pos    lexer.Position
	Kind   string   `parser:"@('show'|'log'|'output'|'append')"`
	Value  *ternary `parser:"@@?"`
	Target *target  `parser:"( 'to' @@ )?"`
}

// ternary is an operand/operator list, optionally followed by `? then :
// else`. The binary operators are kept flat here (one struct level less
// per expression for participle to allocate) and given precedence during
// lowering.
type ternary struct {
	Pos   lexer.Position
	First *primary   `parser:"@@"`
	Rest  []*binRest `parser:"@@*"`
	Then  *ternary   `parser:"( '?' @@"`
	Else  *ternary   `parser:"  ':' @@ )?"`
}

type binRest struct {
	Pos   lexer.Position
	Op    string   `parser:"@(CmpOp|ArithOp)"`
	Right *primary `parser:"@@"`
}

type primary struct {
	Pos    lexer.Position
	EndPos lexer.Position
	// Alternatives whose first token is unique come first, most common
	// first: each alternative tried and rejected costs participle a branch
	// and, for a struct, an allocation. The keyword alternatives must stay
	// ahead of the bare call, which would also take `retry(…)` and the
	// like.
	Ref     *ref       `parser:"  @@"`
	Str     *strLit    `parser:"| @@"`
	Number  *string    `parser:"| @Number"`
	When    *whenBody  `parser:"| 'when' @@"`
	Code    *codeBlock `parser:"| @@"`
	Array   *array     `parser:"| @@"`
	Object  *object    `parser:"| @@"`
	For     *forBody   `parser:"| 'for' @@"`
	Run     *ternary   `parser:"| 'run' @@"`
	Paren   *expr      `parser:"| '(':Punct @@ ')'"`
	Load    *loadX     `parser:"| @@"`
	Not     *primary   `parser:"| '!' @@"`
	Neg     *primary   `parser:"| '-' @@"`
	BareKw  *string    `parser:"| @BareKw"`
	Bool    *string    `parser:"| @('true'|'false')"`
	Null    bool       `parser:"| @'null'"`
	Foreach *foreachX  `parser:"| 'foreach' @@"`
	Loop    *loopX     `parser:"| 'loop' @@"`
	LeadPar *leadPar   `parser:"| @@"`
	Ctl     *ctlX      `parser:"| @@"`
	Retry   *retryX    `parser:"| @@"`
	Skip    bool       `parser:"| @'skip'"`
	Denied  bool       `parser:"| @'denied'"`
	Allow   *allowX    `parser:"| @@"`
	Deny    *denyX     `parser:"| @@"`
	Ask     *askX      `parser:"| @@"`
	Call    *bareCall  `parser:"| @@"`
}

// foreachX is `foreach @f(args)`, optionally with a batch pipeline run
// on the whole result (`=> | @stage …`).
type foreachX struct {
	Call     *ref        `parser:"@@"`
	Batch    []*pipeStep `parser:"( '=>' ( @@+"`
	BatchPar *leadPar    `parser:"  | @@ ) )?"`
}

// leadPar is a leading parallel group, `|| @a() || @b() [(cap, pace)]`:
// its branches run on an empty input and its value is their results.
type leadPar struct {
	Pos   lexer.Position
	Atoms []*stageAtom `parser:"( '||' @@ )+"`
	Cap   *string      `parser:"( '(' @Number"`
	Pace  *string      `parser:"  ( ',' @Number @Ident? )? ')' )?"`
}

// loadX is `<path[ # section]>[?]` with field access and an `as`
// template after it.
type loadX struct {
	Tok  string      `parser:"@FileLoad"`
	Path []*accessor `parser:"@@*"`
	As   *strLit     `parser:"( 'as' @@ )?"`
}

// loopX is `loop[(limit)] [until cond] [ … ]`.
type loopX struct {
	Pos     lexer.Position
	Paren   bool     `parser:"( @'('"`
	Endless bool     `parser:"  ( @'endless'"`
	Limit   *expr    `parser:"  | @@ )?"`
	Pace    *pace    `parser:"  ( ',' @@ )? ')' )?"`
	Until   *expr    `parser:"( 'until' @@ )?"`
	Body    *bracket `parser:"@@"`
}

// pace is the pacing of a loop or a parallel for: a duration (`1s`,
// `500ms`) or, for a parallel for, a variable holding one. guardrun runs
// without the delay (it changes when iterations start, not what they
// produce).
type pace struct {
	Pos  lexer.Position
	Num  *string `parser:"( @Number"`
	Unit *string `parser:"  @Ident?"`
	Var  *string `parser:"| @AtIdent )"`
}

// ctlX is `done [value]` / `continue [value]`; a bare one at the end of
// a line is lexed as BareKw.
type ctlX struct {
	Kw    string   `parser:"@('done'|'continue')"`
	Value *ternary `parser:"@@?"`
}

type retryX struct {
	Kw    string   `parser:"@'retry'"`
	Value *ternary `parser:"@@?"`
	With  *object  `parser:"( 'with' @@ )?"`
}

type allowX struct {
	Kw    string   `parser:"@'allow'"`
	Value *ternary `parser:"@@?"`
	With  *object  `parser:"( 'with' @@ )?"`
}

type denyX struct {
	Pos    lexer.Position
	Kw     string   `parser:"@'deny'"`
	Reason *primary `parser:"@@?"`
	With   *object  `parser:"( 'with' @@ )?"`
}

// askX is the guard action `ask "question" [with { … }]`: a human must
// approve the operation (AGENT.md §5). A bare call `ask(…)` is not one:
// the lookahead leaves it to bareCall.
type askX struct {
	Pos      lexer.Position
	Kw       string   `parser:"@'ask' (?! '(')"`
	Question *primary `parser:"@@?"`
	With     *object  `parser:"( 'with' @@ )?"`
}

type bareCall struct {
	Pos  lexer.Position
	Name name       `parser:"@@ '('"`
	Args []*callArg `parser:"( @@ ( ',' @@ )* ','? )? ')'"`
}

// callArg is one argument of a call: an expression, or, as in mlld, a
// bare word (`@f(value)`), which is that text.
type callArg struct {
	Pos    lexer.Position
	Expr   *expr    `parser:"  @@"`
	Bare   []string `parser:"| @Ident @(Ident|Number)* (?= ',' | ')' | TRParen)"`
	Tokens []lexer.Token
}

// name is the name of a bare call or a label: any identifier but when
// and for. A call or a label that also took their first token would
// restart a when or for that failed: parsed again, and reported by the
// shallower failure ("expected (") instead of its own.
type name string

// Parse implements participle.Parseable.
func (c *name) Parse(lex *lexer.PeekingLexer) error {
	tok := lex.Peek()
	if tok.Type != tIdent || tok.Value == "when" || tok.Value == "for" {
		return participle.NextMatch
	}
	*c = name(lex.Next().Value)
	return nil
}

type ref struct {
	Pos  lexer.Position
	Name string      `parser:"@AtIdent"`
	Path []*accessor `parser:"@@*"`
}

type accessor struct {
	Pos      lexer.Position
	Optional bool       `parser:"(   ( @'?.' | '.' )"`
	Field    *string    `parser:"    @(Ident|Number)"`
	Wild     bool       `parser:"  | ( IndexOpen | TLBrack ) ( @'*'"`
	Index    *expr      `parser:"    | @@"`
	Colon    bool       `parser:"      ( @':'"`
	End      *expr      `parser:"        @@? )?"`
	Lead     bool       `parser:"    | @':'"`
	LeadEnd  *expr      `parser:"      @@? ) ']'"`
	Call     bool       `parser:"  | @( CallOpen | TLParen )"`
	Args     []*callArg `parser:"    ( @@ ( ',' @@ )* ','? )? ')' )"`
}

type arrayItem struct {
	Pos      lexer.Position
	Effect   *effect `parser:"  @@"`
	Spread   bool    `parser:"| @'...'?"`
	Value    *expr   `parser:"  @@"`
	Optional bool    `parser:"  ( @'?' (?= ',' | ']') )?"`
}

type array struct {
	Pos   lexer.Position
	Items []*arrayItem `parser:"'[':Punct ( @@ ( ',' @@ )* ','? )? ']'"`
}

type entry struct {
	Pos      lexer.Position
	Spread   *ternary `parser:"  '...' @@"`
	KeyIdent *string  `parser:"| ( @(Ident|Number)"`
	KeyStr   *strLit  `parser:"  | @@ )"`
	Optional bool     `parser:"  @'?'? ':'"`
	Value    *expr    `parser:"  @@"`
}

type object struct {
	Pos     lexer.Position
	Entries []*entry `parser:"'{' ( @@ ( ',' @@ )* ','? )? '}'"`
}

type codeChunk struct {
	Text   *string   `parser:"  @CodeText"`
	Nested *codeNest `parser:"| @@"`
}

type codeNest struct {
	Open  string       `parser:"@CodeLBrace"`
	Body  []*codeChunk `parser:"@@*"`
	Close string       `parser:"@CodeRBrace"`
}

type codeBlock struct {
	Pos    lexer.Position
	Open   string       `parser:"@(CodeOpen|PipeCode)"`
	Body   []*codeChunk `parser:"@@*"`
	Close  string       `parser:"@CodeRBrace"`
	Tokens []lexer.Token
}

type strLit struct {
	Pos     lexer.Position
	DQ      bool     `parser:"(  @DQOpen"`
	DQParts []*part  `parser:"   @@* DQClose"`
	SQ      *string  `parser:" | @SQString"`
	BT      bool     `parser:" | @BTOpen"`
	BTParts []*part  `parser:"   @@* BTClose"`
	Colon   bool     `parser:" | @ColonOpen"`
	CParts  []*part  `parser:"   @@* ColonClose"`
	Triple  bool     `parser:" | @TripleOpen"`
	TParts  []*tpart `parser:"   @@* TripleClose )"`
	Tokens  []lexer.Token
}

type part struct {
	Pos    lexer.Position
	Load   *tplLoad `parser:"  @@"`
	Text   *string  `parser:"| @Text"`
	Esc    *string  `parser:"| @Esc"`
	AtAt   bool     `parser:"| @AtAt"`
	Interp *interp  `parser:"| @@"`
	For    *tplFor  `parser:"| @@"`
}

// tplFor is a `/for @x in @source … /end` block inside a :: template; the
// lexer only produces ColonFor and ColonEnd at the start of a line there.
type tplFor struct {
	Pos    lexer.Position
	First  string  `parser:"ColonFor @AtIdent"`
	Second *string `parser:"( ',' @AtIdent )?"`
	Source *expr   `parser:"'in' @@ ForHeadEnd"`
	Body   []*part `parser:"@@* ColonEnd"`
}

// tplLoad is a `<path>` inside a backtick or :: template.
type tplLoad struct {
	Pos   lexer.Position
	Tok   string         `parser:"@FileLoad"`
	Path  []*tplAccessor `parser:"@@*"`
	Pipes []*tplPipe     `parser:"@@*"`
}

// tplPipe is a condensed pipe `|@name` after a reference in a template.
type tplPipe struct {
	Pos  lexer.Position
	Text string `parser:"@TPipe"`
}

type interp struct {
	Pos      lexer.Position
	Name     string         `parser:"@TplRef"`
	Path     []*tplAccessor `parser:"@@*"`
	Pipes    []*tplPipe     `parser:"@@*"`
	Cond     bool           `parser:"( @CondOpen"`
	Snippet  []*part        `parser:"  @@* BTClose"`
	CondDQ   bool           `parser:"| @CondDQOpen"`
	Fragment []*part        `parser:"  @@* DQClose"`
	Omit     bool           `parser:"| @TOmit"`
	Fallback *primary       `parser:"| TFallback @@ )?"`
}

type tplAccessor struct {
	Pos   lexer.Position
	Field *string    `parser:"  @TField"`
	Wild  bool       `parser:"| TLBrack @'*' TRBrack"`
	Index *expr      `parser:"| TLBrack @@ TRBrack"`
	Call  bool       `parser:"| @TLParen"`
	Args  []*callArg `parser:"  ( @@ ( ',' @@ )* )? TRParen"`
}

type tpart struct {
	Pos    lexer.Position
	Text   *string   `parser:"  @Text"`
	Name   *string   `parser:"| MOpen @Ident"`
	Fields []*mfield `parser:"  @@* MClose"`
}

// mfield is one accessor of a {{name…}}: `.field`, `.0`, `[0]` or
// `["key"]`.
type mfield struct {
	Pos   lexer.Position
	Name  *string `parser:"  MDot @(Ident|Number)"`
	Index *string `parser:"| MLBrack @Number MRBrack"`
	Key   *string `parser:"| MLBrack @MKey MRBrack"`
}

// cmdTemplate is the body of a cmd/run block read as a template.
type cmdTemplate struct {
	Parts []*part `parser:"@@*"`
}
