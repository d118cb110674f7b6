package grammar

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// identPattern is an mlld identifier: a hyphen is part of the name only
// when an alphanumeric follows it, so `@a-@b` is two references. The
// lexer below implements it by hand; document.go still matches it with a
// regexp to classify lines.
const identPattern = `[A-Za-z_](?:[A-Za-z0-9_]|-[A-Za-z0-9])*`

// The lexer is hand-written: participle's regexp lexer tries every rule
// in turn on the remaining input, and Go's backtracking matcher clears
// state proportional to that input on each attempt, which made lexing
// the bulk of parse time. Participle still does all the parsing; this
// only produces its tokens.
//
// A lexer is a stack of states, like participle's stateful lexer: string
// and template openers push a state and their closers pop it, and an
// @reference inside a template pushes a state that keeps its field,
// index and call accessors attached.
type lexState uint8

const (
	// stExpr lexes directive text.
	stExpr lexState = iota
	// stForHead is the `@x in @source` head of a /for block inside a ::
	// template: expression tokens up to the end of the line.
	stForHead
	stDQ
	stBT
	stColon
	stTriple
	stMustache
	// stTRef follows an @name inside a template: field, index and call
	// accessors stay attached; anything else returns to the text.
	stTRef
	stTBrack
	stTParen
	// stTFB follows `@name??`: an optional quoted fallback.
	stTFB
	// stCmd is the start state of the command-template lexer: only
	// @references (and `\@`, `@@`) are special.
	stCmd
	// stCode is the raw body of a code block; quoted runs are single
	// tokens so that braces inside JS strings do not unbalance the block.
	stCode
)

// Token types. Participle matches grammar literals by value and named
// tokens by these types; the names are what the grammar in tree.go uses.
const (
	tArmStar lexer.TokenType = -(iota + 2)
	tArmOp
	tNL
	tBareKw
	tCodeOpen
	tPipeCode
	tTripleOpen
	tColonOpen
	tBTOpen
	tDQOpen
	tSQString
	tBadQuote
	tFileLoad
	tNumber
	tAtIdent
	tIdent
	tOp
	tPunct
	tCmpOp
	tArithOp
	tText
	tBad
	tDQClose
	tEsc
	tAtAt
	tTplRef
	tBTClose
	tColonClose
	tColonFor
	tForHeadEnd
	tColonEnd
	tTripleClose
	tMOpen
	tMClose
	tMDot
	tTField
	tTLBrack
	tTLParen
	tTFallback
	tTOmit
	tTRBrack
	tTRParen
	tCodeLBrace
	tCodeRBrace
	tCodeText
	tIndexOpen
	tCallOpen
	tBarePath
	tCondOpen
	tCondDQOpen
	tMLBrack
	tMRBrack
	tMKey
	tTPipe
)

// tokenNames maps the token names the grammar in tree.go uses to their
// types; built on first use (see directiveKeywords).
var tokenNames = sync.OnceValue(func() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "ArmStar": tArmStar, "ArmOp": tArmOp, "NL": tNL, "BareKw": tBareKw,
		"CodeOpen": tCodeOpen, "PipeCode": tPipeCode, "TripleOpen": tTripleOpen,
		"ColonOpen": tColonOpen, "BTOpen": tBTOpen, "DQOpen": tDQOpen, "SQString": tSQString,
		"BadQuote": tBadQuote, "FileLoad": tFileLoad, "Number": tNumber, "AtIdent": tAtIdent,
		"Ident": tIdent, "Op": tOp, "Punct": tPunct, "CmpOp": tCmpOp, "ArithOp": tArithOp, "Text": tText, "Bad": tBad, "DQClose": tDQClose,
		"Esc": tEsc, "AtAt": tAtAt, "TplRef": tTplRef, "BTClose": tBTClose, "ColonClose": tColonClose,
		"ColonFor":   tColonFor,
		"ForHeadEnd": tForHeadEnd, "ColonEnd": tColonEnd, "TripleClose": tTripleClose,
		"MOpen": tMOpen, "MClose": tMClose, "MDot": tMDot, "TField": tTField, "TLBrack": tTLBrack,
		"TLParen": tTLParen, "TFallback": tTFallback, "TOmit": tTOmit, "TRBrack": tTRBrack,
		"TRParen": tTRParen, "CodeLBrace": tCodeLBrace, "CodeRBrace": tCodeRBrace, "CodeText": tCodeText,
		"IndexOpen": tIndexOpen, "CallOpen": tCallOpen, "BarePath": tBarePath, "CondOpen": tCondOpen,
		"CondDQOpen": tCondDQOpen,
		"MLBrack":    tMLBrack, "MRBrack": tMRBrack, "MKey": tMKey, "TPipe": tTPipe,
	}
})

// lexDef is a participle lexer definition whose lexers start in root.
type lexDef struct{ root lexState }

