package grammar

import "github.com/alecthomas/participle/v2/lexer"

// This file holds the participle parse tree. It mirrors the surface syntax
// closely; lower*.go turns it into ast nodes. Binary operators are parsed
// flat and given precedence during lowering.

// span is one directive. Tokens after the statement are left to the
// caller (see parseSpan).
type span struct {
	Pos  lexer.Position
	Stmt *stmt `parser:"@@"`
}

type stmt struct {
	Pos     lexer.Position
	Var     *varStmt    `parser:"  'var' @@"`
	Show    *expr       `parser:"| 'show' @@"`
	Exe     *exeStmt    `parser:"| 'exe' @@"`
	Run     *expr       `parser:"| 'run' @@"`
	When    *whenBody   `parser:"| 'when' @@"`
	If      *ifStmt     `parser:"| 'if' @@"`
	For     *forBody    `parser:"| 'for' @@"`
	Output  *outputStmt `parser:"| 'output' @@"`
	Append  *outputStmt `parser:"| 'append' @@"`
	Log     *expr       `parser:"| 'log' @@"`
	Import  *importStmt `parser:"| 'import' @@"`
	Export  *exportStmt `parser:"| 'export' @@"`
	Guard   *guardStmt  `parser:"| 'guard' @@"`
	Policy  *assignStmt `parser:"| 'policy' @@"`
	Let     *assignStmt `parser:"| 'let' @@"`
	Return  *returnStmt `parser:"| '=>' @@"`
	Augment *augment    `parser:"| @@"`
	Expr    *expr       `parser:"| @@"`
}

type label struct {
	Pos  lexer.Position
	Bang bool    `parser:"@'!'?"`
	Name string  `parser:"@Ident"`
	Sub  *string `parser:"( ':' @Ident )?"`
	Priv bool    `parser:"@'!'?"`
}

