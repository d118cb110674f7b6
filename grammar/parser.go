package grammar

import (
	"runtime/debug"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle parsers are built on first use, each on its own: building
// one reflects over the parse tree and costs about as much as parsing a
// few hundred lines, so a script without command blocks never pays for the
// command-template parser.
var (
	spanOnce     sync.Once
	spanParser   *participle.Parser[span]
	spanBuildErr error

	cmdOnce     sync.Once
	cmdParser   *participle.Parser[cmdTemplate]
	cmdBuildErr error
)

// lookahead is how many tokens participle may consume in an alternative
// (or an optional part) that then fails and still try the next one.
// Past it the failure is final, which stops a failure deep inside nested
// blocks from being retried at every level. No rule of the grammar needs
// more: where two readings share a longer prefix, one rule reads it and
// the lowering decides (see doc.go).
const lookahead = 2

func buildSpanParser() error {
	spanOnce.Do(func() {
		spanParser, spanBuildErr = participle.Build[span](
			participle.Lexer(exprLexer),
			participle.Elide("NL"),
			participle.UseLookahead(lookahead),
		)
	})
	return spanBuildErr
}

func buildCmdParser() error {
	cmdOnce.Do(func() {
		cmdParser, cmdBuildErr = participle.Build[cmdTemplate](
			participle.Lexer(cmdLexer),
			participle.UseLookahead(lookahead),
		)
	})
	return cmdBuildErr
}

// tokenLexer replays tokens already produced by the span scanner.
type tokenLexer struct {
	toks []lexer.Token
	i    int
}

func (t *tokenLexer) Next() (lexer.Token, error) {
	if t.i >= len(t.toks) {
		return t.toks[len(t.toks)-1], nil
	}
	tok := t.toks[t.i]
	t.i++
	return tok, nil
}

// parseSpanText parses one directive span from its text.
func parseSpanText(text string) (*span, *lexer.Token, error) {
	lx, err := exprLexer.LexString("", text)
	if err != nil {
		return nil, nil, err
	}
	return parseSpan(lx)
}

// parseSpanTokens parses a span from the scanner's tokens, which must end
// with EOF.
func parseSpanTokens(toks []lexer.Token) (*span, *lexer.Token, error) {
	return parseSpan(&tokenLexer{toks: toks})
}

// parseSpan runs participle over one directive span. The statement may
// stop before the end of the span: extra is then the first token left
// over, which the lowerer reports. Leaving trailing tokens to the caller,
// instead of having the grammar try to parse them as one more expression,
// saves participle a failed descent through every expression form at
// the end of each directive.
//
// A panic inside participle (its grammar checks are assertions) becomes an
// *InternalError rather than taking the process down.
func parseSpan(lx lexer.Lexer) (tree *span, extra *lexer.Token, err error) {
	if err := buildSpanParser(); err != nil {
		return nil, nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			tree, extra, err = nil, nil, &InternalError{Value: r, Stack: debug.Stack()}
		}
	}()
	peek, err := lexer.Upgrade(lx, tNL)
	if err != nil {
		return nil, nil, err
	}
	tree, err = spanParser.ParseFromLexer(peek, participle.AllowTrailing(true))
	if err != nil {
		return nil, nil, err
	}
	if next := peek.Peek(); !next.EOF() {
		tok := *next
		extra = &tok
	}
	return tree, extra, nil
}

// parseCmdText parses a cmd body or a <path> as a command template. Its
// @references may nest brackets and templates, which the span scanner saw
// only as code text, so the nesting limits are checked here; the error is
// then a *nestingError with an offset relative to text.
func parseCmdText(text string) (tree *cmdTemplate, err error) {
	if err := buildCmdParser(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			tree, err = nil, &InternalError{Value: r, Stack: debug.Stack()}
		}
	}()
	lx := newLexer("", text, stCmd)
	var toks []lexer.Token
	for {
		tok, err := lx.Next()
		if err != nil {
			// Let participle report the lexer error as it always has.
			return cmdParser.ParseString("", text)
		}
		toks = append(toks, tok)
		if tok.EOF() {
			break
		}
	}
	if deep := checkNesting(toks); deep != nil {
		return nil, deep
	}
	peek, err := lexer.Upgrade(&tokenLexer{toks: toks})
	if err != nil {
		return nil, err
	}
	return cmdParser.ParseFromLexer(peek)
}