var (
	// exprLexer lexes directive spans.
	exprLexer = &lexDef{root: stExpr}
	// cmdLexer lexes the body of a cmd/run block (or a <path>) as a command
	// template.
	cmdLexer = &lexDef{root: stCmd}
)

// Symbols implements lexer.Definition.
func (d *lexDef) Symbols() map[string]lexer.TokenType { return tokenNames() }

// Lex implements lexer.Definition.
func (d *lexDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

// LexString implements lexer.StringDefinition.
func (d *lexDef) LexString(filename string, input string) (lexer.Lexer, error) {
	return newLexer(filename, input, d.root), nil
}

// LexBytes implements lexer.BytesDefinition.
func (d *lexDef) LexBytes(filename string, input []byte) (lexer.Lexer, error) {
	return d.LexString(filename, string(input))
}

type handLexer struct {
	src   string
	pos   lexer.Position
	stack []lexState
	// forDepth counts the /for heads and bodies open inside :: templates,
	// so that a line starting with /end is a block end only inside one.
	forDepth int
	// pathEnd is the offset just past the last token when that token can
	// take an accessor (an @name, a field after a dot, a closing ) or ]),
	// and -1 otherwise; afterDot says the last token was . or ?.
	pathEnd  int
	afterDot bool
	// afterTo says the last token was the word `to` (not a field): an
	// output target may follow as a bare path (`to data.json`).
	afterTo bool
}

func newLexer(filename, src string, root lexState) *handLexer {
	return &handLexer{
		src:     src,
		pos:     lexer.Position{Filename: filename, Line: 1, Column: 1},
		stack:   append(make([]lexState, 0, 8), root),
		pathEnd: -1,
	}
}

func (l *handLexer) push(s lexState) { l.stack = append(l.stack, s) }

func (l *handLexer) pop() {
	if len(l.stack) > 1 {
		l.stack = l.stack[:len(l.stack)-1]
	}
}

// emit returns the token of type t spanning the next n bytes and advances
// past it.
func (l *handLexer) emit(t lexer.TokenType, n int) lexer.Token {
	off := l.pos.Offset
	tok := lexer.Token{Type: t, Value: l.src[off : off+n], Pos: l.pos}
	l.advance(n)
	l.pathEnd = -1
	if t == tAtIdent || t == tFileLoad || l.afterDot && (t == tIdent || t == tNumber) || tok.Value == ")" || tok.Value == "]" {
		l.pathEnd = off + n
	}
	l.afterTo = t == tIdent && tok.Value == "to" && !l.afterDot
	l.afterDot = tok.Value == "." || tok.Value == "?."
	return tok
}

func (l *handLexer) advance(n int) {
	span := l.src[l.pos.Offset : l.pos.Offset+n]
	l.pos.Offset += n
	nl := strings.LastIndexByte(span, '\n')
	if nl < 0 {
		l.pos.Column += utf8.RuneCountInString(span)
		return
	}
	l.pos.Line += strings.Count(span, "\n")
	l.pos.Column = utf8.RuneCountInString(span[nl:])
}

// step is what a state function did at the current position.
type step uint8

const (
	// stepToken: a token was produced.
	stepToken step = iota
	// stepAgain: blanks or a comment were skipped, or the state was popped;
	// lex again from the new position and state.
	stepAgain
	// stepFail: no rule matches here.
	stepFail
)

// Next implements lexer.Lexer.
func (l *handLexer) Next() (lexer.Token, error) {
	for l.pos.Offset < len(l.src) {
		i := l.pos.Offset
		var (
			tok lexer.Token
			res step
		)
		switch st := l.stack[len(l.stack)-1]; st {
		case stExpr, stForHead:
			tok, res = l.expr(i, st == stForHead)
		case stDQ:
			tok, res = l.quoted(i, '"', tDQClose)
		case stBT:
			tok, res = l.quoted(i, '`', tBTClose)
		case stColon:
			tok, res = l.colon(i)
		case stTriple:
			tok, res = l.triple(i)
		case stMustache:
			tok, res = l.mustache(i)
		case stTRef:
			tok, res = l.tref(i)
		case stTBrack:
			tok, res = l.nested(i, '[', ']', tTLBrack, tTRBrack, stTBrack)
		case stTParen:
			tok, res = l.nested(i, '(', ')', tTLParen, tTRParen, stTParen)
		case stTFB:
			tok, res = l.fallback(i)
		case stCmd:
			tok, res = l.cmd(i)
		case stCode:
			tok, res = l.code(i)
		}
		switch res {
		case stepToken:
			return tok, nil
		case stepFail:
			return lexer.Token{}, &lexer.Error{Msg: fmt.Sprintf("invalid input text %q", sample(l.src[i:])), Pos: l.pos}
		}
	}
	return lexer.EOFToken(l.pos), nil
}

func sample(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	r := []rune(s)
	if len(r) > 16 {
		return string(r[:16]) + "..."
	}
	return s
}
