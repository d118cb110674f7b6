package grammar

import (
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"
)

// participle parses by recursive descent, so every nested bracket costs Go
// stack; a line of 200k `[` overflowed the stack, which no recover can
// catch. Nesting is therefore capped while the tokens are scanned, before
// participle sees them.
const (
	// maxNesting caps brackets, braces, parentheses, strings, templates
	// and code braces open at once; real scripts stay far below it.
	maxNesting = 200
	// maxRecursion caps the open brackets plus the tokens that make
	// participle recurse without a bracket (prefix ! and -, ternary ?,
	// when, for, if, run, retry, allow, deny, template /for). It is
	// larger than maxNesting because a long run of such tokens at one
	// level (a big if/else-if chain) is ordinary.
	maxRecursion = 2000
)

const nestingHint = "split the expression into variables"

// nestingError is a nesting limit hit at offset (relative to the text
// that was scanned).
type nestingError struct {
	offset int
	msg    string
	found  string
}

func (e *nestingError) Error() string { return e.msg }

// nesting tracks what is open while a token stream is scanned and how
// deeply participle will recurse on it. Only separators end a recursion
// chain: a newline does not (participle elides it), and a comma or
// semicolon appears only directly inside a list, where every nested
// rule of the previous item has returned.
type nesting struct {
	stack []openTok
	// chain counts the recursion tokens at the innermost level since its
	// opener or last separator; live counts them over all open levels.
	chain, live int
	prev        string
}

// add records one token; kind is its symbol name or, for punctuation,
// its value; off is its offset in the scanned text.
func (n *nesting) add(kind string, tok lexer.Token, off int) *nestingError {
	err := n.step(kind, tok, off)
	n.prev = kind
	return err
}

func (n *nesting) step(kind string, tok lexer.Token, off int) *nestingError {
	if closerOf(kind) != "" {
		n.stack = append(n.stack, openTok{kind: kind, offset: off, value: tok.Value, chain: n.chain})
		n.chain = 0
		if len(n.stack) > maxNesting {
			return &nestingError{offset: off, found: tok.Value, msg: fmt.Sprintf("nesting deeper than %d levels", maxNesting)}
		}
		return n.check(tok, off)
	}
	if len(n.stack) > 0 && closerOf(n.stack[len(n.stack)-1].kind) == kind {
		n.live -= n.chain
		n.chain = n.stack[len(n.stack)-1].chain
		n.stack = n.stack[:len(n.stack)-1]
		return nil
	}
	switch {
	case kind == "," || kind == ";":
		n.live -= n.chain
		n.chain = 0
	case kind == "ColonEnd":
		if n.chain > 0 {
			n.chain--
			n.live--
		}
	case n.recurses(kind, tok.Value):
		n.chain++
		n.live++
		return n.check(tok, off)
	}
	return nil
}

func (n *nesting) check(tok lexer.Token, off int) *nestingError {
	if len(n.stack)+n.live > maxRecursion {
		return &nestingError{offset: off, found: tok.Value, msg: fmt.Sprintf("expression nested deeper than %d levels of brackets, operators and keywords", maxRecursion)}
	}
	return nil
}

// recursiveKeywords reports whether kw is a keyword whose grammar rule
// contains a full expression, so that a chain of them nests.
func recursiveKeywords(kw string) bool {
	switch kw {
	case "when", "for", "if", "run", "retry", "allow", "deny", "ask":
		return true
	}
	return false
}

// operandEnds reports whether a '-' after a token of this kind is binary.
func operandEnds(kind string) bool {
	switch kind {
	case "Number", "AtIdent", "Ident", "SQString", "FileLoad", "BareKw",
		")", "]", "}", "DQClose", "BTClose", "ColonClose",
		"TripleClose", "CodeRBrace", "TRParen", "TRBrack", "TField",
		"TplRef":
		return true
	}
	return false
}

func (n *nesting) recurses(kind, value string) bool {
	switch kind {
	case "!", "?", "ColonFor":
		return true
	case "ArithOp":
		return value == "-" && !operandEnds(n.prev)
	case "Ident":
		return recursiveKeywords(value) && n.prev != "." && n.prev != "?."
	}
	return false
}

// checkNesting runs the nesting limits over a whole token stream.
func checkNesting(toks []lexer.Token) *nestingError {
	var n nesting
	for _, tok := range toks {
		if err := n.add(tokenKind(tok), tok, tok.Pos.Offset); err != nil {
			return err
		}
	}
	return nil
}

// tokenKind is the name the nesting tracker uses for tok: its symbol
// name, or its value for punctuation and operators.
func tokenKind(tok lexer.Token) string {
	name := symbolNames()[tok.Type]
	if name == "Punct" || name == "Op" {
		return tok.Value
	}
	return name
}