type varStmt struct {
	Pos    lexer.Position
	Labels []*label `parser:"( @@ ( ',' @@ )* )?"`
	Name   string   `parser:"@AtIdent '='"`
	Value  *expr    `parser:"@@"`
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
	Block  *block   `parser:"( @@"`
	Body   *expr    `parser:"| @@ )"`
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

type outputStmt struct {
	Pos    lexer.Position
	Value  *ternary `parser:"@@?"`
	Target *target  `parser:"( 'to'? @@ )?"`
	Format *string  `parser:"( 'as' @Ident )?"`
}

type target struct {
	Pos    lexer.Position
	Stream *string  `parser:"  @('stdout'|'stderr')"`
	Path   *ternary `parser:"| @@"`
}

type importName struct {
	Pos   lexer.Position
	Name  string  `parser:"@(AtIdent|Ident)"`
	Alias *string `parser:"( 'as' @(AtIdent|Ident) )?"`
}

type importStmt struct {
	Pos    lexer.Position
	Policy *string       `parser:"(  'policy' @AtIdent 'from'"`
	PPath  *primary      `parser:"   @@"`
	All    bool          `parser:" | '{' ( @'*'"`
	Names  []*importName `parser:"       | @@ ( ',' @@ )* ','? ) '}' 'from'"`
	LPath  *primary      `parser:"   @@"`
	Path   *primary      `parser:" | @@"`
	Alias  *string       `parser:"   ( 'as' @AtIdent )? )"`
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

type whenSubject struct {
	Pos    lexer.Position
	Name   string   `parser:"@AtIdent"`
	Fields []string `parser:"( '.' @(Ident|Number) )*"`
}

type armList struct {
	Pos  lexer.Position
	Arms []*arm `parser:"'[' ( @@ ';'? )* ']'"`
}

type whenBody struct {
	Pos      lexer.Position
	Modifier *string      `parser:"@('all'|'any'|'first')?"`
	Block    *armList     `parser:"(  @@"`
	Subject  *whenSubject `parser:" | @@ ':'?"`
	Match    *armList     `parser:"   @@"`
	Cond     *expr        `parser:" | @@ '=>'"`
	Action   *action      `parser:"   @@ )"`
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

type action struct {
	Pos     lexer.Position
	Show    *expr       `parser:"  'show' @@"`
	Output  *outputStmt `parser:"| 'output' @@"`
	Append  *outputStmt `parser:"| 'append' @@"`
	Log     *expr       `parser:"| 'log' @@"`
	Run     *expr       `parser:"| 'run' @@"`
	Var     *varStmt    `parser:"| 'var' @@"`
	Let     *assignStmt `parser:"| 'let' @@"`
	Return  *returnStmt `parser:"| '=>' @@"`
	Block   *block      `parser:"| @@"`
	Value   *expr       `parser:"| @@"`
	Labeled *labeled    `parser:"| @@"`
}

type forBody struct {
	Pos    lexer.Position
	First  string  `parser:"@AtIdent"`
	Second *string `parser:"( ',' @AtIdent )?"`
	Source *expr   `parser:"'in' @@"`
	Filter *expr   `parser:"( 'when' @@ )?"`
	Block  *block  `parser:"( @@"`
	Action *action `parser:"| '=>' @@ )"`
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
	Stage *stage     `parser:"  '|' @@"`
	Code  *codeBlock `parser:"| @@"`
}

type stage struct {
	Pos   lexer.Position
	Lead  bool         `parser:"@'||'?"`
	Atoms []*stageAtom `parser:"@@ ( '||' @@ )*"`
}

type stageAtom struct {
	Pos    lexer.Position
	Ref    *ref       `parser:"  @@"`
	Effect *effect    `parser:"| @@"`
	Code   *codeBlock `parser:"| @@"`
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
	Pos lexer.Position
	// Alternatives whose first token is unique come first, most common
	// first: each alternative tried and rejected costs participle a branch
	// and a struct allocation. The keyword alternatives must stay ahead of
	// the bare call, which would also take `retry(…)` and the like.
	Ref     *ref       `parser:"  @@"`
	Str     *strLit    `parser:"| @@"`
	Number  *string    `parser:"| @Number"`
	Array   *array     `parser:"| @@"`
	Object  *object    `parser:"| @@"`
	Paren   *expr      `parser:"| '(' @@ ')'"`
	Load    *string    `parser:"| @FileLoad"`
	Code    *codeBlock `parser:"| @@"`
	Not     *primary   `parser:"| '!' @@"`
	Neg     *primary   `parser:"| '-' @@"`
	BareKw  *string    `parser:"| @BareKw"`
	Bool    *string    `parser:"| @('true'|'false')"`
	Null    bool       `parser:"| @'null'"`
	When    *whenBody  `parser:"| 'when' @@"`
	For     *forBody   `parser:"| 'for' @@"`
	Foreach *ref       `parser:"| 'foreach' @@"`
	Retry   *retryX    `parser:"| @@"`
	Skip    bool       `parser:"| @'skip'"`
	Denied  bool       `parser:"| @'denied'"`
	Allow   *allowX    `parser:"| @@"`
	Deny    *denyX     `parser:"| @@"`
	Run     *ternary   `parser:"| 'run' @@"`
	Call    *bareCall  `parser:"| @@"`
}

type retryX struct {
	Kw    string   `parser:"@'retry'"`
	Value *ternary `parser:"@@?"`
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
}

type bareCall struct {
	Pos  lexer.Position
	Name string  `parser:"@Ident '('"`
	Args []*expr `parser:"( @@ ( ',' @@ )* ','? )? ')'"`
}

type ref struct {
	Pos  lexer.Position
	Name string      `parser:"@AtIdent"`
	Path []*accessor `parser:"@@*"`
}

type accessor struct {
	Pos      lexer.Position
	Optional bool    `parser:"(   ( @'?.' | '.' )"`
	Field    *string `parser:"    @(Ident|Number)"`
	Wild     bool    `parser:"  | '[' @'*' ']'"`
	Index    *expr   `parser:"  | '[' @@ ']'"`
	Call     bool    `parser:"  | @'('"`
	Args     []*expr `parser:"    ( @@ ( ',' @@ )* ','? )? ')' )"`
}

type arrayItem struct {
	Pos      lexer.Position
	Effect   *effect `parser:"  @@"`
	Spread   bool    `parser:"| @'...'?"`
	Value    *expr   `parser:"  @@"`
	Optional bool    `parser:"  @'?'?"`
}

type array struct {
	Pos   lexer.Position
	Items []*arrayItem `parser:"'[' ( @@ ( ',' @@ )* ','? )? ']'"`
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
	Text   *string `parser:"  @Text"`
	Esc    *string `parser:"| @Esc"`
	AtAt   bool    `parser:"| @AtAt"`
	Interp *interp `parser:"| @@"`
	For    *tplFor `parser:"| @@"`
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

type interp struct {
	Pos      lexer.Position
	Name     string         `parser:"@TplRef"`
	Path     []*tplAccessor `parser:"@@*"`
	Omit     bool           `parser:"( @TOmit"`
	Fallback *primary       `parser:"| TFallback @@ )?"`
}

type tplAccessor struct {
	Pos   lexer.Position
	Field *string `parser:"  @TField"`
	Wild  bool    `parser:"| TLBrack @'*' TRBrack"`
	Index *expr   `parser:"| TLBrack @@ TRBrack"`
	Call  bool    `parser:"| @TLParen"`
	Args  []*expr `parser:"  ( @@ ( ',' @@ )* )? TRParen"`
}

type tpart struct {
	Pos    lexer.Position
	Text   *string  `parser:"  @Text"`
	Name   *string  `parser:"| MOpen @Ident"`
	Fields []string `parser:"  ( MDot @Ident )* MClose"`
}

// cmdTemplate is the body of a cmd/run block read as a template.
type cmdTemplate struct {
	Parts []*part `parser:"@@*"`
}
