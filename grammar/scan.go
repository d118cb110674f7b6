package grammar

import (
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2/lexer"
)

// openers and closers track nesting while the span scanner walks tokens:
// a directive continues past a newline while any of them is open.
// closerOf is the closer of the opener kind, "" when kind opens nothing.
func closerOf(kind string) string {
	switch kind {
	case "(", "CallOpen":
		return ")"
	case "[", "IndexOpen":
		return "]"
	case "{":
		return "}"
	case "TLParen":
		return "TRParen"
	case "TLBrack":
		return "TRBrack"
	case "DQOpen":
		return "DQClose"
	case "BTOpen":
		return "BTClose"
	case "ColonOpen":
		return "ColonClose"
	case "TripleOpen":
		return "TripleClose"
	case "CodeOpen", "PipeCode", "CodeLBrace":
		return "CodeRBrace"
	case "MOpen":
		return "MClose"
	}
	return ""
}

// openTok is an opener still waiting for its closer.
type openTok struct {
	kind   string
	offset int
	value  string
	// chain is the recursion chain of the enclosing level (see nesting).
	chain int
}

// scanResult says where a directive span ends and, when it runs to the end
// of input with something still open, what was left open.
type scanResult struct {
	end      int
	unclosed *openTok
	// tokens are the span's tokens (offsets relative to the scan start),
	// ending with EOF; the parser reuses them instead of lexing again.
	tokens []lexer.Token
	// deep is set when the span nests beyond the limits in nesting.go;
	// its offset is absolute. The span must then not be parsed.
	deep *nestingError
}

// symbolNames names each token type (the inverse of tokenNames).
var symbolNames = sync.OnceValue(func() map[lexer.TokenType]string {
	out := map[lexer.TokenType]string{}
	for name, t := range tokenNames() {
		out[t] = name
	}
	return out
})

// scanSpan finds the end of the directive starting at src[start:]: the
// first newline outside any bracket, string, template or code block. The
// scan is one pass of the same lexer the parser uses, so both agree on
// what is open.
//
// Go's regexp backtracker clears state proportional to the input on every
// match, so the lexer is fed a window of lines that grows geometrically
// while something is still open, instead of the rest of the file.
func scanSpan(src string, start int) scanResult {
	limit := lineEnd(src, start)
	for {
		res, open := scanWindow(src, start, limit)
		if !open && res.deep == nil && res.end == limit && nextLinePipes(src, limit) {
			// The next line continues the pipeline: scan it too.
			limit = lineEnd(src, limit+1)
			continue
		}
		if !open || res.deep != nil || limit >= len(src) {
			return res
		}
		limit = lineEnd(src, min(len(src), start+2*(limit-start)+1))
	}
}

// scanWindow scans src[start:limit]; open reports that the window ended
// with something still open.
func scanWindow(src string, start, limit int) (scanResult, bool) {
	res := scanWindowTokens(src[:limit], start)
	return res, res.unclosed != nil
}

func scanWindowTokens(src string, start int) scanResult {
	lx, err := exprLexer.LexString("", src[start:])
	if err != nil {
		return scanResult{end: lineEnd(src, start)}
	}
	var nest nesting
	var toks []lexer.Token
	for {
		tok, err := lx.Next()
		if err != nil {
			return scanResult{end: lineEnd(src, start+tok.Pos.Offset)}
		}
		if tok.EOF() {
			toks = append(toks, tok)
			break
		}
		name := symbolNames()[tok.Type]
		if len(nest.stack) == 0 {
			switch name {
			case "NL", "ArmStar", "ArmOp", "BareKw":
				if i := strings.IndexAny(tok.Value, "\r\n"); i >= 0 {
					if name == "BareKw" {
						// The keyword itself still belongs to the span.
						kw := strings.TrimRight(tok.Value[:i], " \t")
						toks = append(toks, lexer.Token{Type: tIdent, Value: kw, Pos: tok.Pos})
					}
					eof := tok.Pos
					eof.Offset += i
					return scanResult{end: start + tok.Pos.Offset + i, tokens: append(toks, lexer.EOFToken(eof))}
				}
			}
		}
		toks = append(toks, tok)
		if deep := nest.add(tokenKind(tok), tok, start+tok.Pos.Offset); deep != nil {
			return scanResult{end: lineEnd(src, deep.offset), deep: deep}
		}
	}
	res := scanResult{end: len(src), tokens: toks}
	if stack := nest.stack; len(stack) > 0 {
		i := len(stack) - 1
		// Report an unbalanced code block at its opener, not at the inner
		// brace that is left over.
		for i > 0 && stack[i].kind == "CodeLBrace" {
			i--
		}
		top := stack[i]
		res.unclosed = &top
	}
	return res
}

// nextLinePipes reports whether the line after the newline at off starts
// (after blanks) with a pipeline continuation.
func nextLinePipes(src string, off int) bool {
	if off >= len(src) || src[off] != '\n' {
		return false
	}
	rest := src[off+1:]
	return pipeContinues(rest[blankLen(rest):])
}

// lineEnd is the offset of the newline ending the line that holds off.
func lineEnd(src string, off int) int {
	if off > len(src) {
		return len(src)
	}
	if i := strings.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(src)
}
